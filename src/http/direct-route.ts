// An import's rows written through their routes' own code without the HTTP machinery (docs/api-contract.md §26;
// docs/decisions.md, "Imports: one row path without HTTP"). A row's POST or PUT on a route that declares a direct
// handler (`config.direct`: a resource's create and update, http/resource-routes.ts) takes the steps a request
// would, each by the same code: the caller's scope (http/auth.ts), the path's parameters and the body as the JSON
// parser reads it (http/json-body.ts), the body's schema by the validator the route compiled (http/validation.ts),
// the route's own code, and a refusal as the error handler words it, with its field and reference checks
// (http/error-handler.ts). What it leaves out is HTTP's alone: the request's object, its hooks, its log line, its
// metrics and the answer's serialization. Anything else (a read, a request with If-Match, a route without a
// direct handler, a request outside an import's `run` pass) is injected as before (`appDispatch`).
import type { FastifyInstance, RouteOptions } from 'fastify';
import { newId } from '../core/deps.js';
import { AppError } from '../core/errors.js';
import { insufficientScope } from '../kernel/auth-context.js';
import { currentOperation, type OperationScope } from '../kernel/operation-scope.js';
import { operationContext } from './auth.js';
import { errorBody, internalError, isStorageUnavailable, toAppError, withFieldChecks } from './error-handler.js';
import { parseJsonBody } from './json-body.js';
import { appDispatch, type SelfAnswer, type SelfDispatch, type SelfRequest } from './self-dispatch.js';
import { schemaCompiler } from './validation.js';

type Validator = ((data: unknown) => boolean) & { errors?: unknown[] | null };

const validators = new WeakMap<object, Validator>();

/**
 * The route's validator of one part: the one the route compiled (`schemaCompiler` keeps each schema's, by its
 * JSON), found once per schema object.
 */
function validatorOf(route: RouteOptions, httpPart: 'body' | 'params', schema: object): Validator {
  let validator = validators.get(schema);
  if (validator === undefined) {
    validator = schemaCompiler({ schema, httpPart, method: route.method as never, url: route.url }) as Validator;
    validators.set(schema, validator);
  }
  return validator;
}

/** An error thrown as Fastify throws a schema's refusal, for `toAppError`. */
function schemaRefusal(validator: Validator, part: 'body' | 'params'): Error {
  return Object.assign(new Error('validation'), { validation: validator.errors ?? [], validationContext: part });
}

/**
 * Several creates on one route at once (`POST path` with each body), written together by its `directMany`: their
 * objects' ids in the bodies' order; undefined when the route has none, when any body is refused (its scope, its
 * JSON, its schema, the service's checks) or on any fault, for the caller to make them one by one and learn which
 * (a refusal may have ended the transaction: the caller runs it again). Only in an import's `run` pass.
 */
export type CreateMany = (path: string, bodies: readonly unknown[]) => Promise<string[] | undefined>;

/**
 * Requests to `app` as `appDispatch` makes them, a row's create or update taking its route's direct handler, and
 * `createMany`: what the imports worker writes rows with.
 */
export function directDispatch(app: FastifyInstance): SelfDispatch & { createMany: CreateMany } {
  return Object.assign(dispatchOne(app), { createMany: createManyOf(app) });
}

function createManyOf(app: FastifyInstance): CreateMany {
  return async (path, given) => {
    const operation = currentOperation();
    const direct = operation?.pass === 'run' ? app.routeTable.directRoute('POST', path) : undefined;
    const caller = operation?.auth;
    const handler = direct?.route.config?.directMany;
    if (!direct || caller === undefined || handler === undefined) return undefined;
    const { route } = direct;
    const config = route.config ?? {};
    const schema = route.schema ?? {};
    if (config.scope !== undefined && !caller.scopes.has(config.scope)) return undefined;
    try {
      const bodies: unknown[] = [];
      for (const one of given) {
        const body = parseJsonBody(JSON.stringify(one), Boolean(schema.body));
        if (schema.body && !validatorOf(route, 'body', schema.body as object)(body)) return undefined;
        bodies.push(body);
      }
      const made = await handler(operationContext(app, caller, operation as OperationScope), {
        bodies,
        scopes: caller.scopes,
      });
      return made.map((object) => object.id);
    } catch {
      return undefined;
    }
  };
}

function dispatchOne(app: FastifyInstance): SelfDispatch {
  const injected = appDispatch(app);
  return (request) => {
    const operation = currentOperation();
    const path = request.path;
    const direct =
      operation?.pass === 'run' && operation.auth !== undefined && request.ifMatch === undefined && !path.includes('?')
        ? app.routeTable.directRoute(request.method, path)
        : undefined;
    if (!direct) return injected(request);
    return runDirect(app, direct.route, direct.params, request, operation as OperationScope);
  };
}

async function runDirect(
  app: FastifyInstance,
  route: RouteOptions,
  params: Record<string, string>,
  request: SelfRequest,
  operation: OperationScope,
): Promise<SelfAnswer> {
  const caller = operation.auth!;
  const config = route.config ?? {};
  const schema = route.schema ?? {};
  let body: unknown;
  let validationContext: string | undefined;
  const context = () => operationContext(app, caller, operation);
  try {
    // As the route's onRequest hook checks it for an import's row (http/auth.ts), before the body is read.
    if (config.scope !== undefined && !caller.scopes.has(config.scope)) throw insufficientScope(config.scope);
    if (schema.params) {
      const validate = validatorOf(route, 'params', schema.params as object);
      // A path the route's parameters refuse: Fastify's answer, as it words it (`NOT_FOUND`).
      if (!validate(params)) return await appDispatch(app)(request);
    }
    body = request.body === undefined ? undefined : parseJsonBody(JSON.stringify(request.body), Boolean(schema.body));
    if (schema.body) {
      const validate = validatorOf(route, 'body', schema.body as object);
      if (!validate(body)) {
        validationContext = 'body';
        throw schemaRefusal(validate, 'body');
      }
    }
    const data = await config.direct!(context(), { params, body, scopes: caller.scopes });
    const status = request.method === 'POST' ? 201 : 200;
    return { status, headers: {}, body: { data } };
  } catch (error) {
    return refused(app, error as Error, { body, validationContext, config, caller, context });
  }
}

/** A refusal as the error handler answers it (http/error-handler.ts); a fault is logged and answered `500`. */
async function refused(
  app: FastifyInstance,
  error: Error,
  route: Parameters<typeof withFieldChecks>[1],
): Promise<SelfAnswer> {
  const code = typeof (error as { code?: unknown }).code === 'string' ? String((error as { code?: unknown }).code) : '';
  if (isStorageUnavailable(code)) {
    app.storage.failed(app.clock.now());
    app.log.error({ err: error }, 'storage unavailable');
  }
  const appError = toAppError(error);
  let answered: AppError;
  if (appError) answered = await withFieldChecks(appError, route);
  else {
    const id = newId();
    app.log.error({ err: error, reqId: id }, 'unhandled error');
    answered = internalError(id);
  }
  return { status: answered.status, headers: { ...answered.headers }, body: { error: errorBody(answered) } };
}
