// Custom field queries: definitions and their typed value rows, every one scoped by account.
import { sql } from 'kysely';
import {
  type Condition,
  type Executor,
  keysOf,
  type Listed,
  listPlan,
  lockedIf,
  type PageRequest,
  prepared,
  preparedInsertRows,
  runList,
  type SortFields,
  timeBoundConditions,
  type TimeBounds,
  timestampSorts,
} from '../../db/index.js';
import type { CustomFieldRow, CustomFieldValueRow } from '../../db/types.js';

const COLUMNS = [
  'id',
  'account_id',
  'resource',
  'key',
  'label',
  'description',
  'type',
  'required',
  'options',
  'bounds',
  'printable',
  'position',
  'metadata',
  'deleted_at',
  'created_at',
  'updated_at',
] as const;

export const CUSTOM_FIELD_SORTS: SortFields<CustomFieldRow> = timestampSorts<CustomFieldRow>();

/** The value rows' column, and so the index, that holds a field's values by its type: one per row, never null. */
export function valueColumn(type: string): 'text_value' | 'number_value' | 'amount_value' {
  return type === 'number' ? 'number_value' : type === 'money' ? 'amount_value' : 'text_value';
}

/** The table of each kind whose objects carry custom fields. */
export const KIND_TABLES = {
  client: 'clients',
  property: 'properties',
  service_request: 'service_requests',
  quote: 'quotes',
  job: 'jobs',
  invoice: 'invoices',
  visit: 'visits',
  product: 'products',
  team_member: 'team_members',
} as const;

export async function insertCustomField(db: Executor, row: CustomFieldRow): Promise<void> {
  await db.insertInto('custom_fields').values(row).execute();
}

/** A live (not deleted) definition by id. */
export function findCustomField(db: Executor, accountId: string, id: string, lock = false) {
  const query = db
    .selectFrom('custom_fields')
    .select(COLUMNS)
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .where('deleted_at', 'is', null);
  return lockedIf(db, query, lock).executeTakeFirst();
}

/** Whether the key is taken in the resource, by a live field or one whose values are still being purged. */
export async function findCustomFieldByKey(db: Executor, accountId: string, resource: string, key: string) {
  return db
    .selectFrom('custom_fields')
    .select(['id', 'deleted_at'])
    .where('account_id', '=', accountId)
    .where('resource', '=', resource)
    .where('key', '=', key)
    .executeTakeFirst();
}

/**
 * The resource's live definitions, by position then age (custom_fields_key_idx: at most 50 live per kind); compiled
 * once, for every create and update of a kind with custom fields reads them.
 */
export const liveCustomFields: (db: Executor, accountId: string, resource: string) => Promise<CustomFieldRow[]> =
  prepared((db: Executor, accountId: string, resource: string) =>
    db
      .selectFrom('custom_fields')
      .select(COLUMNS)
      .where('account_id', '=', accountId)
      .where('resource', '=', resource)
      .where('deleted_at', 'is', null)
      .orderBy('position')
      .orderBy('created_at')
      .orderBy('id'),
  );

/** Compiled once: every create and update of a kind with custom fields, and every GET on PostgreSQL, reads it. */
const liveUnlessStamped = prepared((db: Executor, kept: string, accountId: string, resource: string) =>
  db
    .selectFrom('custom_field_stamps as s')
    .leftJoin('custom_fields as f', (join) =>
      join
        .onRef('f.account_id', '=', 's.account_id')
        .onRef('f.resource', '=', 's.resource')
        .on('f.deleted_at', 'is', null)
        .on('s.stamp', '<>', kept),
    )
    .select(['s.stamp as stamp', ...COLUMNS.map((column) => `f.${column}` as const)])
    .where('s.account_id', '=', accountId)
    .where('s.resource', '=', resource)
    .orderBy('f.position')
    .orderBy('f.created_at')
    .orderBy('f.id'),
);

/**
 * The kind's live definitions with their stamp (custom_field_stamps, kept by trigger), in one round trip; `rows`
 * undefined when the stamp is still `kept` (the definitions are those read with it). No stamp: none was ever
 * defined.
 */
export async function liveCustomFieldsUnlessStamped(
  db: Executor,
  accountId: string,
  resource: string,
  kept: string | undefined,
): Promise<{ stamp: string | undefined; rows: CustomFieldRow[] | undefined }> {
  const read = await liveUnlessStamped(db, kept ?? '', accountId, resource);
  const stamp = read[0]?.stamp;
  if (stamp !== undefined && stamp === kept) return { stamp, rows: undefined };
  const rows = read.filter((row) => row.id !== null) as unknown as CustomFieldRow[];
  for (const row of rows) delete (row as { stamp?: string }).stamp;
  return { stamp, rows };
}

export async function updateCustomField(
  db: Executor,
  accountId: string,
  id: string,
  patch: Partial<CustomFieldRow>,
): Promise<CustomFieldRow | undefined> {
  return db
    .updateTable('custom_fields')
    .set(patch)
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .returning(COLUMNS)
    .executeTakeFirst();
}

