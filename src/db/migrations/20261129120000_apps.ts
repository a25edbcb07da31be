// docs/api-contract.md §25: third-party apps and the OAuth 2.1 authorization server. An app is published by one
// account; an install link hands an `apps:install` key's authority to a browser once; a grant is the consent
// page's stored request, which Approve turns into a one-use code; a redeemed code makes (or renews) the
// install, whose tokens are kept hashed, each refresh token in one family per install. Events gain the app
// that acted (`actor_app_id`, null for everything before).
// biome-ignore-all lint/suspicious/noExplicitAny: a migration runs against a past schema, so Kysely hands it an untyped instance
import { sql, type Kysely } from 'kysely';
import { columnTypes } from './column-types.js';

// `any`: migrations run against past schemas, so they use an untyped Kysely.
export async function up(db: Kysely<any>): Promise<void> {
  const types = columnTypes(db);
  await db.schema
    .createTable('apps')
    .addColumn('id', types.id, (column) => column.primaryKey())
    .addColumn('account_id', types.id, (column) => column.notNull().references('accounts.id'))
    .addColumn('name', 'text', (column) => column.notNull())
    .addColumn('description', 'text')
    .addColumn('website', 'text')
    .addColumn('client_type', 'text', (column) => column.notNull())
    .addColumn('client_secret_hash', 'text')
    .addColumn('previous_secret_hash', 'text')
    .addColumn('previous_secret_expires_at', types.timestamp)
    .addColumn('redirect_uris', types.json, (column) => column.notNull())
    .addColumn('install_url', 'text', (column) => column.notNull())
    .addColumn('scopes', types.json, (column) => column.notNull())
    .addColumn('visibility', 'text', (column) => column.notNull())
    .addColumn('webhook_url', 'text')
    .addColumn('webhook_events', types.json, (column) => column.notNull())
    .addColumn('webhook_status', 'text', (column) => column.notNull())
    .addColumn('webhook_secret', 'text', (column) => column.notNull())
    .addColumn('metadata', types.json, (column) => column.notNull())
    .addColumn('deleted_at', types.timestamp)
    .addColumn('created_at', types.timestamp, (column) => column.notNull())
    .addColumn('updated_at', types.timestamp, (column) => column.notNull())
    .execute();
  await db.schema
    .createIndex('apps_account_created_at_idx')
    .on('apps')
    .columns(['account_id', 'created_at', 'id'])
    .execute();

  await db.schema
    .createTable('app_install_links')
    .addColumn('id', types.id, (column) => column.primaryKey())
    .addColumn('account_id', types.id, (column) => column.notNull().references('accounts.id'))
    .addColumn('app_id', types.id, (column) => column.notNull().references('apps.id'))
    .addColumn('scopes', types.json, (column) => column.notNull())
    .addColumn('token_hash', 'text', (column) => column.notNull().unique())
    .addColumn('created_by_type', 'text', (column) => column.notNull())
    .addColumn('created_by_id', 'text')
    .addColumn('expires_at', types.timestamp, (column) => column.notNull())
    .addColumn('opened_at', types.timestamp)
    // The consent cookie set when the link was opened: its hash, until it lapses or Approve or Deny ends it.
    .addColumn('consent_hash', 'text', (column) => column.unique())
    .addColumn('consent_expires_at', types.timestamp)
    .addColumn('created_at', types.timestamp, (column) => column.notNull())
    .execute();

  await db.schema
    .createTable('app_installs')
    .addColumn('id', types.id, (column) => column.primaryKey())
    .addColumn('account_id', types.id, (column) => column.notNull().references('accounts.id'))
    .addColumn('app_id', types.id, (column) => column.notNull().references('apps.id'))
    .addColumn('scopes', types.json, (column) => column.notNull())
    .addColumn('status', 'text', (column) => column.notNull())
    .addColumn('family_id', types.id, (column) => column.notNull())
    .addColumn('rate_limit_per_minute', 'integer')
    .addColumn('rate_limit_per_day', 'integer')
    .addColumn('rate_limit_burst', 'integer')
    .addColumn('installed_by_type', 'text', (column) => column.notNull())
    .addColumn('installed_by_id', 'text')
    .addColumn('installed_at', types.timestamp, (column) => column.notNull())
    .addColumn('last_used_at', types.timestamp)
    .addColumn('uninstalled_at', types.timestamp)
    .addColumn('uninstalled_reason', 'text')
    .addColumn('created_at', types.timestamp, (column) => column.notNull())
    .addColumn('updated_at', types.timestamp, (column) => column.notNull())
    .execute();
  await db.schema
    .createIndex('app_installs_account_created_at_idx')
    .on('app_installs')
    .columns(['account_id', 'created_at', 'id'])
    .execute();
  await db.schema.createIndex('app_installs_app_idx').on('app_installs').columns(['app_id', 'status']).execute();
  // One active install per (account, app): the index decides between two racing redemptions.
  await db.schema
    .createIndex('app_installs_active_idx')
    .on('app_installs')
    .columns(['account_id', 'app_id'])
    .unique()
    .where(sql.ref('status'), '=', 'active')
    .execute();

  await db.schema
    .createTable('oauth_grants')
    .addColumn('id', types.id, (column) => column.primaryKey())
    .addColumn('link_id', types.id, (column) => column.notNull().references('app_install_links.id'))
    .addColumn('account_id', types.id, (column) => column.notNull().references('accounts.id'))
    .addColumn('app_id', types.id, (column) => column.notNull().references('apps.id'))
    .addColumn('redirect_uri', 'text', (column) => column.notNull())
    .addColumn('code_challenge', 'text', (column) => column.notNull())
    .addColumn('state', 'text')
    .addColumn('scopes', types.json, (column) => column.notNull())
    .addColumn('resource', 'text')
    .addColumn('expires_at', types.timestamp, (column) => column.notNull())
    .addColumn('code_hash', 'text', (column) => column.unique())
    .addColumn('code_expires_at', types.timestamp)
    .addColumn('redeemed_at', types.timestamp)
    .addColumn('install_id', types.id)
    .addColumn('created_at', types.timestamp, (column) => column.notNull())
    .execute();

  await db.schema
    .createTable('oauth_tokens')
    .addColumn('id', types.id, (column) => column.primaryKey())
    .addColumn('token_hash', 'text', (column) => column.notNull().unique())
    .addColumn('kind', 'text', (column) => column.notNull())
    .addColumn('account_id', types.id, (column) => column.notNull().references('accounts.id'))
    .addColumn('app_id', types.id, (column) => column.notNull().references('apps.id'))
    .addColumn('install_id', types.id, (column) => column.notNull().references('app_installs.id'))
    .addColumn('family_id', types.id, (column) => column.notNull())
    // The refresh token whose pair this token is (an access token), or which it replaced (a refresh token).
    .addColumn('parent_id', types.id)
    .addColumn('scopes', types.json, (column) => column.notNull())
    .addColumn('expires_at', types.timestamp, (column) => column.notNull())
    .addColumn('superseded_at', types.timestamp)
    .addColumn('revoked_at', types.timestamp)
    .addColumn('created_at', types.timestamp, (column) => column.notNull())
    .execute();
  await db.schema.createIndex('oauth_tokens_install_idx').on('oauth_tokens').columns(['install_id', 'kind']).execute();
  await db.schema.createIndex('oauth_tokens_parent_idx').on('oauth_tokens').column('parent_id').execute();

  await db.schema.alterTable('events').addColumn('actor_app_id', types.id).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('events').dropColumn('actor_app_id').execute();
  for (const table of ['oauth_tokens', 'oauth_grants', 'app_installs', 'app_install_links', 'apps'])
    await db.schema.dropTable(table).execute();
}
