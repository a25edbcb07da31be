// The custom field filters of a kind's list (docs/api-contract.md §27): `custom_fields.<key>=v` (comma: any of;
// text whole-value and case-insensitive; a multi_select holding any), `custom_fields.<key>.gte=` / `.lte=` (number,
// money, date; inclusive), at most 3. Each is a list condition (db/list-plan.ts) answered from the value rows'
// index (account_id, field_id, value, object_id): its range of object ids when it is small; else, sorted by
// created_at, the field's entries walked in that order (account_id, field_id, object_created_at, object_id,
// values); else checked on each row of the sort's walk by that index, or for a range by the object's own entries
// (account_id, object_id, field_id, values). Never a read of the objects' JSON.
import { type Expression, sql, type SqlBool } from 'kysely';
import { type ErrorDetail, validationError } from '../../core/errors.js';
import {
  type Condition,
  conditionsOf,
  type Executor,
  fenced,
  type ShapedCondition,
  unestimated,
  unindexed,
  unseen,
  WALK_LIMIT,
} from '../../db/index.js';
import { valueColumn } from './custom-fields.repository.js';
import type { CustomFieldResource } from './custom-fields.schemas.js';
import { type Definition, type Definitions, readDefinitions } from './definitions.js';
import { INDEXED_TEXT, isDate } from './values.js';

/** The most custom field filters a list takes (docs/api-contract.md §32). */
const MAX_FILTERS = 3;
const PARAMETER = /^custom_fields\.([a-z][a-z0-9_]*)(?:\.(gte|lte))?$/;
const NUMBER = /^-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?$/;
const INTEGER = /^-?\d{1,18}$/;

/** The query parameters that are custom field filters: what a list's schema lets through by pattern. */
export const CUSTOM_FIELD_FILTER_PATTERN = '^custom_fields\\.[a-z][a-z0-9_]*(\\.(gte|lte))?$';

/**
 * The options a kind's list query schema spreads in: its custom field filters, matched by pattern (the OpenAPI
 * document cannot name the keys an account defines).
 */
export const customFieldFilterOptions = {
  patternProperties: {
    [CUSTOM_FIELD_FILTER_PATTERN]: {
      type: 'string',
      minLength: 1,
      maxLength: 2000,
      description:
        'Custom field filters, named by your fields’ keys (so not listed as parameters): `custom_fields.<key>=v` (comma: any of; text whole-value and case-insensitive; a multi_select holding any), `custom_fields.<key>.gte=` / `.lte=` (number, money, date; inclusive); at most 3 a request.',
    },
  },
};

/** A filter's value as its value rows hold it, or a problem. */
function valueOf(field: Definition, text: string): { value: string | number } | { problem: string } {
  switch (field.type) {
    case 'text':
      return [...text].length < INDEXED_TEXT
        ? { value: text.toLowerCase() }
        : { problem: `must be shorter than ${INDEXED_TEXT} characters` };
    case 'number':
      return NUMBER.test(text) && Number.isFinite(Number(text))
        ? { value: Number(text) }
        : { problem: 'must be a number' };
    case 'money':
      return INTEGER.test(text) ? { value: Number(text) } : { problem: 'must be an integer amount in minor units' };
    case 'date':
      return isDate(text) ? { value: text } : { problem: 'must be a date, YYYY-MM-DD' };
    case 'boolean':
      return text === 'true' || text === 'false' ? { value: text } : { problem: 'must be true or false' };
    default:
      return field.options.some((option) => option.value === text)
        ? { value: text }
        : { problem: `'${text}' is not an option of ${field.key}` };
  }
}

interface Asked {
  field: Definition;
  equals?: Array<string | number>;
  gte?: string | number;
  lte?: string | number;
}

/**
 * The list conditions of the query's custom field filters on `table`'s rows, or a 422 naming each wrong one.
 * Empty when the query has none.
 */
