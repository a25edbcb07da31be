// A list's queries compiled once per shape (which filters are set, the sort, its direction, a cursor or none,
// the page size, and the kinds of its custom field and tag filters) and run with each request's values bound,
// instead of built and compiled by Kysely on every request (that was 11 % of a 25-client list's CPU time, and
// about 0.25 ms of a filtered page's: its range's count, the walk's bound and the walk). The same idea as
// db/prepared.ts for lists, whose SQL text depends on which filters are set: the plan is built once per shape
// from stand-in values, and where each stand-in lands among the compiled parameters says where each request's
// value goes (the walk's bound, read by one of the plan's own queries, is a stand-in too).
import type { Compilable, CompiledQuery } from 'kysely';
import { dialectOf, type Executor } from './database.js';
import type { PageRequest, SortKey } from './keyset.js';
import {
  type Condition,
  conditionsOf,
  type Listed,
  type ListPlan,
  runList,
  runSteps,
  type ShapedCondition,
  wholePage,
} from './list-plan.js';
import { runCompiled } from './prepared.js';

/** The values a list's plan is built from (the account's id and the filters set), by name. */
export type ListValues = Record<string, string | undefined>;

/** Where a compiled parameter comes from: a value, the cursor, the walk's bound, or the plan itself. */
type Slot = { value: string } | { after: 'value' | 'id' } | { bound: 'value' | 'id' } | { constant: unknown };

interface Compiled {
  query: CompiledQuery;
  slots: Slot[];
}

/** Every query of a plan (db/list-plan.ts, ListPlan), compiled. */
interface Shape {
  query: Compiled;
  ranges: Array<{ count: Compiled; list: Compiled }>;
  walk?: { bound: Compiled; list: Compiled } | undefined;
  whole?: Compiled | undefined;
}

/**
 * Stand-ins: instants of year 0001 (a time bound is normalized as an instant, which leaves these unchanged;
 * no stored value or constant of a list is one) and integer cursor and bound values no integer sort reaches.
 * The page size is part of the shape: it is written into the SQL (db/keyset.ts, applyPage).
 */
const STAND_IN_PREFIX = '0001-01-01T00:00:00.';
const standIn = (index: number) => `${STAND_IN_PREFIX}${String(index + 1).padStart(3, '0')}Z`;
const INTEGER_STAND_IN = 9_000_000_000_001;
const INTEGER_BOUND_STAND_IN = 9_000_000_000_003;
/**
 * The most shapes a list keeps compiled, oldest out: a filter's count of values is part of its shape (up to a few
 * hundred of a custom field's `a,b,…`), so the shapes a caller could ask for are not few.
 */
const MAX_SHAPES = 1000;

type Build<O> = (db: Executor, values: ListValues, page: PageRequest<O>, custom: Condition[]) => ListPlan<O>;

/** The conditions `shaped` makes of the values named `custom.<i>.<j>` in `values`. */
const shapedConditions = (db: Executor, shaped: readonly ShapedCondition[], values: Record<string, unknown>) =>
  shaped.map((one, index) =>
    one.make(
      db,
      one.values.map((_, position) => values[`custom.${index}.${position}`]),
    ),
  );

/**
 * `build` run once per shape with stand-ins for every value, each of its queries compiled; undefined when a
 * value does not reach the queries as given (the shape is then built per request).
 */
function compileShape<O>(
  db: Executor,
  build: Build<O>,
  names: readonly string[],
  page: PageRequest<O>,
  shaped: readonly ShapedCondition[],
): Shape | undefined {
  const values: Record<string, string> = {};
  const slotOf = new Map<unknown, Slot>();
  names.forEach((name, index) => {
    values[name] = standIn(index);
    slotOf.set(values[name], { value: name });
  });
  const integer = page.field.kind === 'integer';
  let after: PageRequest<O>['after'];
  if (page.after) {
    after = { value: integer ? INTEGER_STAND_IN : standIn(names.length), id: standIn(names.length + 1) };
    slotOf.set(after.value, { after: 'value' });
    slotOf.set(after.id, { after: 'id' });
  }
  const bound: SortKey = {
    value: integer ? INTEGER_BOUND_STAND_IN : standIn(names.length + 2),
    id: standIn(names.length + 3),
  };
  slotOf.set(bound.value, { bound: 'value' });
  slotOf.set(bound.id, { bound: 'id' });
  let plan: ListPlan<O>;
  try {
    plan = build(db, values, { ...page, after }, shapedConditions(db, shaped, values));
  } catch {
    // A plan that checks its values refuses the stand-ins: that shape is built per request, as before.
    return undefined;
  }
  const compiled: Compiled[] = [];
  const compile = (query: { compile(): CompiledQuery }): Compiled => {
    const one = query.compile();
    const entry = {
      query: one,
      slots: one.parameters.map((parameter) => slotOf.get(parameter) ?? { constant: parameter }),
    };
    compiled.push(entry);
    return entry;
  };
  const { walk } = plan;
  const shape: Shape = {
    query: compile(plan.query),
    ranges: plan.ranges.map((range) => ({ count: compile(range.count), list: compile(range.list) })),
    walk: walk && { bound: compile(walk.bound), list: compile(walk.list(bound)) },
    whole: plan.whole && compile(plan.whole),
  };
  const used = new Set(compiled.flatMap((one) => one.slots.filter((slot) => !('constant' in slot))));
  const unchanged = [...slotOf.values()].every((slot) => used.has(slot) || ('bound' in slot && !walk));
  const altered = compiled.some((one) =>
    one.slots.some(
      (slot) =>
        'constant' in slot &&
        ((typeof slot.constant === 'string' && slot.constant.includes(STAND_IN_PREFIX.slice(0, 10))) ||
          slot.constant === INTEGER_STAND_IN ||
          slot.constant === INTEGER_BOUND_STAND_IN),
    ),
  );
  return unchanged && !altered ? shape : undefined;
}

