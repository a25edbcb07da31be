// A change set's rules (docs/api-contract.md §26): every operation's scopes and body checked before anything
// runs, then all of them in order in one transaction, each through its route's own code (the `Dispatch` the
// routes hand in), `$ref:<j>` replaced by the id operation j answered; the first failure rolls all back, and a
// dry run rolls back after the last answer. The operations' events record the set as their `origin`.
import { AppError, type ErrorCode, type ErrorDetail, validationError } from '../../core/errors.js';
import { newId } from '../../core/deps.js';
import { type Context, inTransaction } from '../../kernel/context.js';
import { insufficientScope } from '../../kernel/auth-context.js';
import { type OperationScope, type Origin, runAsOperation } from '../../kernel/operation-scope.js';
import type { Scope } from '../../kernel/scopes.js';
import type { ChangeSet, ChangeSetOperation, ChangeSetResult, CreateChangeSetInput } from './change-sets.schemas.js';

/** What a route answered an operation. */
export interface Dispatched {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: unknown;
}

/** One request to the app itself, in the operation scope the caller has entered. */
export type Dispatch = (request: {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  body?: unknown;
  ifMatch?: string;
}) => Promise<Dispatched>;

/** Paths that are no operation of a set: the set itself, imports, keys, endpoints, apps and logos (§26). */
const NOT_OPERATIONS =
  /^\/v1\/(change-sets|imports|api-keys|webhook-endpoints|apps|installs|install-links)(\/|\?|$)|^\/v1\/account\/logo(\/|\?|$)|\/preview(\?|$)/;

const REF = /^\$ref:(\d+)$/;
/** Stands for a `$ref` while the bodies are checked, before the ids exist: a well-formed UUIDv7. */
const PLACEHOLDER_ID = '00000000-0000-7000-8000-000000000000';

/** Where a `$ref` stands: a path segment (`path`) or a body field's path (`client_id`, `line_items[0].product_id`). */
interface RefSite {
  field: string;
  target: number;
}

/** The `$ref`s of a body's id fields (`*_id`, items of `*_ids`), at any depth. */
function bodyRefs(value: unknown, at: string, sites: RefSite[], key?: string): void {
  if (typeof value === 'string') {
    const match = REF.exec(value);
    if (match && key !== undefined && (key.endsWith('_id') || key.endsWith('_ids[]')))
      sites.push({ field: at, target: Number(match[1]) });
    return;
  }
  if (Array.isArray(value)) {
    value.forEach((item, index) =>
      bodyRefs(item, `${at}[${index}]`, sites, key?.endsWith('_ids') ? `${key}[]` : undefined),
    );
    return;
  }
  if (value && typeof value === 'object')
    for (const [name, item] of Object.entries(value)) bodyRefs(item, at === '' ? name : `${at}.${name}`, sites, name);
}

function pathRefs(path: string): number[] {
  const [route] = path.split('?');
  return (route ?? '')
    .split('/')
    .map((segment) => REF.exec(segment))
    .filter((match): match is RegExpExecArray => match !== null)
    .map((match) => Number(match[1]));
}

/** The body with each `$ref` site given `idOf(target)`. */
function substituteBody(value: unknown, key: string | undefined, idOf: (target: number) => string): unknown {
  if (typeof value === 'string') {
    const match = REF.exec(value);
    return match && key !== undefined && (key.endsWith('_id') || key.endsWith('_ids[]'))
      ? idOf(Number(match[1]))
      : value;
  }
  if (Array.isArray(value))
    return value.map((item) => substituteBody(item, key?.endsWith('_ids') ? `${key}[]` : undefined, idOf));
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([name, item]) => [name, substituteBody(item, name, idOf)]));
  return value;
}

function substitutePath(path: string, idOf: (target: number) => string): string {
  const at = path.indexOf('?');
  const route = at === -1 ? path : path.slice(0, at);
  const query = at === -1 ? '' : path.slice(at);
  return (
    route
      .split('/')
      .map((segment) => {
        const match = REF.exec(segment);
        return match ? idOf(Number(match[1])) : segment;
      })
      .join('/') + query
  );
}