export async function customFieldConditions(
  db: Executor,
  accountId: string,
  resource: CustomFieldResource,
  table: string,
  query: Record<string, unknown>,
): Promise<Condition[]> {
  return conditionsOf(db, await customFieldShapes(db, accountId, resource, table, query));
}

/**
 * The query's custom field filters as conditions made from their values (db/list-shapes.ts compiles a list's
 * queries once per shape with them), or a 422 naming each wrong one. Empty when the query has none. `read`: the
 * kind's definitions when the caller has read them already.
 */
export async function customFieldShapes(
  db: Executor,
  accountId: string,
  resource: CustomFieldResource,
  table: string,
  query: Record<string, unknown>,
  read?: Definitions,
): Promise<ShapedCondition[]> {
  const names = Object.keys(query).filter((name) => name.startsWith('custom_fields.'));
  if (names.length === 0) return [];
  const definitions = read ?? (await readDefinitions(db, accountId, resource));
  const problems: ErrorDetail[] = [];
  if (names.length > MAX_FILTERS)
    for (const name of names.slice(MAX_FILTERS))
      problems.push({
        field: name,
        message: `is one filter too many: a list takes at most ${MAX_FILTERS} custom field filters`,
      });
  const asked = new Map<string, Asked>();
  for (const name of names.slice(0, MAX_FILTERS)) {
    const match = PARAMETER.exec(name);
    const field = match ? definitions.byKey.get(match[1]!) : undefined;
    if (!match || field === undefined) {
      problems.push({ field: name, message: `is not a custom field of ${resource.replace('_', ' ')}s` });
      continue;
    }
    const bound = match[2] as 'gte' | 'lte' | undefined;
    if (bound && !['number', 'money', 'date'].includes(field.type)) {
      problems.push({ field: name, message: `is a range, which only number, money and date fields take` });
      continue;
    }
    const texts = bound ? [String(query[name])] : String(query[name]).split(',');
    const values: Array<string | number> = [];
    for (const text of texts) {
      const parsed = valueOf(field, text);
      if ('problem' in parsed) problems.push({ field: name, message: parsed.problem });
      else values.push(parsed.value);
    }
    const entry = asked.get(field.key) ?? { field };
    if (bound) entry[bound] = values[0];
    else entry.equals = values;
    asked.set(field.key, entry);
  }
  if (problems.length > 0) throw validationError(problems);
  return [...asked.values()].map((one) => shapedOf(accountId, table, one));
}

/**
 * A filter as a condition made from its values: the account's id, the field's id, then the values asked, the
 * lower bound and the upper bound, each when set. What else decides the SQL (the value column, how many values,
 * which bounds) is its key.
 */
function shapedOf(accountId: string, table: string, asked: Asked): ShapedCondition {
  const column = valueColumn(asked.field.type);
  const equals = asked.equals && [...new Set(asked.equals)];
  const count = equals?.length;
  const hasGte = asked.gte !== undefined;
  const hasLte = asked.lte !== undefined;
  const bounds = [...(hasGte ? [asked.gte] : []), ...(hasLte ? [asked.lte] : [])];
  return {
    key: `custom_fields ${table} ${column} ${count ?? '-'} ${hasGte} ${hasLte}`,
    values: [accountId, asked.field.id, ...(equals ?? []), ...bounds],
    make: (db, [account, fieldId, ...rest]) => {
      const after = rest.slice(count ?? 0);
      return conditionOf(db, String(account), String(fieldId), table, column, {
        equals: count === undefined ? undefined : (rest.slice(0, count) as Array<string | number>),
        gte: hasGte ? (after.shift() as string | number) : undefined,
        lte: hasLte ? (after.shift() as string | number) : undefined,
      });
    },
  };
}

/** PostgreSQL's type of each value column. */
const POSTGRES_TYPES: Record<string, string> = {
  text_value: 'text',
  number_value: 'double precision',
  amount_value: 'bigint',
};

