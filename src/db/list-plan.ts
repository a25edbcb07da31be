// How a filtered list is written so that one index must answer it, at a million rows as at a hundred
// (docs/api-contract.md §13). Left to statistics, both engines will walk the sort's index through the whole
// account testing each row, or read every matching row to sort them; the query's form rules both out.
//
// A filter that is not a range of the sort's index (due_before with the default sort, say) cannot be
// answered from one index in bounded time. Such a list first counts the filter's own range (at most
// WALK_LIMIT entries of its index): a small range is read whole and sorted. A larger one is found by
// walking the sort's index (or, for a filter whose entries carry the rows' created_at, those entries in that
// order: Condition.sorted), at most WALK_LIMIT entries per page; a page that reaches that bound before it is
// full ends there, short or even empty, with a cursor that resumes where it stopped (docs/decisions.md).
// biome-ignore-all lint/suspicious/noExplicitAny: the plans are built over derived tables that Kysely's types cannot name; each query's rows are typed by O
import {
  type AliasedExpression,
  type Compilable,
  type Expression,
  type SelectQueryBuilder,
  type SqlBool,
  sql,
} from 'kysely';
import { dialectOf, type Executor } from './database.js';
import { applyPage, beyond, sortKeyOf, type PageRequest, type SortKey } from './keyset.js';

/** The most index entries a list reads to find one page's rows when a filter is not a range of the sort's index. */
export const WALK_LIMIT = 500;

/** A filter condition, and the column it is on: a condition on a sort column is a range of its index. */
export interface Condition {
  column: string;
  expression: Expression<SqlBool>;
  /**
   * A filter answered by another table's index (a custom field's value rows): the ids of its matching rows,
   * `range_id`, in that index's order, at most WALK_LIMIT + 1 of them. Counted and read as a column's range is;
   * an id may come more than once (a multi_select holding two of the values asked), read once.
   */
  range?: SelectQueryBuilder<any, any, { range_id: string }> | undefined;
  /** The range also yields `range_at`, each object's created_at, from the same index. */
  rangeAt?: boolean | undefined;
  /**
   * The condition's own index in the lists' default order (a custom field's value rows and a tag's links carry
   * their object's created_at): each branch the entries of one field or tag (columns `object_created_at` and
   * `object_id`, not yet tested), and `test`, what an entry holds to match, read from the same index. A list
   * sorted by created_at walks these instead of the sort's index, so no row is probed for the condition.
   */
  sorted?: { branches: Array<SelectQueryBuilder<any, any, any>>; test?: Expression<SqlBool> | undefined } | undefined;
  /**
   * `expression` for the row whose id is `id`: so that a walk of another condition's entries (`sorted`, whose
   * table is named `entry`) checks this one on each entry's object id, before any row is read.
   */
  check?: ((id: Expression<string>) => Expression<SqlBool>) | undefined;
  /** A `compare` condition's parts (`column operator value`, the value of SQL type `type` on PostgreSQL). */
  compared?: { operator: '<' | '>='; value: string; type: 'timestamptz' | 'date' } | undefined;
}

export interface ListShape {
  /**
   * Equality filters on references (client_id, quote_id, …), each with an index (account_id, column, …):
   * one value names few rows, so that index drives and its rows are then sorted.
   */
  keys: Array<{ column: string; value: string }>;
  /**
   * A filter on a column of few values (status, method, type): one range of the index (account_id,
   * column, sort, id) per value, each already in sort order, merged. Undefined: no such filter.
   */
  among?: { column: string; values: readonly string[] } | undefined;
  /** Every other condition, checked on the rows the driving index yields. */
  conditions: Condition[];
}

/** `column operator value`: a value that is not null, so a range of the index on the plain column. */
export function compare(
  column: string,
  operator: '<' | '>=',
  value: string,
  type: 'timestamptz' | 'date' = 'timestamptz',
): Condition {
  return { column, expression: comparison(column, operator, value), compared: { operator, value, type } };
}