/**
 * The list `build` plans, each of its queries compiled once per shape and dialect. `build` must put every
 * value it is given in the queries as it is, and so must each shaped condition's `make` (or the shape is not
 * compiled, and each request builds its plan as before). `shaped`: conditions made from their values
 * (custom field and tag filters), whose keys join the shape's.
 */
export function listByShape<O>(build: Build<O>) {
  const shapes = new Map<string, Shape | null>();
  return async (
    db: Executor,
    given: ListValues,
    page: PageRequest<O>,
    shaped: readonly ShapedCondition[] = [],
  ): Promise<Listed<O>> => {
    const values: Record<string, unknown> = { ...given };
    shaped.forEach((one, index) =>
      one.values.forEach((value, position) => {
        values[`custom.${index}.${position}`] = value;
      }),
    );
    const names = Object.keys(values)
      .filter((name) => values[name] !== undefined)
      .sort();
    const key = `${dialectOf(db)} ${page.column} ${page.descending} ${page.after !== undefined} ${page.limit} ${names.join(',')} ${shaped.map((one) => one.key).join(';')}`;
    let shape = shapes.get(key);
    if (shape === undefined) {
      shape = compileShape(db, build, names, page, shaped) ?? null;
      if (shapes.size >= MAX_SHAPES) shapes.delete(shapes.keys().next().value as string);
      shapes.set(key, shape);
    }
    if (shape === null) return runList(build(db, given, page, conditionsOf(db, shaped)));
    const run = async (compiled: Compiled, bound?: SortKey) =>
      runCompiled(
        db,
        compiled.query as CompiledQuery<O>,
        compiled.slots.map((slot) =>
          'value' in slot
            ? values[slot.value]
            : 'after' in slot
              ? page.after![slot.after]
              : 'bound' in slot
                ? bound![slot.bound]
                : slot.constant,
        ),
      );
    const { walk, whole } = shape;
    return runSteps({
      whole:
        whole &&
        (async () =>
          wholePage<O>((await run(whole)) as unknown as Array<Record<string, unknown>>, shape.ranges.length)),
      query: () => run(shape.query),
      ranges: shape.ranges.map((range) => ({
        count: async () => Number(((await run(range.count))[0] as unknown as { count: number | string }).count),
        list: () => run(range.list),
      })),
      walk: walk && {
        bound: async () => (await run(walk.bound))[0] as SortKey | undefined,
        list: (bound) => run(walk.list, bound),
      },
    });
  };
}

/** A value StatementShapes binds: a string, or an array of strings (one parameter, as PostgreSQL's `text[]`). */
export type StatementValue = string | readonly string[];

/** A value as a compiled parameter is compared with a stand-in: an array by its JSON text. */
const compared = (value: unknown) => (Array.isArray(value) ? JSON.stringify(value) : value);

/**
 * Statements compiled once per key, for queries whose values reach them as strings, each as it is (the account, a
 * time bound, the cursor) or made from one (a search's LIKE pattern and FTS5 queries, or its words as one array,
 * made from its `q`): the statement built from stand-ins, each compiled parameter equal to a stand-in then bound to
 * the request's value of that name. A statement that carries a stand-in any other way (inside a longer constant)
 * is built per call.
 */
export class StatementShapes {
  private readonly shapes = new Map<string, Compiled | null>();

  /** A stand-in for each of `names`: text no request's value is (standIn's instants of year 0001). */
  static standIns<Name extends string>(names: readonly Name[]): Record<Name, string> {
    return Object.fromEntries(names.map((name, index) => [name, standIn(900 + index)])) as Record<Name, string>;
  }

  /**
   * The rows of the statement `build` makes, compiled the first time `key` is asked for from `standIns` and then
   * bound to `values` (the same names). `key` must name everything else that shapes the statement.
   */
  async rows<Row, Values extends Record<string, StatementValue>>(
    db: Executor,
    key: string,
    standIns: Values,
    values: Values,
    build: (values: Values) => Compilable<Row>,
  ): Promise<Row[]> {
    let shape = this.shapes.get(key);
    if (shape === undefined) {
      const names = Object.keys(standIns);
      const slotOf = new Map<unknown, Slot>(names.map((name) => [compared(standIns[name]), { value: name }]));
      const query = build(standIns).compile();
      const slots = query.parameters.map((parameter) => slotOf.get(compared(parameter)) ?? { constant: parameter });
      const texts = names.flatMap((name) => standIns[name]!);
      const altered = slots.some(
        (slot) =>
          'constant' in slot &&
          (typeof slot.constant === 'string' || Array.isArray(slot.constant)) &&
          texts.some((text) => JSON.stringify(slot.constant).includes(text)),
      );
      shape = altered ? null : { query, slots };
      if (this.shapes.size >= MAX_SHAPES) this.shapes.delete(this.shapes.keys().next().value as string);
      this.shapes.set(key, shape);
    }
    if (shape === null) return (await db.executeQuery(build(values).compile())).rows;
    return runCompiled(
      db,
      shape.query as CompiledQuery<Row>,
      shape.slots.map((slot) =>
        'value' in slot ? values[slot.value] : 'constant' in slot ? slot.constant : undefined,
      ),
    );
  }
}
