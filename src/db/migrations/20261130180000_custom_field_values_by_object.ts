// The value rows' second index (docs/api-contract.md §27) led by the object instead of the field: (account_id,
// object_id, field_id) and the three value columns. A create with ten custom fields wrote its ten entries of
// (account_id, field_id, object_id) at the end of ten fields' ranges, ten pages of that index dirtied and logged
// per commit; led by the object (UUIDv7), the ten sit together on the index's last page. What used it still finds
// one object's rows by equality (a write replacing an object's values, an object's delete, the purge's delete), and
// a range filter's check of one row is now covered: the value is in the index, so the probe reads no table row.
// The purge's search for the objects holding a deleted field reads the value's own index instead
// (custom-fields.repository.ts `objectsHoldingField`).
// biome-ignore-all lint/suspicious/noExplicitAny: a migration runs against a past schema, so Kysely hands it an untyped instance
import type { Kysely } from 'kysely';

// `any`: migrations run against past schemas, so they use an untyped Kysely.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('custom_field_values_object_idx')
    .on('custom_field_values')
    .columns(['account_id', 'object_id', 'field_id', 'number_value', 'amount_value', 'text_value'])
    .execute();
  await db.schema.dropIndex('custom_field_values_field_idx').execute();
}

// `any`: see above.
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('custom_field_values_field_idx')
    .on('custom_field_values')
    .columns(['account_id', 'field_id', 'object_id'])
    .execute();
  await db.schema.dropIndex('custom_field_values_object_idx').execute();
}