function comparison(column: string, operator: '<' | '>=', value: unknown) {
  return sql<SqlBool>`${sql.ref(column)} ${sql.raw(operator)} ${value}`;
}

/**
 * `compare`'s condition with its value unseen by PostgreSQL's planner (`unseen`), for a walked page's one statement:
 * a time bound priced from its value made the custom plans cheaper than the generic one (an invoice list's
 * `updated_after`: 211 against 338), so that statement was planned afresh on every page (1.6 ms).
 */
function unseenCompared(db: Executor, condition: Condition): Condition {
  const { compared } = condition;
  if (!compared) return condition;
  const value = unseen(db, compared.value, compared.type);
  return { ...condition, expression: comparison(condition.column, compared.operator, value) };
}

/** A condition no index may serve, so the planner cannot prefer it to the driving one. */
export function unindexed(condition: Expression<SqlBool>): Expression<SqlBool> {
  return sql<SqlBool>`(${condition}) is true`;
}

/**
 * A condition no index may serve (as `unindexed`) and whose selectivity the planner does not take from its
 * values (COALESCE's is a fixed default): so that PostgreSQL's generic plan of a prepared statement is priced as
 * its custom plans are, and kept (planned once per connection) instead of the statement being planned again on
 * every run. A custom field's value tested in a walk otherwise priced the generic plan of a walked page at 15,264
 * against 2,013 (its text value's frequency unknown), and each page paid ~2 ms of planning (docs/decisions.md).
 */
export function unestimated(condition: Expression<SqlBool>): Expression<SqlBool> {
  return sql<SqlBool>`coalesce(${condition}, false)`;
}

/**
 * A value a range of an index is bounded by, on PostgreSQL an InitPlan's (`(select $n::type)`, `type` its SQL
 * type), which the planner cannot see: still a range of the index, but priced alike in the custom and generic plans
 * of a prepared list, so that the generic one is kept (as `unestimated`). A custom field's `.lte` otherwise priced the
 * generic plan of its page at 2,435 against 1,237, and each page was planned afresh.
 */
export function unseen(db: Executor, value: unknown, type: string): Expression<unknown> {
  return dialectOf(db) === 'postgres' ? sql`(select ${value}::${sql.raw(type)})` : sql`${value}`;
}

/** Equality conditions from the filters that are set. */
export function keysOf(filters: Record<string, string | undefined>): ListShape['keys'] {
  return Object.entries(filters).flatMap(([column, value]) => (value === undefined ? [] : [{ column, value }]));
}

/**
 * A subquery both engines keep apart (neither flattens a subquery with OFFSET): its rows come from its
 * own index, and the sort happens outside it. SQLite needs a LIMIT to take an OFFSET; -1 is none.
 */
export function fenced<DB, TB extends keyof DB, O>(
  db: Executor,
  query: SelectQueryBuilder<DB, TB, O>,
): SelectQueryBuilder<DB, TB, O> {
  return dialectOf(db) === 'postgres' ? query.offset(sql.lit(0)) : query.limit(sql.lit(-1)).offset(sql.lit(0));
}

/** What a list read: its rows and, when it stopped at WALK_LIMIT before the page was full, where. */
export interface Listed<Row> {
  rows: Row[];
  resumeAfter?: SortKey | undefined;
}

/**
 * Every query a list may run, unexecuted (the query-plan test explains each): `query` alone when every
 * condition is a range of the index that drives it; else also, per filtered column with an index, the
 * count of its range and the list read from it, and the walk's bound and the list within it.
 */
