// docs/api-contract.md §27: "a rename, delete or count costs one row". An object's tags were kept twice, as names
// in its own row (`tags`, JSON) and as `tag_links` rows, so a rename or a delete rewrote every tagged object's row.
// Now the links alone hold them, by the tag's id, with each link's place in the object's list (`position`, taken
// from the names' order), and an object's row is read with its tags' names (modules/tags `tagNamesColumn`, on
// tag_links_object_idx, now (account, object, position)). The six tables lose their `tags` column.
// biome-ignore-all lint/suspicious/noExplicitAny: a migration runs against a past schema, so Kysely hands it an untyped instance
import { sql, type Kysely } from 'kysely';
import { dialectOf } from '../database.js';

/** The six kinds that carry tags, by kind and table. */
const TAGGED = [
  ['client', 'clients'],
  ['property', 'properties'],
  ['quote', 'quotes'],
  ['job', 'jobs'],
  ['invoice', 'invoices'],
  ['visit', 'visits'],
] as const;

// `any`: migrations run against past schemas, so they use an untyped Kysely.
export async function up(db: Kysely<any>): Promise<void> {
  const postgres = dialectOf(db) === 'postgres';
  await db.schema
    .alterTable('tag_links')
    .addColumn('position', 'integer', (column) => column.notNull().defaultTo(0))
    .execute();
  // Each link's place: where its tag's name stands in the object's JSON list (the first spelling, kept by the
  // one writer; its lower case matches too).
  for (const [kind, table] of TAGGED) {
    if (postgres)
      await sql`update tag_links l set position = (j.ordinality - 1)::integer
        from ${sql.table(table)} o
        cross join lateral jsonb_array_elements_text(o.tags) with ordinality as j(name, ordinality), tags t
        where l.resource = ${kind} and o.id = l.object_id and o.account_id = l.account_id and t.id = l.tag_id
          and (j.name = t.name or lower(j.name) = t.name_key)`.execute(db);
    else
      await sql`update tag_links set position = coalesce((
          select cast(j.key as integer) from ${sql.table(table)} o, json_each(o.tags) j, tags t
          where o.id = tag_links.object_id and o.account_id = tag_links.account_id and t.id = tag_links.tag_id
            and (j.value = t.name or lower(j.value) = t.name_key)
          limit 1), 0)
        where resource = ${kind}`.execute(db);
  }
  // An object's links in their order: what its row is read with, its writes and its delete.
  await db.schema.dropIndex('tag_links_object_idx').execute();
  await db.schema
    .createIndex('tag_links_object_idx')
    .on('tag_links')
    .columns(['account_id', 'object_id', 'position'])
    .execute();
  for (const [, table] of TAGGED) await db.schema.alterTable(table).dropColumn('tags').execute();
}

// `any`: see above.
export async function down(db: Kysely<any>): Promise<void> {
  const postgres = dialectOf(db) === 'postgres';
  const empty = postgres ? sql`'[]'::jsonb` : sql`'[]'`;
  for (const [kind, table] of TAGGED) {
    await db.schema
      .alterTable(table)
      .addColumn('tags', postgres ? 'jsonb' : 'text', (column) => column.notNull().defaultTo(empty))
      .execute();
    const names = postgres
      ? sql`(select jsonb_agg(t.name order by l.position) from tag_links l join tags t on t.id = l.tag_id
          where l.account_id = o.account_id and l.object_id = o.id)`
      : sql`(select json_group_array(t.name order by l.position) from tag_links l join tags t on t.id = l.tag_id
          where l.account_id = o.account_id and l.object_id = o.id)`;
    await sql`update ${sql.table(table)} as o set tags = ${names}
      where o.id in (select object_id from tag_links where resource = ${kind})`.execute(db);
  }
  await db.schema.dropIndex('tag_links_object_idx').execute();
  await db.schema.createIndex('tag_links_object_idx').on('tag_links').columns(['account_id', 'object_id']).execute();
  await db.schema.alterTable('tag_links').dropColumn('position').execute();
}
