// Queries on apps, install links, grants, installs and tokens. Secrets are found by their hash only.
import { type SqlBool, sql } from 'kysely';
import {
  type Executor,
  keysOf,
  type Listed,
  listPlan,
  lockedIf,
  type PageRequest,
  runList,
  type SortFields,
} from '../../db/index.js';
import type {
  AppInstallLinkRow,
  AppInstallRow,
  AppLogosTable,
  AppRow,
  OauthGrantRow,
  OauthTokenRow,
} from '../../db/types.js';

export const APP_SORTS: SortFields<AppRow> = {
  created_at: { kind: 'timestamp', value: (row) => row.created_at },
};

export const INSTALL_SORTS: SortFields<AppInstallRow> = {
  created_at: { kind: 'timestamp', value: (row) => row.created_at },
};

const APP_COLUMNS = [
  'id',
  'account_id',
  'name',
  'description',
  'website',
  'client_type',
  'client_secret_hash',
  'previous_secret_hash',
  'previous_secret_expires_at',
  'redirect_uris',
  'install_url',
  'scopes',
  'visibility',
  'webhook_url',
  'webhook_events',
  'webhook_status',
  'webhook_secret',
  'metadata',
  'logo_sha256',
  'suspended_at',
  'deleted_at',
  'created_at',
  'updated_at',
] as const;

export async function insertApp(db: Executor, row: AppRow): Promise<void> {
  await db.insertInto('apps').values(row).execute();
}

/** An app of the account, not deleted. */
export async function findOwnApp(
  db: Executor,
  accountId: string,
  id: string,
  lock = false,
): Promise<AppRow | undefined> {
  const query = db
    .selectFrom('apps')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .where('deleted_at', 'is', null);
  return lockedIf(db, query, lock).executeTakeFirst();
}

/** An app by its id (its client_id), in any account, not deleted nor suspended. */
export async function findAppById(db: Executor, id: string): Promise<AppRow | undefined> {
  return db
    .selectFrom('apps')
    .selectAll()
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .where('suspended_at', 'is', null)
    .executeTakeFirst();
}

/** An app by its id, not deleted, suspended or not, its row locked (the operator's commands). */
export async function findAppForOperator(db: Executor, id: string): Promise<AppRow | undefined> {
  const query = db.selectFrom('apps').selectAll().where('id', '=', id).where('deleted_at', 'is', null);
  return lockedIf(db, query, true).executeTakeFirst();
}