export interface ListPlan<O> {
  query: SelectQueryBuilder<any, any, O>;
  ranges: Array<{
    column: string;
    count: SelectQueryBuilder<any, any, { count: number | string | bigint }>;
    list: SelectQueryBuilder<any, any, O>;
  }>;
  walk?:
    | { bound: SelectQueryBuilder<any, any, SortKey>; list(bound: SortKey): SelectQueryBuilder<any, any, O> }
    | undefined;
  /**
   * PostgreSQL, a walk: the whole page in one statement (a round trip each was most of a filtered page's time).
   * First what decides it: the ranges' counts and the walk's bound (WALK_LIMIT entries of the sort's index, read
   * only when every range is larger than WALK_LIMIT: a one-time filter on the counts). Then, of the lists, only the
   * one those choose (a small range read whole; else the walk within the bound; else, no bound, the walk to the
   * end), each behind a one-time filter on them, so the others are never run. Each row carries what decided it
   * (`walk_count0`, …, `walk_value`, `walk_id`), and a page with no row is one row of those alone: see `wholePage`.
   */
  whole?: (Compilable<Record<string, unknown>> & { execute(): Promise<Array<Record<string, unknown>>> }) | undefined;
}

/** The columns a `whole` statement adds to each row: what decided the page. */
const decidedColumns = (ranges: number) => [
  ...Array.from({ length: ranges }, (_, index) => `walk_count${index}`),
  'walk_value',
  'walk_id',
];

/**
 * The page a plan's `whole` statement answered, with `ranges` ranges: its rows without the columns that decided it,
 * and where it stopped when it walked to the bound (as runSteps).
 */
export function wholePage<O>(answer: ReadonlyArray<Record<string, unknown>>, ranges: number): Listed<O> {
  const decided = answer[0] ?? {};
  const columns = decidedColumns(ranges);
  const rows = answer
    .filter((row) => row.id !== null && row.id !== undefined)
    .map((row) => {
      const own = { ...row };
      for (const column of columns) delete own[column];
      return own as O;
    });
  const small = columns.slice(0, ranges).some((column) => Number(decided[column]) <= WALK_LIMIT);
  if (small || decided.walk_id === null || decided.walk_id === undefined) return { rows };
  return { rows, resumeAfter: { value: decided.walk_value as SortKey['value'], id: decided.walk_id as string } };
}

/**
 * Sorting by a column a condition bounds: the rows have a value, so the plain column orders them as the
 * sort's coalesce(...) does, and the condition is a range of the plain column's index.
 */
function servedPage<Row>(page: PageRequest<Row>, conditions: Condition[]): PageRequest<Row> {
  if (!page.field.expression || !conditions.some((condition) => condition.column === page.column)) return page;
  const { expression: _, ...plain } = page.field;
  return { ...page, field: plain };
}

/** What a list reads: `columns` of `table`, in the rows whose columns equal `scope` (the account's, …). */
export interface ListSource {
  table: string;
  columns: readonly string[];
  scope: Record<string, string>;
  /**
   * A column computed per row (a correlated subquery, such as a client's property ids), given the name its
   * row's table has in the outermost select: it is added there, so a page reads it for its own rows, in the
   * same query, instead of a second query for the page's ids.
   */
  computed?:
    | ((from: string) => AliasedExpression<unknown, string> | ReadonlyArray<AliasedExpression<unknown, string>>)
    | undefined;
}

/** The plan of the list `shape` asks for, of the rows of `source`; on PostgreSQL a walked page's `whole` statement. */
export function listPlan<O>(db: Executor, source: ListSource, shape: ListShape, asked: PageRequest<O>): ListPlan<O> {
  const plan = stepsOf(db, source, shape, asked);
  if (!plan.walk || dialectOf(db) !== 'postgres') return plan;
  const unseenBounds = shape.conditions.some((condition) => condition.compared)
    ? stepsOf(db, source, { ...shape, conditions: shape.conditions.map((one) => unseenCompared(db, one)) }, asked)
    : plan;
  const page = servedPage(asked, shape.conditions);
  return { ...plan, whole: wholeQuery(db, page, unseenBounds.ranges, unseenBounds.walk!, unseenBounds.query) };
}

