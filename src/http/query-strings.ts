// Query strings are strict, like bodies: a route without query parameters refuses any (422, as the
// contract says of unknown parameters), and an integer parameter takes only decimal digits ("0x10",
// "1e2" and "16.0" are refused rather than read as 16, 100 and 16 by the validator's type coercion).
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { validationError, type ErrorDetail } from '../core/errors.js';
import { addRouteHook } from './route-hooks.js';

const NO_QUERY = { type: 'object', properties: {}, additionalProperties: false };
const DECIMAL_INTEGER = /^-?\d+$/;

type QuerySchema = { properties?: Record<string, { type?: unknown }> };

function integerParameters(route: RouteOptions): string[] {
  const properties = (route.schema?.querystring as QuerySchema | undefined)?.properties ?? {};
  return Object.entries(properties)
    .filter(([, schema]) => schema.type === 'integer')
    .map(([name]) => name);
}

/** Each route's integer parameters, found once per route schema rather than on every request. */
const integerNamesBySchema = new WeakMap<object, string[]>();

function integerParametersOf(request: FastifyRequest): string[] {
  const route = request.routeOptions as unknown as RouteOptions;
  const schema = route.schema;
  if (!schema) return integerParameters(route);
  let names = integerNamesBySchema.get(schema);
  if (!names) {
    names = integerParameters(route);
    integerNamesBySchema.set(schema, names);
  }
  return names;
}

export function registerStrictQueries(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    if (route.config?.scope && !route.schema?.querystring) route.schema = { ...route.schema, querystring: NO_QUERY };
  });
  addRouteHook(
    app,
    (route) => integerParameters(route).length > 0,
    'preValidation',
    (request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void) => {
      const query = request.query as Record<string, unknown>;
      const details: ErrorDetail[] = [];
      for (const name of integerParametersOf(request)) {
        const value = query[name];
        if (value !== undefined && (typeof value !== 'string' || !DECIMAL_INTEGER.test(value)))
          details.push({ field: name, message: 'must be a whole number written in decimal digits' });
      }
      done(details.length > 0 ? validationError(details) : undefined);
    },
  );
}
