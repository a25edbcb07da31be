// One 422 names every wrong field, schema and semantic checks together, for every route that
// takes a body. The schema runs first; when it refuses the body, the semantic checks run too, on the body
// without the fields the schema already named (so each check sees values of the types it expects), and
// their findings join the same answer. Two kinds of checks:
// - by a field's name, wherever it appears in any body, for names that mean one thing across the API
//   (`timezone`: a zone this server knows);
// - a route's own (`config.fieldChecks`, given by its resource: a product's default_quantity, a document's
//   line items, a webhook's URL), the same functions its service runs on a valid body.
// Checks that need the database come after the schema, as the contract's order of checks says (422 → 404 →
// 409), but a route's reference checks (`config.referenceChecks`: does each id the body names exist in the
// account) join a 422 too, whether the schema or the service refused the body, since both are 422s on fields.
import { type ErrorDetail, fieldProblems } from '../core/errors.js';
import { canonicalTimeZone } from '../core/time.js';
import { toFieldPath } from './field-path.js';

/** Checks of a field by its name, wherever it is in a body; each throws the 422 the services throw. */
const BY_NAME: Record<string, (field: string, value: unknown) => void> = {
  timezone: (field, value) => {
    if (typeof value === 'string') canonicalTimeZone(field, value);
  },
};

/** Objects whose keys are the caller's own, not field names: their `timezone` is any text. */
const FREE_FORM = new Set(['metadata']);
/** Bodies nest at most 64 levels (http/json-body.ts); the walk stops there too. */
const MAX_DEPTH = 64;

/** What the by-name checks find in `body`, with each field's path as the schema's details write it. */
export function checksByName(body: unknown): ErrorDetail[] {
  const problems: ErrorDetail[] = [];
  const walk = (value: unknown, pointer: string, depth: number) => {
    if (value === null || typeof value !== 'object' || depth > MAX_DEPTH) return;
    for (const [key, child] of Object.entries(value)) {
      const childPointer = `${pointer}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
      const check = Array.isArray(value) ? undefined : BY_NAME[key];
      if (check) problems.push(...fieldProblems(() => check(toFieldPath(childPointer), child)));
      if (!FREE_FORM.has(key)) walk(child, childPointer, depth + 1);
    }
  };
  walk(body, '', 0);
  return problems;
}

/** The parts of a field path as the details write it: `line_items[2].quantity` → line_items, 2, quantity. */
function pathParts(field: string): string[] {
  return field.split(/\.|\[(\d+)\]/).filter((part): part is string => part !== undefined && part !== '');
}

/** A copy of `body` without the values at `fields` (the ones the schema already named). */
export function withoutFields(body: unknown, fields: Iterable<string>): unknown {
  const copy: unknown = structuredClone(body);
  for (const field of fields) {
    const parts = pathParts(field);
    let parent: unknown = copy;
    for (const part of parts.slice(0, -1)) {
      parent = parent !== null && typeof parent === 'object' ? (parent as Record<string, unknown>)[part] : undefined;
    }
    const last = parts.at(-1);
    if (last === undefined || parent === null || typeof parent !== 'object') continue;
    if (Array.isArray(parent)) parent[Number(last)] = undefined;
    else delete (parent as Record<string, unknown>)[last];
  }
  return copy;
}

/**
 * The semantic checks' findings on a body the schema refused with `details`: the ones on fields the schema
 * did not name. A check that meets a value it was not written for (the schema refused its neighbour, say)
 * adds nothing rather than failing the answer.
 */
export async function semanticProblems(
  body: unknown,
  details: readonly ErrorDetail[],
  routeChecks: ((body: unknown) => Promise<ErrorDetail[]>) | undefined,
  referenceChecks?: (body: unknown) => Promise<ErrorDetail[]>,
): Promise<ErrorDetail[]> {
  const named = new Set(details.map((detail) => detail.field));
  if (body === null || typeof body !== 'object') return [];
  const rest = withoutFields(body, named);
  const found: ErrorDetail[] = [];
  const run = async (check: () => ErrorDetail[] | Promise<ErrorDetail[]>) => {
    try {
      found.push(...(await check()));
    } catch {
      // A value of a type the check does not take: the schema's answer names it already.
    }
  };
  await run(() => checksByName(rest));
  if (routeChecks) await run(() => routeChecks(rest));
  if (referenceChecks) await run(() => referenceChecks(rest));
  // A finding that names a field the schema refused is about that field's absence from the stripped body
  // ("duration_minutes needs start_at"), not about what was sent: it is left out. Dropping one too many only
  // shortens the answer; keeping it would send the caller after a problem they do not have.
  const mentions = [...named].flatMap((field) => {
    const last = pathParts(field).at(-1);
    return last === undefined || /^\d+$/.test(last) ? [field] : [field, last];
  });
  const mentionsNamed = (message: string) =>
    mentions.some((name) => new RegExp(`(^|[^\\w.\\[])${escapeRegExp(name)}($|[^\\w\\[])`).test(message));
  const seen = new Set<string>();
  return found.filter((detail) => {
    const key = `${detail.field}\u0000${detail.message}`;
    const ownMessage = detail.message.startsWith(detail.field)
      ? detail.message.slice(detail.field.length)
      : detail.message;
    if (named.has(detail.field) || seen.has(key) || mentionsNamed(ownMessage)) return false;
    seen.add(key);
    return true;
  });
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