export async function listCustomFields(
  db: Executor,
  accountId: string,
  filters: TimeBounds & { resource?: string | undefined },
  page: PageRequest<CustomFieldRow>,
): Promise<Listed<CustomFieldRow>> {
  const conditions: Condition[] = timeBoundConditions(filters);
  conditions.push({ column: 'deleted_at', expression: sql`deleted_at is null` });
  if (filters.resource !== undefined)
    conditions.push({ column: 'resource', expression: sql`resource = ${filters.resource}` });
  return runList(
    listPlan(
      db,
      { table: 'custom_fields', columns: COLUMNS, scope: { account_id: accountId } },
      { keys: keysOf({}), conditions },
      page,
    ),
  );
}

/** Whether any object of the account holds this option of the field (custom_field_values_text_idx). */
export async function optionInUse(db: Executor, accountId: string, fieldId: string, value: string): Promise<boolean> {
  const row = await db
    .selectFrom('custom_field_values')
    .select('object_id')
    .where('account_id', '=', accountId)
    .where('field_id', '=', fieldId)
    .where('text_value', '=', value)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** One INSERT of a write's value rows, compiled once per row count. */
const insertValueRows = preparedInsertRows<'custom_field_values', CustomFieldValueRow>('custom_field_values', [
  'account_id',
  'field_id',
  'object_id',
  'text_value',
  'number_value',
  'amount_value',
  'object_created_at',
]);

/** Replaces an object's value rows of these fields with `rows` (a create's: one INSERT, no delete). */
export async function replaceValues(
  db: Executor,
  accountId: string,
  objectId: string,
  fieldIds: readonly string[],
  rows: readonly CustomFieldValueRow[],
): Promise<void> {
  if (fieldIds.length > 0)
    await db
      .deleteFrom('custom_field_values')
      .where('object_id', '=', objectId)
      .where('field_id', 'in', [...fieldIds])
      .where('account_id', '=', accountId)
      .execute();
  await insertValueRows(db, rows);
}

/** Every value row of an object of the kind (its delete), deleted fields' too (custom_field_values_object_idx). */
export async function deleteObjectValues(
  db: Executor,
  accountId: string,
  resource: string,
  objectId: string,
): Promise<void> {
  const fields = db
    .selectFrom('custom_fields')
    .select('id')
    .where('account_id', '=', accountId)
    .where('resource', '=', resource);
  await db
    .deleteFrom('custom_field_values')
    .where('account_id', '=', accountId)
    .where('field_id', 'in', fields)
    .where('object_id', '=', objectId)
    .execute();
}

/** The deleted definitions whose values are still to purge, oldest first (any account: the worker's). */
export function deletedCustomFields(db: Executor, limit: number) {
  return db
    .selectFrom('custom_fields')
    .select(['id', 'account_id', 'resource', 'key', 'type'])
    .where('deleted_at', 'is not', null)
    .orderBy('deleted_at')
    .limit(limit)
    .execute();
}

/**
 * Up to `limit` objects that still hold a value of the field, from its value column's index (account_id, field_id,
 * value, object_id), where every value row of the field is (each row sets exactly its type's column).
 */
export async function objectsHoldingField(
  db: Executor,
  accountId: string,
  fieldId: string,
  type: string,
  limit: number,
): Promise<string[]> {
  const rows = await db
    .selectFrom('custom_field_values')
    .select('object_id')
    .distinct()
    .where('account_id', '=', accountId)
    .where('field_id', '=', fieldId)
    .where(valueColumn(type), 'is not', null)
    .limit(limit)
    .execute();
  return rows.map((row) => row.object_id);
}

/** The custom_fields JSON of these objects of a kind's table. */
export async function objectsJson(
  db: Executor,
  table: (typeof KIND_TABLES)[keyof typeof KIND_TABLES],
  accountId: string,
  ids: readonly string[],
): Promise<Array<{ id: string; custom_fields: unknown }>> {
  const rows = await sql<{ id: string; custom_fields: unknown }>`select id, custom_fields from ${sql.table(table)}
    where account_id = ${accountId} and id in (${sql.join(ids.map((id) => sql`${id}`))})`.execute(db);
  return rows.rows;
}

/** Sets an object's custom_fields JSON, leaving its updated_at alone (a purge is not a change of the object). */
export async function setObjectJson(
  db: Executor,
  table: (typeof KIND_TABLES)[keyof typeof KIND_TABLES],
  accountId: string,
  id: string,
  json: string,
): Promise<void> {
  await sql`update ${sql.table(table)} set custom_fields = ${json} where account_id = ${accountId} and id = ${id}`.execute(
    db,
  );
}

export async function deleteFieldValues(
  db: Executor,
  accountId: string,
  fieldId: string,
  objectIds: readonly string[],
): Promise<void> {
  await db
    .deleteFrom('custom_field_values')
    .where('account_id', '=', accountId)
    .where('field_id', '=', fieldId)
    .where('object_id', 'in', [...objectIds])
    .execute();
}

export async function deleteCustomFieldRow(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('custom_fields').where('id', '=', id).execute();
}
