// Query strings are strict, like bodies: a route without query parameters refuses any (422, as the
// contract says of unknown parameters), and an integer parameter takes only decimal digits ("0x10",
// "1e2" and "16.0" are refused rather than read as 16, 100 and 16 by the validator's type coercion). A list
// filter (`x-comma-list`) takes `status=a,b` and also `status=a&status=b`, as generated clients that explode
// arrays send it: the repeated values are joined with commas before validation.
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { validationError, type ErrorDetail } from '../core/errors.js';
import { COMMA_LIST } from './openapi-document.js';
import { addRouteHookOf } from './route-hooks.js';

const NO_QUERY = { type: 'object', properties: {}, additionalProperties: false };
const DECIMAL_INTEGER = /^-?\d+$/;

type QuerySchema = { properties?: Record<string, { type?: unknown; [COMMA_LIST]?: unknown }> };

function integerParameters(route: RouteOptions): string[] {
  const properties = (route.schema?.querystring as QuerySchema | undefined)?.properties ?? {};
  return Object.entries(properties)
    .filter(([, schema]) => schema.type === 'integer')
    .map(([name]) => name);
}

function listParameters(route: RouteOptions): string[] {
  const properties = (route.schema?.querystring as QuerySchema | undefined)?.properties ?? {};
  return Object.entries(properties)
    .filter(([, schema]) => schema[COMMA_LIST] !== undefined)
    .map(([name]) => name);
}

export function registerStrictQueries(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    if (route.config?.scope && !route.schema?.querystring) route.schema = { ...route.schema, querystring: NO_QUERY };
  });
  addRouteHookOf(
    app,
    (route) => listParameters(route).length > 0,
    'preValidation',
    (route) => {
      const names = listParameters(route);
      return (request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void) => {
        const query = request.query as Record<string, unknown>;
        for (const name of names) {
          const value = query[name];
          if (Array.isArray(value)) query[name] = value.join(',');
        }
        done();
      };
    },
  );
  // The route's integer parameters, found once when the route is made rather than on every request.
  addRouteHookOf(
    app,
    (route) => integerParameters(route).length > 0,
    'preValidation',
    (route) => {
      const names = integerParameters(route);
      return (request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void) => {
        const query = request.query as Record<string, unknown>;
        let details: ErrorDetail[] | undefined;
        for (const name of names) {
          const value = query[name];
          if (value !== undefined && (typeof value !== 'string' || !DECIMAL_INTEGER.test(value)))
            (details ??= []).push({ field: name, message: 'must be a whole number written in decimal digits' });
        }
        done(details ? validationError(details) : undefined);
      };
    },
  );
}