export async function countApps(db: Executor, accountId: string): Promise<number> {
  const row = await db
    .selectFrom('apps')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('account_id', '=', accountId)
    .where('deleted_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

export async function listApps(db: Executor, accountId: string, page: PageRequest<AppRow>): Promise<Listed<AppRow>> {
  return runList(
    listPlan(
      db,
      { table: 'apps', columns: APP_COLUMNS, scope: { account_id: accountId } },
      { keys: [], conditions: [{ column: 'deleted_at', expression: sql<SqlBool>`deleted_at is null` }] },
      page,
    ),
  );
}

export async function updateApp(db: Executor, id: string, changes: Partial<AppRow>): Promise<void> {
  await db.updateTable('apps').set(changes).where('id', '=', id).execute();
}

export async function insertInstallLink(db: Executor, row: AppInstallLinkRow): Promise<void> {
  await db.insertInto('app_install_links').values(row).execute();
}

export async function findInstallLinkByToken(db: Executor, tokenHash: string): Promise<AppInstallLinkRow | undefined> {
  return db.selectFrom('app_install_links').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
}

export async function findInstallLinkByConsent(
  db: Executor,
  consentHash: string,
): Promise<AppInstallLinkRow | undefined> {
  return db.selectFrom('app_install_links').selectAll().where('consent_hash', '=', consentHash).executeTakeFirst();
}

/** Marks a link opened, once: false when another request opened it first. */
export async function openInstallLink(
  db: Executor,
  id: string,
  openedAt: string,
  consentHash: string,
  consentExpiresAt: string,
): Promise<boolean> {
  const result = await db
    .updateTable('app_install_links')
    .set({ opened_at: openedAt, consent_hash: consentHash, consent_expires_at: consentExpiresAt })
    .where('id', '=', id)
    .where('opened_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Ends a link's consent (Approve or Deny): its cookie is worth nothing from then on. */
export async function endConsent(db: Executor, linkId: string, now: string): Promise<boolean> {
  const result = await db
    .updateTable('app_install_links')
    .set({ consent_expires_at: now })
    .where('id', '=', linkId)
    .where('consent_expires_at', '>', now)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function insertGrant(db: Executor, row: OauthGrantRow): Promise<void> {
  await db.insertInto('oauth_grants').values(row).execute();
}

export async function findGrant(db: Executor, id: string): Promise<OauthGrantRow | undefined> {
  return db.selectFrom('oauth_grants').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function findGrantByCode(
  db: Executor,
  codeHash: string,
  lock: boolean,
): Promise<OauthGrantRow | undefined> {
  const query = db.selectFrom('oauth_grants').selectAll().where('code_hash', '=', codeHash);
  return lockedIf(db, query, lock).executeTakeFirst();
}

export async function updateGrant(db: Executor, id: string, changes: Partial<OauthGrantRow>): Promise<void> {
  await db.updateTable('oauth_grants').set(changes).where('id', '=', id).execute();
}

export async function insertInstall(db: Executor, row: AppInstallRow): Promise<void> {
  await db.insertInto('app_installs').values(row).execute();
}

export async function findInstall(
  db: Executor,
  accountId: string,
  id: string,
  lock = false,
): Promise<AppInstallRow | undefined> {
  const query = db.selectFrom('app_installs').selectAll().where('account_id', '=', accountId).where('id', '=', id);
  return lockedIf(db, query, lock).executeTakeFirst();
}

export async function findInstallById(db: Executor, id: string, lock = false): Promise<AppInstallRow | undefined> {
  const query = db.selectFrom('app_installs').selectAll().where('id', '=', id);
  return lockedIf(db, query, lock).executeTakeFirst();
}

export async function findActiveInstall(
  db: Executor,
  accountId: string,
  appId: string,
  lock = false,
): Promise<AppInstallRow | undefined> {
  const query = db
    .selectFrom('app_installs')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('app_id', '=', appId)
    .where('status', '=', 'active');
  return lockedIf(db, query, lock).executeTakeFirst();
}

/** The active installs of an app, in every account (its deletion uninstalls them). */
export async function findActiveInstallsOfApp(db: Executor, appId: string): Promise<AppInstallRow[]> {
  return db.selectFrom('app_installs').selectAll().where('app_id', '=', appId).where('status', '=', 'active').execute();
}

export async function countActiveInstalls(db: Executor, accountId: string): Promise<number> {
  const row = await db
    .selectFrom('app_installs')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('account_id', '=', accountId)
    .where('status', '=', 'active')
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

const INSTALL_COLUMNS = [
  'id',
  'account_id',
  'app_id',
  'scopes',
  'status',
  'family_id',
  'rate_limit_per_minute',
  'rate_limit_per_day',
  'rate_limit_burst',
  'installed_by_type',
  'installed_by_id',
  'installed_at',
  'last_used_at',
  'uninstalled_at',
  'uninstalled_reason',
  'created_at',
  'updated_at',
] as const;

export async function listInstalls(
  db: Executor,
  accountId: string,
  filters: { status?: string | undefined; app_id?: string | undefined },
  page: PageRequest<AppInstallRow>,
): Promise<Listed<AppInstallRow>> {
  const among = filters.status === undefined ? undefined : { column: 'status', values: [filters.status] };
  return runList(
    listPlan(
      db,
      { table: 'app_installs', columns: INSTALL_COLUMNS, scope: { account_id: accountId } },
      { keys: keysOf({ app_id: filters.app_id }), among, conditions: [] },
      page,
    ),
  );
}

export async function updateInstall(db: Executor, id: string, changes: Partial<AppInstallRow>): Promise<void> {
  await db.updateTable('app_installs').set(changes).where('id', '=', id).execute();
}

export async function insertToken(db: Executor, row: OauthTokenRow): Promise<void> {
  await db.insertInto('oauth_tokens').values(row).execute();
}

export async function findTokenByHash(
  db: Executor,
  tokenHash: string,
  lock = false,
): Promise<OauthTokenRow | undefined> {
  const query = db.selectFrom('oauth_tokens').selectAll().where('token_hash', '=', tokenHash);
  return lockedIf(db, query, lock).executeTakeFirst();
}

export async function findTokenById(db: Executor, id: string): Promise<OauthTokenRow | undefined> {
  return db.selectFrom('oauth_tokens').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The refresh token that replaced `parentId`, and the access token issued with it. */
export async function findChildren(db: Executor, parentId: string): Promise<OauthTokenRow[]> {
  return db.selectFrom('oauth_tokens').selectAll().where('parent_id', '=', parentId).execute();
}

export async function revokeTokens(db: Executor, ids: readonly string[], now: string): Promise<void> {
  if (ids.length === 0) return;
  await db
    .updateTable('oauth_tokens')
    .set({ revoked_at: now })
    .where('id', 'in', ids)
    .where('revoked_at', 'is', null)
    .execute();
}

/** Every live token of an install (its uninstall, or a new consent's new family). */
export async function revokeInstallTokens(db: Executor, installId: string, now: string): Promise<void> {
  await db
    .updateTable('oauth_tokens')
    .set({ revoked_at: now })
    .where('install_id', '=', installId)
    .where('revoked_at', 'is', null)
    .execute();
}

export async function supersedeToken(db: Executor, id: string, now: string): Promise<void> {
  await db.updateTable('oauth_tokens').set({ superseded_at: now }).where('id', '=', id).execute();
}

export async function findPublisherName(db: Executor, accountId: string): Promise<string> {
  const row = await db.selectFrom('accounts').select('name').where('id', '=', accountId).executeTakeFirst();
  return row?.name ?? '';
}

export async function findInstallLink(db: Executor, id: string): Promise<AppInstallLinkRow | undefined> {
  return db.selectFrom('app_install_links').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The app's logo, its image and type (the consent page serves it). */
export async function findAppLogo(db: Executor, appId: string): Promise<AppLogosTable | undefined> {
  return db.selectFrom('app_logos').selectAll().where('app_id', '=', appId).executeTakeFirst();
}

export async function replaceAppLogo(db: Executor, row: AppLogosTable): Promise<void> {
  await db.deleteFrom('app_logos').where('app_id', '=', row.app_id).execute();
  await db.insertInto('app_logos').values(row).execute();
}

export async function deleteAppLogo(db: Executor, appId: string): Promise<void> {
  await db.deleteFrom('app_logos').where('app_id', '=', appId).execute();
}
