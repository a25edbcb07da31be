// A list's query compiled once per shape (which filters are set, the sort, its direction, a cursor or none,
// the page size) and run with each request's values bound, instead of built and compiled by Kysely on every
// request (that was 11 % of a 25-client list's CPU time). The same idea as db/prepared.ts for lists, whose SQL text
// depends on which filters are set: the plan is built once per shape from stand-in values, and where each
// stand-in lands among the compiled parameters says where each request's value goes.
import type { CompiledQuery } from 'kysely';
import { dialectOf, type Executor } from './database.js';
import type { PageRequest } from './keyset.js';
import { runList, type ListPlan, type Listed } from './list-plan.js';
import { runCompiled } from './prepared.js';

/** The values a list's plan is built from (the account's id and the filters set), by name. */
export type ListValues = Record<string, string | undefined>;

/** Where a compiled parameter comes from. */
type Slot = { value: string } | { after: 'value' | 'id' } | { constant: unknown };

interface Shape {
  query: CompiledQuery;
  slots: Slot[];
}

/**
 * Stand-ins: instants of year 0001 (a time bound is normalized as an instant, which leaves these unchanged;
 * no stored value or constant of a list is one) and an integer cursor value no integer sort reaches. The page
 * size is part of the shape: it is written into the SQL (db/keyset.ts, applyPage).
 */
const STAND_IN_PREFIX = '0001-01-01T00:00:00.';
const standIn = (index: number) => `${STAND_IN_PREFIX}${String(index + 1).padStart(3, '0')}Z`;
const INTEGER_STAND_IN = 9_000_000_000_001;

/**
 * `build` run once per shape; undefined when the shape's plan cannot be one compiled query (a walk, which
 * runs several queries whose values depend on each other's rows) or a value does not reach the query as given.
 */
function compileShape<O>(
  db: Executor,
  build: (db: Executor, values: ListValues, page: PageRequest<O>) => ListPlan<O>,
  names: readonly string[],
  page: PageRequest<O>,
): Shape | undefined {
  const values: ListValues = {};
  const slotOf = new Map<unknown, Slot>();
  names.forEach((name, index) => {
    values[name] = standIn(index);
    slotOf.set(values[name], { value: name });
  });
  let after: PageRequest<O>['after'];
  if (page.after) {
    after = {
      value: page.field.kind === 'integer' ? INTEGER_STAND_IN : standIn(names.length),
      id: standIn(names.length + 1),
    };
    slotOf.set(after.value, { after: 'value' });
    slotOf.set(after.id, { after: 'id' });
  }
  let plan: ListPlan<O>;
  try {
    plan = build(db, values, { ...page, after });
  } catch {
    // A plan that checks its values refuses the stand-ins: that shape is built per request, as before.
    return undefined;
  }
  if (plan.walk) return undefined;
  const query = plan.query.compile();
  const slots = query.parameters.map((parameter): Slot => {
    const slot = slotOf.get(parameter);
    if (slot) return slot;
    return { constant: parameter };
  });
  const used = new Set(slots.filter((slot) => !('constant' in slot)));
  const unchanged = [...slotOf.values()].every((slot) => used.has(slot));
  const altered = slots.some(
    (slot) =>
      'constant' in slot &&
      ((typeof slot.constant === 'string' && slot.constant.includes(STAND_IN_PREFIX.slice(0, 10))) ||
        slot.constant === INTEGER_STAND_IN),
  );
  return unchanged && !altered ? { query, slots } : undefined;
}

/**
 * The list `build` plans, compiled once per shape and dialect. `build` must put every value it is given in
 * the query as it is (or the shape is not compiled, and each request builds its plan as before).
 */
export function listByShape<O>(build: (db: Executor, values: ListValues, page: PageRequest<O>) => ListPlan<O>) {
  const shapes = new Map<string, Shape | null>();
  return async (db: Executor, values: ListValues, page: PageRequest<O>): Promise<Listed<O>> => {
    const names = Object.keys(values)
      .filter((name) => values[name] !== undefined)
      .sort();
    const key = `${dialectOf(db)} ${page.column} ${page.descending} ${page.after !== undefined} ${page.limit} ${names.join(',')}`;
    let shape = shapes.get(key);
    if (shape === undefined) {
      shape = compileShape(db, build, names, page) ?? null;
      shapes.set(key, shape);
    }
    if (shape === null) return runList(build(db, values, page));
    const parameters = shape.slots.map((slot) =>
      'value' in slot ? values[slot.value] : 'after' in slot ? page.after![slot.after] : slot.constant,
    );
    return { rows: await runCompiled(db, shape.query as CompiledQuery<O>, parameters) };
  };
}