/** A range's bound, unseen by PostgreSQL's planner (db/list-plan.ts). */
const opaque = (db: Executor, column: string, given: string | number) => unseen(db, given, POSTGRES_TYPES[column]!);

function conditionOf(
  db: Executor,
  accountId: string,
  fieldId: string,
  table: string,
  column: string,
  asked: Omit<Asked, 'field'>,
): Condition {
  const value = sql.ref(column);
  const field = sql<SqlBool>`account_id = ${accountId} and field_id = ${fieldId}`;
  const tests: Array<Expression<SqlBool>> = [];
  if (asked.equals) tests.push(sql<SqlBool>`${value} in (${sql.join(asked.equals)})`);
  if (asked.gte !== undefined) tests.push(sql<SqlBool>`${value} >= ${opaque(db, column, asked.gte)}`);
  if (asked.lte !== undefined) tests.push(sql<SqlBool>`${value} <= ${opaque(db, column, asked.lte)}`);
  if (asked.equals === undefined) tests.push(sql<SqlBool>`${value} is not null`);
  const test = sql<SqlBool>`${sql.join(tests, sql` and `)}`;
  const matches = sql<SqlBool>`${field} and ${test}`;
  const rangeOf = (where: typeof matches) =>
    db
      .selectFrom('custom_field_values')
      .select([sql.ref<string>('object_id').as('range_id'), sql.ref<string>('object_created_at').as('range_at')])
      .where(where)
      .orderBy(sql.ref(column))
      .orderBy(sql.ref('object_id'))
      .limit(sql.lit(WALK_LIMIT + 1));
  // Any of several values: one range of the index per value, each cut at WALK_LIMIT + 1, then together. PostgreSQL
  // 15 cannot read `value in (…)` in the index's order, so one range over them all sorted every matching row
  // (60–100 ms for two values each held by a fifth of a million clients). Counting needs no order: the ranges
  // together hold at most WALK_LIMIT entries only when each was read whole (the values are distinct).
  const values = asked.equals && asked.equals.length > 1 ? asked.equals : [];
  const range =
    values.length > 1
      ? db
          .selectFrom(
            values
              .map((one, index) =>
                db
                  .selectFrom(
                    rangeOf(sql<SqlBool>`account_id = ${accountId} and field_id = ${fieldId} and ${value} = ${one}`).as(
                      `value${index}`,
                    ),
                  )
                  .selectAll(),
              )
              .reduce((union, branch) => union.unionAll(branch))
              .as('values'),
          )
          .selectAll()
          .limit(sql.lit(WALK_LIMIT + 1))
      : rangeOf(matches);
  // One row's check: values asked, a probe of (account_id, field_id, value, object_id); a range, of (account_id,
  // object_id, field_id), which holds the value too, so the check reads no table row (the range's test unindexed:
  // the value's index would read the whole range per row). Fenced, so that PostgreSQL keeps it a probe per row
  // rather than hashing every value row of the field first.
  const check = (id: Expression<string>) =>
    sql<SqlBool>`exists ${fenced(
      db,
      db
        .selectFrom('custom_field_values')
        .select(sql.lit(1).as('one'))
        .where(asked.equals ? matches : sql<SqlBool>`${field} and ${unindexed(test)}`)
        .where(sql<SqlBool>`object_id = ${id}`),
    )}`;
  // In the lists' default order: the field's entries by (account_id, field_id, object_created_at, object_id), which
  // holds the values too, so each entry's test reads no table row (unestimated: unindexed, or the value's index
  // would be read whole and sorted instead; and priced alike in PostgreSQL's generic and custom plans).
  const sorted = { branches: [db.selectFrom('custom_field_values as entry').where(field)], test: unestimated(test) };
  return {
    column: `custom_fields.${fieldId}`,
    expression: check(sql.ref(`${table}.id`)),
    check,
    range,
    rangeAt: true,
    sorted,
  };
}