/** The plan of the list `shape` asks for, as separate statements. */
function stepsOf<O>(db: Executor, source: ListSource, shape: ListShape, asked: PageRequest<O>): ListPlan<O> {
  const { keys, among, conditions } = shape;
  const page = servedPage(asked, conditions);
  // Written against Executor's tables, which `source.table` and the derived tables below are not typed as; the rows are O either way.
  type Query = SelectQueryBuilder<any, any, O>;
  const untyped = db as unknown as {
    selectFrom(
      from: unknown,
    ): Query & { selectAll(): Query; crossJoin(table: string): { select(columns: readonly string[]): Query } };
  };
  const start = () =>
    Object.entries(source.scope).reduce(
      (query, [column, value]) => query.where(sql.ref(column), '=', value),
      untyped.selectFrom(source.table).select(source.columns as never) as Query,
    );
  const outerKeys = db as unknown as {
    selectFrom(from: unknown): { selectAll(): SelectQueryBuilder<any, any, SortKey> };
  };
  const withComputed = (query: Query, from: string): Query =>
    source.computed ? (query.select(source.computed(from) as never) as Query) : query;
  const direction = page.descending ? 'desc' : 'asc';
  // A page of rows read and then sorted, with the computed columns added for the page's rows alone: written in
  // the sorting select, they were computed for every row sorted when they looked cheap to PostgreSQL (a client's
  // property ids, 111 times for a page of 26 from a range of 111).
  const paged = (rows: Query): Query =>
    source.computed
      ? withComputed(
          untyped
            .selectFrom(rows.as('paged'))
            .selectAll()
            .orderBy(sortKeyOf(page), direction)
            .orderBy(sql.ref('id'), direction),
          'paged',
        )
      : rows;
  const sorted = (query: Query) =>
    paged(applyPage(untyped.selectFrom(fenced(db, query).as('matched')).selectAll(), page));
  // The among filter's values are written into the statement, never parameters: a column of few values, each set
  // of them (once each and sorted: `status=void,draft,void` is `draft,void`) a statement of its own, so that
  // PostgreSQL's generic plan of each prices it from those values' frequency as a plan for the values would, and
  // is kept. As parameters, a value of very unequal frequency (`status=sent` among a million invoices) priced the
  // generic plan above the custom ones, and every page was planned again (2.5–3.5 ms a walked page of
  // `overdue=true`, bench/README.md).
  const amongValues = among && [...new Set(among.values)].sort();
  const literal = (value: string | null) => sql.lit(value);
  const amongCondition =
    among &&
    amongValues &&
    sql<SqlBool>`${sql.ref(among.column)} in (${sql.join((amongValues.length > 0 ? amongValues : [null]).map(literal))})`;
  if (keys.length > 0) {
    let query = start();
    for (const key of keys) query = query.where(sql.ref(key.column), '=', key.value);
    if (amongCondition) query = query.where(unindexed(amongCondition));
    for (const condition of conditions) query = query.where(unindexed(condition.expression));
    return { query: sorted(query), ranges: [] };
  }
  const residual = conditions.filter((condition) => condition.column !== page.column);
  // The rows of the sort's index that the walk reads: the account's, or one value's, within the conditions on the sort column.
  const walked = (query: Query, value?: string) => {
    for (const condition of conditions) if (condition.column === page.column) query = query.where(condition.expression);
    if (among && value !== undefined) query = query.where(sql.ref(among.column), '=', literal(value));
    return query;
  };
  const values = amongValues ?? [undefined];
  const list = (bound?: SortKey) => {
    const branches = values.map((value) => {
      let query = walked(start(), value);
      for (const condition of residual) query = query.where(unindexed(condition.expression));
      if (bound) query = query.where(beyond(page, bound, page.descending ? '>=' : '<='));
      return applyPage(query, page);
    });
    if (branches.length === 0) return withComputed(applyPage(start().where(sql<SqlBool>`1 = 0`), page), source.table);
    if (branches.length === 1) return withComputed(branches[0]!, source.table);
    // Each branch reads at most one page from its own range; the merge sorts those few rows.
    const [first, ...rest] = branches.map((branch, index) =>
      untyped.selectFrom(branch.as(`branch${index}`)).selectAll(),
    );
    return withComputed(
      applyPage(
        untyped.selectFrom(rest.reduce((union, branch) => union.unionAll(branch), first!).as('merged')).selectAll(),
        page,
      ),
      'merged',
    );
  };
  if (residual.length === 0 || values.length === 0) return { query: list(), ranges: [] };

  const countOf = (range: SelectQueryBuilder<any, any, { range_id: string }>) =>
    untyped
      .selectFrom(range.as('range'))
      .clearSelect()
      .select(sql<number>`count(*)`.as('count')) as unknown as ListPlan<O>['ranges'][number]['count'];
  /**
   * The rows whose ids `ids` yields (its column `id`), in that order (CROSS JOIN keeps it on SQLite), each found by
   * its primary key and checked against the account's scope, `tests` and the among filter; then sorted and paged.
   */
  const readByIds = (ids: AliasedExpression<unknown, string>, id: string, tests: readonly Condition[]) => {
    let read = untyped
      .selectFrom(ids)
      .crossJoin(source.table)
      .select(source.columns)
      .where(sql<SqlBool>`${sql.ref(`${source.table}.id`)} = ${sql.ref(id)}`);
    for (const [scoped, value] of Object.entries(source.scope))
      read = read.where(unindexed(sql<SqlBool>`${sql.ref(scoped)} = ${value}`));
    for (const condition of tests) read = read.where(unindexed(condition.expression));
    if (amongCondition) read = read.where(unindexed(amongCondition));
    return sorted(read);
  };
  /** Sorted by the plain created_at: what a range that carries its objects' created_at (`range_at`) is read by. */
  const byCreatedAt = page.column === 'created_at' && !page.field.expression;
  /** Whether a list's other tests are only the conditions that check an object by its id (and the account's scope). */
  const onlyChecks = (others: Condition[]) =>
    others.every((condition) => condition.check) &&
    !among &&
    Object.keys(source.scope).every((column) => column === 'account_id');
  /**
   * A range of another table's index (a custom field's value rows): its ids, each row then found by its primary
   * key. One that carries its objects' created_at, read for a list sorted by it, is sorted by that first, with the
   * other conditions that check an object by its id, so that only a page of rows (with no other test) is read.
   */
  const rangeOf = (own: Condition) => {
    const range = own.range!;
    const others = conditions.filter((condition) => condition !== own);
    const sortedFirst = own.rangeAt === true && byCreatedAt;
    let ids = untyped
      .selectFrom(range.as('entries'))
      .clearSelect()
      .select(sql.ref('range_id').as('range_id'))
      .distinct() as Query;
    if (sortedFirst) {
      ids = ids.select(sql.ref('range_at').as('range_at'));
      for (const condition of others)
        if (condition.check) ids = ids.where(unindexed(condition.check(sql.ref('entries.range_id'))));
      if (page.after) ids = ids.where(keyBeyond('range_at', 'range_id', page.after, page.descending ? '<' : '>'));
      ids = ids.orderBy(sql.ref('range_at'), direction).orderBy(sql.ref('range_id'), direction);
      ids = onlyChecks(others) ? ids.limit(sql.lit(page.limit + 1)) : fenced(db, ids);
    }
    const tests = sortedFirst ? others.filter((condition) => !condition.check) : others;
    return { column: own.column, count: countOf(range), list: readByIds(ids.as('range'), 'range.range_id', tests) };
  };
  const ownRanges = residual.flatMap((condition) => (condition.range ? [rangeOf(condition)] : []));
  const ranges = [...new Set(residual.map((condition) => condition.column))]
    .filter((column) => page.columns.includes(column))
    .map((column) => {
      // In the index's order, which no other index gives: the planner must read this one, statistics or none.
      const inRange = <Row>(query: SelectQueryBuilder<any, any, Row>) => {
        for (const condition of conditions) if (condition.column === column) query = query.where(condition.expression);
        return query
          .orderBy(sql.ref(column))
          .orderBy(sql.ref('id'))
          .limit(sql.lit(WALK_LIMIT + 1));
      };
      const count = countOf(inRange(start().clearSelect().select(sql.ref<string>('id').as('range_id'))));
      // Read whole, a small range's rows come from the same index in its order (its LIMIT a fence on both
      // engines), not by their ids joined to the rows by primary key: 75 shared buffers for 400 clients at a
      // million on PostgreSQL, against 1,611. The other conditions are checked on those rows.
      let read = start();
      for (const condition of conditions)
        if (condition.column !== column) read = read.where(unindexed(condition.expression));
      if (amongCondition) read = read.where(unindexed(amongCondition));
      read = inRange(read);
      return {
        column,
        count,
        list: paged(applyPage(untyped.selectFrom(read.as('matched')).selectAll(), page)),
      };
    })
    .concat(ownRanges);
  // A filter with its own index in created_at order is walked there, unless a condition bounds created_at itself.
  const entries =
    byCreatedAt && !conditions.some((one) => one.column === page.column)
      ? residual.find((condition) => condition.sorted)
      : undefined;
  // The walk's bound: the WALK_LIMIT-th entry after the cursor (of each value's range; the nearest of those).
  const bounds = entries
    ? entryBounds(page, entries.sorted!)
    : values.map((value) => {
        let query = walked(start(), value)
          .clearSelect()
          .select([sortKeyOf(page).as('value'), sql.ref<string>('id').as('id')]);
        if (page.after) query = query.where(beyond(page, page.after, page.descending ? '<' : '>'));
        return query
          .orderBy(sortKeyOf(page), direction)
          .orderBy(sql.ref('id'), direction)
          .limit(sql.lit(1))
          .offset(sql.lit(WALK_LIMIT - 1));
      });
  const [firstBound, ...restBounds] = bounds.map((bound, index) =>
    outerKeys.selectFrom(bound.as(`bound${index}`)).selectAll(),
  );
  const bound =
    restBounds.length === 0
      ? firstBound!
      : outerKeys
          .selectFrom(restBounds.reduce((union, branch) => union.unionAll(branch), firstBound!).as('bounds'))
          .selectAll()
          .orderBy(sql.ref('value'), direction)
          .orderBy(sql.ref('id'), direction)
          .limit(sql.lit(1));
  if (!entries) return { query: list(), ranges, walk: { bound, list } };
  // The walk of the filter's own entries: those up to the bound that match and meet the other conditions that
  // check an object by its id (another custom field or tag: a probe each), each object then read by its primary
  // key and checked against the rest. With no rest (the entries are the account's: its scope is the only other
  // test), each branch stops at a page of such entries.
  const others = conditions.filter((condition) => condition !== entries);
  const rest = others.filter((condition) => !condition.check);
  const checks = others.flatMap((condition) => (condition.check ? [condition.check(sql.ref('entry.object_id'))] : []));
  const alone = onlyChecks(others);
  const entryList = (bound?: SortKey) =>
    readByIds(walkedEntries(db, page, entries.sorted!, checks, bound, alone).as('walk'), 'walk.walk_id', rest);
  return { query: entryList(), ranges, walk: { bound, list: entryList } };
}

