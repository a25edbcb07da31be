// The copy of each object's created_at that its custom field value rows and tag links carry (object_created_at:
// the filters walk a field's or a tag's entries in the lists' default order by it; docs/architecture.md, "Kept
// copies"). It is never updated, so it is right only if every writer writes it from the object: checked against
// the objects' own rows, by kind, after a test's writes.
import { sql } from 'kysely';
import type { Db } from '../../src/db/database.js';
import { KIND_TABLES } from '../../src/modules/custom-fields/custom-fields.repository.js';

/**
 * Per kind, how many value rows and links of live objects were compared, and how many carry another instant than
 * their object's created_at (or none).
 */
export async function filterEntriesAgainstObjects(
  db: Db,
): Promise<Record<string, { values: number; links: number; wrong: number }>> {
  const found: Record<string, { values: number; links: number; wrong: number }> = {};
  for (const [resource, table] of Object.entries(KIND_TABLES)) {
    const values = await sql<{ compared: number | string; wrong: number | string }>`
      select count(*) as compared,
        count(*) filter (where v.object_created_at is null or v.object_created_at <> o.created_at) as wrong
      from custom_field_values v join custom_fields f on f.id = v.field_id
        join ${sql.table(table)} o on o.account_id = v.account_id and o.id = v.object_id
      where f.resource = ${resource}`.execute(db);
    const links = await sql<{ compared: number | string; wrong: number | string }>`
      select count(*) as compared,
        count(*) filter (where l.object_created_at is null or l.object_created_at <> o.created_at) as wrong
      from tag_links l join ${sql.table(table)} o on o.account_id = l.account_id and o.id = l.object_id
      where l.resource = ${resource}`.execute(db);
    found[resource] = {
      values: Number(values.rows[0]!.compared),
      links: Number(links.rows[0]!.compared),
      wrong: Number(values.rows[0]!.wrong) + Number(links.rows[0]!.wrong),
    };
  }
  return found;
}
