// Access for integrators and AI agents (docs/api-contract.md §20): keys made, rolled and limited through the
// API, an actor on every event (filterable from an index), and the MCP server's record of calls (confirmation
// tokens and answers replayed to a retried call).
// biome-ignore-all lint/suspicious/noExplicitAny: a migration runs against a past schema, so Kysely hands it an untyped instance
import { sql, type Kysely } from 'kysely';
import { dialectOf } from '../database.js';
import { columnTypes } from './column-types.js';

// `any`: migrations run against past schemas, so they use an untyped Kysely.
export async function up(db: Kysely<any>): Promise<void> {
  const types = columnTypes(db);
  const postgres = dialectOf(db) === 'postgres';

  // Keys: the previous secret of a roll (its hash, until its overlap ends), the allowed networks, and who
  // made the key. Every key before this migration was made by the `bms` command (or its first-run key).
  await db.schema.alterTable('api_keys').addColumn('previous_key_hash', 'text').execute();
  await db.schema.alterTable('api_keys').addColumn('previous_key_expires_at', types.timestamp).execute();
  await db.schema
    .alterTable('api_keys')
    .addColumn('allowed_cidrs', types.json, (column) => column.notNull().defaultTo('[]'))
    .execute();
  await db.schema
    .alterTable('api_keys')
    .addColumn('created_by_type', 'text', (column) => column.notNull().defaultTo('cli'))
    .execute();
  await db.schema.alterTable('api_keys').addColumn('created_by_id', 'text').execute();
  await db.schema.createIndex('api_keys_previous_hash_idx').on('api_keys').column('previous_key_hash').execute();
  // The keyset list of keys: (account_id, created_at, id).
  await db.schema.dropIndex('api_keys_account_idx').execute();
  await db.schema
    .createIndex('api_keys_account_created_idx')
    .on('api_keys')
    .columns(['account_id', 'created_at', 'id'])
    .execute();

  // Events: who caused each. Events recorded before this migration are answered with the actor that made
  // them as far as the row tells: the hub's answers (data.source "hub") `hub`, deliveries and disabled
  // endpoints `system`, everything else an API key whose id was not recorded.
  await db.schema.alterTable('events').addColumn('actor_type', 'text').execute();
  await db.schema.alterTable('events').addColumn('actor_id', 'text').execute();
  const source = postgres ? sql`data->>'source'` : sql`json_extract(data, '$.source')`;
  await db
    .updateTable('events')
    .set({ actor_type: 'system' })
    .where((eb) => eb.or([eb('type', 'like', 'delivery.%'), eb('type', '=', 'webhook_endpoint.disabled')]))
    .execute();
  await db
    .updateTable('events')
    .set({ actor_type: 'hub' })
    .where('actor_type', 'is', null)
    .where(sql<boolean>`${source} = 'hub'`)
    .execute();
  await db.updateTable('events').set({ actor_type: 'api_key' }).where('actor_type', 'is', null).execute();
  await db.schema
    .createIndex('events_account_actor_type_idx')
    .on('events')
    .columns(['account_id', 'actor_type', 'created_at', 'id'])
    .execute();
  await db.schema
    .createIndex('events_account_actor_id_idx')
    .on('events')
    .columns(['account_id', 'actor_id', 'created_at', 'id'])
    .execute();

  // MCP calls that act: `call_hash` is the confirmation token's hash for sends and money, or the hash of
  // (key, tool, arguments) for the other writes; `result` is what a retried call is answered again.
  await db.schema
    .createTable('mcp_calls')
    .addColumn('id', types.id, (column) => column.primaryKey())
    .addColumn('account_id', types.id, (column) => column.notNull().references('accounts.id'))
    .addColumn('key_id', types.id, (column) => column.notNull())
    .addColumn('tool', 'text', (column) => column.notNull())
    .addColumn('arguments_hash', 'text', (column) => column.notNull())
    .addColumn('call_hash', 'text', (column) => column.notNull().unique())
    .addColumn('result', types.json)
    .addColumn('expires_at', types.timestamp, (column) => column.notNull())
    .addColumn('completed_at', types.timestamp)
    .addColumn('created_at', types.timestamp, (column) => column.notNull())
    .execute();
  await db.schema.createIndex('mcp_calls_expires_idx').on('mcp_calls').columns(['expires_at', 'id']).execute();
}

// `any`: see above.
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('mcp_calls').execute();
  await db.schema.dropIndex('events_account_actor_id_idx').execute();
  await db.schema.dropIndex('events_account_actor_type_idx').execute();
  await db.schema.alterTable('events').dropColumn('actor_id').execute();
  await db.schema.alterTable('events').dropColumn('actor_type').execute();
  await db.schema.dropIndex('api_keys_account_created_idx').execute();
  await db.schema.createIndex('api_keys_account_idx').on('api_keys').columns(['account_id', 'created_at']).execute();
  await db.schema.dropIndex('api_keys_previous_hash_idx').execute();
  for (const column of [
    'created_by_id',
    'created_by_type',
    'allowed_cidrs',
    'previous_key_expires_at',
    'previous_key_hash',
  ])
    await db.schema.alterTable('api_keys').dropColumn(column).execute();
}