/** `(at, id) operator key`, a row-value comparison: a range of an index on (…, at, id) in created_at order. */
function keyBeyond(at: string, id: string, key: SortKey, operator: '<' | '>' | '<=' | '>=') {
  return sql<SqlBool>`((${sql.ref(at)}, ${sql.ref(id)}) ${sql.raw(operator)} (${key.value}, ${key.id}))`;
}

/** `(object_created_at, object_id) operator key`: a range of a filter's entries in created_at order. */
function entryBeyond(key: SortKey, operator: '<' | '>' | '<=' | '>=') {
  return keyBeyond('object_created_at', 'object_id', key, operator);
}

/** A filter's entries after the cursor in the page's order, `value` and `id`: each branch's WALK_LIMIT-th. */
function entryBounds(page: PageRequest<unknown>, sorted: NonNullable<Condition['sorted']>) {
  const direction = page.descending ? 'desc' : 'asc';
  return sorted.branches.map((branch) => {
    let query = branch.select([
      sql.ref<string>('object_created_at').as('value'),
      sql.ref<string>('object_id').as('id'),
    ]) as SelectQueryBuilder<any, any, SortKey>;
    if (page.after) query = query.where(entryBeyond(page.after, page.descending ? '<' : '>'));
    return query
      .orderBy(sql.ref('object_created_at'), direction)
      .orderBy(sql.ref('object_id'), direction)
      .limit(sql.lit(1))
      .offset(sql.lit(WALK_LIMIT - 1));
  });
}