/** The 422s of the set's own shape: operations that are no operation, and `$ref`s naming nothing they may. */
function shapeProblems(operations: ChangeSetOperation[]): ErrorDetail[] {
  const problems: ErrorDetail[] = [];
  const refProblem = (index: number, field: string, target: number) => {
    if (target >= index)
      problems.push({
        field,
        message: `names operation ${target}, which is not an earlier one: $ref:<j> names an operation before this one`,
      });
    else if (operations[target]?.method === 'DELETE')
      problems.push({ field, message: `names operation ${target}, a delete, which answers no object to refer to` });
  };
  operations.forEach((operation, index) => {
    const at = `operations[${index}]`;
    if (NOT_OPERATIONS.test(operation.path))
      problems.push({
        field: `${at}.path`,
        message:
          'is not allowed in a change set (change sets, imports, API keys, webhook endpoints, apps, installs, install links, logos and previews are not operations)',
      });
    for (const target of pathRefs(operation.path)) refProblem(index, `${at}.path`, target);
    const sites: RefSite[] = [];
    bodyRefs(operation.body, '', sites);
    for (const site of sites) refProblem(index, `${at}.body.${site.field}`, site.target);
  });
  return problems;
}

interface ErrorBody {
  error?: { code?: string; message?: string; details?: ErrorDetail[] };
}

function errorOf(answer: Dispatched): { code: ErrorCode; message: string; details: ErrorDetail[] } {
  const error = (answer.body as ErrorBody | null)?.error ?? {};
  return {
    code: (error.code ?? 'INTERNAL_ERROR') as ErrorCode,
    message: error.message ?? 'The operation failed.',
    details: error.details ?? [],
  };
}

/** A detail of operation `index`'s body, its field put under `operations[i].body.`. */
function underOperation(index: number, detail: ErrorDetail, part = 'body'): ErrorDetail {
  const field = `operations[${index}].${part}.${detail.field}`;
  const message = detail.message.startsWith(detail.field)
    ? `${field}${detail.message.slice(detail.field.length)}`
    : detail.message;
  return { field, message };
}

/** The scope a 403's WWW-Authenticate names (`scope="<scope>"`). */
function missingScope(answer: Dispatched): Scope {
  const header = String(answer.headers['www-authenticate'] ?? '');
  return (/scope="([^"]+)"/.exec(header)?.[1] ?? 'unknown') as Scope;
}

const unknownPath = (index: number, message: string): ErrorDetail => ({
  field: `operations[${index}].path`,
  message,
});

/**
 * The check pass: each operation's route, scopes (link scopes too) and body, with `$ref`s standing as a
 * well-formed id, before anything runs. The first missing scope is the answer (403); else every 422 at once.
 */
async function check(
  operations: ChangeSetOperation[],
  origin: Origin,
  actor: OperationScope['actor'],
  dispatch: Dispatch,
): Promise<void> {
  const problems = shapeProblems(operations);
  let refused: AppError | undefined;
  await runAsOperation({ pass: 'check', origin, actor }, async () => {
    for (const [index, operation] of operations.entries()) {
      if (NOT_OPERATIONS.test(operation.path)) continue;
      const sites: RefSite[] = [];
      bodyRefs(operation.body, '', sites);
      const answer = await dispatch({
        method: operation.method,
        path: substitutePath(operation.path, () => PLACEHOLDER_ID),
        body: substituteBody(operation.body, undefined, () => PLACEHOLDER_ID),
        ...(operation.if_match !== undefined ? { ifMatch: operation.if_match } : {}),
      });
      if (answer.status < 400) continue;
      if (answer.status === 403) {
        refused ??= insufficientScope(missingScope(answer));
        continue;
      }
      if (answer.status === 404 || answer.status === 405) {
        problems.push(unknownPath(index, `is no ${operation.method} route of the API`));
        continue;
      }
      const error = errorOf(answer);
      if (error.code !== 'VALIDATION_ERROR') {
        problems.push(unknownPath(index, error.message));
        continue;
      }
      // A `$ref` stood as an id no object has: the route's reference checks named it, which is not an error.
      const refFields = new Set(sites.map((site) => site.field));
      for (const detail of error.details)
        if (!refFields.has(detail.field)) problems.push(underOperation(index, detail));
    }
  });
  if (refused) throw refused;
  if (problems.length > 0) throw validationError(problems);
}

