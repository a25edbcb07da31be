// The MCP server's record of calls (docs/api-contract.md §20, §32): the version of each object a call read or
// wrote (or that a confirmation's summary describes), so an answer is replayed and a token honoured only while
// those objects are unchanged, and when a token was voided by such a change.
// biome-ignore-all lint/suspicious/noExplicitAny: a migration runs against a past schema, so Kysely hands it an untyped instance
import type { Kysely } from 'kysely';
import { columnTypes } from './column-types.js';

// `any`: migrations run against past schemas, so they use an untyped Kysely.
export async function up(db: Kysely<any>): Promise<void> {
  const types = columnTypes(db);
  // `[{kind, id, etag}]`; null on rows made before it (never replayed: they act anew).
  await db.schema.alterTable('mcp_calls').addColumn('versions', types.json).execute();
  await db.schema.alterTable('mcp_calls').addColumn('voided_at', types.timestamp).execute();
}

// `any`: see above.
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('mcp_calls').dropColumn('voided_at').execute();
  await db.schema.alterTable('mcp_calls').dropColumn('versions').execute();
}