/**
 * The ids (`walk_id`) of a filter's matching entries after the cursor, up to `bound`, in the page's order, each
 * object once (a multi_select's options, an object holding two of the tags asked), that meet `checks` (on
 * `entry.object_id`). `alone`: no other condition follows, so each branch stops at a page and one (the page's rows
 * are among the first that many of each).
 */
function walkedEntries(
  db: Executor,
  page: PageRequest<unknown>,
  sorted: NonNullable<Condition['sorted']>,
  checks: ReadonlyArray<Expression<SqlBool>>,
  bound: SortKey | undefined,
  alone: boolean,
): SelectQueryBuilder<any, any, { walk_id: string }> {
  const direction = page.descending ? 'desc' : 'asc';
  const branches = sorted.branches.map((branch) => {
    let query = branch
      .select([sql.ref<string>('object_created_at').as('walk_at'), sql.ref<string>('object_id').as('walk_id')])
      .distinct();
    if (sorted.test) query = query.where(sorted.test);
    for (const check of checks) query = query.where(unindexed(check));
    if (page.after) query = query.where(entryBeyond(page.after, page.descending ? '<' : '>'));
    if (bound) query = query.where(entryBeyond(bound, page.descending ? '>=' : '<='));
    query = query.orderBy(sql.ref('object_created_at'), direction).orderBy(sql.ref('object_id'), direction);
    return alone ? query.limit(sql.lit(page.limit + 1)) : fenced(db, query);
  });
  if (branches.length === 1) return branches[0]!;
  const untyped = db as unknown as { selectFrom(from: unknown): SelectQueryBuilder<any, any, { walk_id: string }> };
  const [first, ...rest] = branches.map((branch, index) =>
    untyped.selectFrom(branch.as(`entries${index}`)).selectAll(),
  );
  return untyped
    .selectFrom(rest.reduce((union, branch) => union.unionAll(branch), first!).as('entries'))
    .select(sql.ref<string>('walk_id').as('walk_id'))
    .distinct();
}