/** The operations act as the set's caller: over /v1, or through the MCP server. */
const actorOf = (ctx: Context): OperationScope['actor'] => (ctx.actor.type === 'mcp' ? 'mcp' : 'api_key');

class Rollback {
  constructor(readonly results: ChangeSetResult[]) {}
}

/** The top-level fields an update changed, with their values before it (`updated_at` aside). */
function previousAttributes(before: unknown, after: unknown): Record<string, unknown> {
  const previous: Record<string, unknown> = {};
  if (!before || typeof before !== 'object' || !after || typeof after !== 'object') return previous;
  for (const [key, value] of Object.entries(after as Record<string, unknown>)) {
    if (key === 'updated_at') continue;
    const old = (before as Record<string, unknown>)[key];
    if (JSON.stringify(old) !== JSON.stringify(value)) previous[key] = old ?? null;
  }
  return previous;
}

function headerOf(answer: Dispatched, name: string): string | undefined {
  const value = answer.headers[name];
  return typeof value === 'string' ? value : undefined;
}

/** Runs every operation in `ctx`'s transaction, in order; throws the first failure as the set's answer. */
async function runAll(
  tx: Context,
  operations: ChangeSetOperation[],
  origin: Origin,
  dryRun: boolean,
  dispatch: Dispatch,
): Promise<ChangeSetResult[]> {
  const ids: string[] = [];
  const results: ChangeSetResult[] = [];
  const idOf = (target: number) => ids[target] ?? PLACEHOLDER_ID;
  await runAsOperation({ pass: 'run', db: tx.db, origin, actor: actorOf(tx) }, async () => {
    for (const [index, operation] of operations.entries()) {
      const path = substitutePath(operation.path, idOf);
      let before: unknown;
      if (dryRun && operation.method === 'PUT') {
        const read = await runAsOperation({ pass: 'read', db: tx.db, origin, actor: actorOf(tx) }, () =>
          dispatch({ method: 'GET', path: path.split('?')[0] ?? path }),
        );
        if (read.status === 200) before = (read.body as { data?: unknown }).data;
      }
      const answer = await dispatch({
        method: operation.method,
        path,
        body: substituteBody(operation.body, undefined, idOf),
        ...(operation.if_match !== undefined ? { ifMatch: operation.if_match } : {}),
      });
      if (answer.status >= 400) {
        if (answer.status === 404)
          throw validationError([unknownPath(index, 'names an object this account does not have')]);
        const error = errorOf(answer);
        throw new AppError(
          error.code,
          `Operation ${index} failed: ${error.message}`,
          error.details.map((detail) => underOperation(index, detail)),
        );
      }
      const data = (answer.body as { data?: unknown } | null)?.data ?? null;
      const id = (data as { id?: unknown } | null)?.id;
      ids[index] = typeof id === 'string' ? id : PLACEHOLDER_ID;
      const location = headerOf(answer, 'location');
      const etag = headerOf(answer, 'etag');
      const result: ChangeSetResult = { status: answer.status, data };
      if (location !== undefined) result.location = location;
      if (etag !== undefined) result.etag = etag;
      if (before !== undefined) result.previous_attributes = previousAttributes(before, data);
      results.push(result);
    }
  });
  return results;
}

/** POST /v1/change-sets: checked, then run in one transaction (rolled back after answering for a dry run). */
export async function applyChangeSet(
  ctx: Context,
  input: CreateChangeSetInput,
  dispatch: Dispatch,
): Promise<ChangeSet> {
  const id = newId();
  const origin: Origin = { type: 'change_set', id };
  const dryRun = input.dry_run === true;
  await check(input.operations, origin, actorOf(ctx), dispatch);
  let results: ChangeSetResult[];
  try {
    results = await inTransaction(ctx, async (tx) => {
      const done = await runAll(tx, input.operations, origin, dryRun, dispatch);
      if (dryRun) throw new Rollback(done);
      return done;
    });
  } catch (error) {
    if (!(error instanceof Rollback)) throw error;
    results = error.results;
  }
  return { id, object: 'change_set', dry_run: dryRun, results };
}