/** ListPlan's `whole` statement, for PostgreSQL (SQLite's statements take no round trip): see there. */
function wholeQuery<O>(
  db: Executor,
  page: PageRequest<O>,
  ranges: ListPlan<O>['ranges'],
  walk: NonNullable<ListPlan<O>['walk']>,
  unbounded: SelectQueryBuilder<any, any, O>,
): ListPlan<O>['whole'] {
  const count = (at: string, index: number) => sql.ref(`${at}.walk_count${index}`);
  const over = (at: string, index: number) => sql<SqlBool>`${count(at, index)} > ${sql.lit(WALK_LIMIT)}`;
  const all = (terms: Array<Expression<SqlBool>>) =>
    terms.length === 0 ? sql<SqlBool>`true` : sql<SqlBool>`${sql.join(terms, sql` and `)}`;
  /** Every range larger than WALK_LIMIT: the walk's gate. */
  const large = (at: string) => all(ranges.map((_, index) => over(at, index)));
  /** The range at `index` is the first of at most WALK_LIMIT: its read's gate. */
  const smallest = (index: number) =>
    all([
      ...ranges.slice(0, index).map((_, before) => over('decided', before)),
      sql<SqlBool>`${count('decided', index)} <= ${sql.lit(WALK_LIMIT)}`,
    ]);
  const counts = sql.join(ranges.map((range, index) => sql`(${range.count}) as ${sql.ref(`walk_count${index}`)}`));
  // Each `offset 0` keeps its subquery apart: flattened, the counts were computed twice (once for the answer,
  // once for the filter) and the filter joined the bound's rows after reading them, instead of a one-time filter.
  const decided = sql`select counted.*, bound.value as walk_value, bound.id as walk_id from (select ${ranges.length > 0 ? counts : sql``} offset 0) counted left join lateral (select * from (${walk.bound}) bound where ${large('counted')} offset 0) bound on true`;
  // The walk's bound is the decided row's (a reference, where `list` takes values).
  const bounded = walk.list({
    value: sql.ref('decided.walk_value'),
    id: sql.ref('decided.walk_id'),
  } as unknown as SortKey);
  const branch = (list: Compilable<unknown>, gate: Expression<SqlBool>) =>
    sql`(select * from (${list}) listed where ${gate} offset 0)`;
  const lists = [
    ...ranges.map((range, index) => branch(range.list, smallest(index))),
    branch(unbounded, sql<SqlBool>`${large('decided')} and decided.walk_id is null`),
    branch(bounded, sql<SqlBool>`${large('decided')} and decided.walk_id is not null`),
  ];
  const direction = sql.raw(page.descending ? 'desc' : 'asc');
  const statement = sql<
    Record<string, unknown>
  >`select listed.*, decided.* from (${decided}) decided left join lateral (${sql.join(lists, sql` union all `)}) listed on true order by ${sortKeyOf(page)} ${direction}, listed.id ${direction}`;
  return {
    compile: () => statement.compile(db),
    execute: async () => (await statement.execute(db)).rows,
  };
}

/**
 * A filter condition made from its values, so that a list's queries can be compiled once per shape
 * (db/list-shapes.ts): `make` must put each of `values` in the condition as a bound value, as given, and take
 * nothing else from the request; `key` names everything else that decides the condition's SQL.
 */
export interface ShapedCondition {
  key: string;
  values: readonly unknown[];
  make(db: Executor, values: readonly unknown[]): Condition;
}

/** The conditions `shaped` makes of its own values. */
export function conditionsOf(db: Executor, shaped: readonly ShapedCondition[]): Condition[] {
  return shaped.map((one) => one.make(db, one.values));
}

/** A plan's queries as runnable steps: a ListPlan's, or its compiled shape's (db/list-shapes.ts). */
export interface PlanSteps<O> {
  query(): Promise<O[]>;
  ranges: Array<{ count(): Promise<number>; list(): Promise<O[]> }>;
  walk?: { bound(): Promise<SortKey | undefined>; list(bound: SortKey): Promise<O[]> } | undefined;
  /** The whole page in one statement (ListPlan's `whole`), when the plan has it. */
  whole?: (() => Promise<Listed<O>>) | undefined;
}

/** Runs a plan's steps: the one query; or a small range read whole; or the walk, stopped at its bound. */
export async function runSteps<O>(steps: PlanSteps<O>): Promise<Listed<O>> {
  if (!steps.walk) return { rows: await steps.query() };
  if (steps.whole) return steps.whole();
  for (const range of steps.ranges) if ((await range.count()) <= WALK_LIMIT) return { rows: await range.list() };
  const bound = await steps.walk.bound();
  if (!bound) return { rows: await steps.query() };
  // A full page ends at its own last row (toPage); a short one resumes after the bound.
  return { rows: await steps.walk.list(bound), resumeAfter: bound };
}

/** Runs a plan (runSteps), building each query's SQL as it goes. */
export function runList<O>(plan: ListPlan<O>): Promise<Listed<O>> {
  const { walk, whole } = plan;
  return runSteps({
    whole: whole && (async () => wholePage<O>(await whole.execute(), plan.ranges.length)),
    query: () => plan.query.execute(),
    ranges: plan.ranges.map((range) => ({
      count: async () => Number((await range.count.executeTakeFirstOrThrow()).count),
      list: () => range.list.execute(),
    })),
    walk: walk && { bound: () => walk.bound.executeTakeFirst(), list: (bound) => walk.list(bound).execute() },
  });
}
