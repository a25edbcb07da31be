// Hooks attached only to the routes that need them (from onRoute), so that no request pays for a hook
// that has nothing to do for it: authentication on routes with a scope, idempotency on POSTs, the NUL
// check on routes with a query.
import type { FastifyInstance, RouteOptions } from 'fastify';

type RouteHookName = 'onRequest' | 'preValidation' | 'preHandler' | 'onSend';

export function addRouteHook(
  app: FastifyInstance,
  applies: (route: RouteOptions) => boolean,
  name: RouteHookName,
  hook: NonNullable<RouteOptions[RouteHookName]>,
): void {
  addRouteHookOf(app, applies, name, () => hook);
}

/**
 * The same, with a hook made for each route from its options (its scope, say), so that the hook does not read
 * them back from the request (`request.routeOptions` is a new object at each read).
 */
export function addRouteHookOf(
  app: FastifyInstance,
  applies: (route: RouteOptions) => boolean,
  name: RouteHookName,
  make: (route: RouteOptions) => NonNullable<RouteOptions[RouteHookName]>,
): void {
  app.addHook('onRoute', (route) => {
    if (!applies(route)) return;
    const hook = make(route);
    const existing = route[name];
    const hooks = existing === undefined ? [] : Array.isArray(existing) ? existing : [existing];
    (route as Record<RouteHookName, unknown>)[name] = [...hooks, ...(Array.isArray(hook) ? hook : [hook])];
  });
}

export const hasScope = (route: RouteOptions): boolean => Boolean(route.config?.scope);
/** Routes that need a key: those with a scope, and those that check scopes themselves (`authenticated`). */
export const needsKey = (route: RouteOptions): boolean => hasScope(route) || Boolean(route.config?.authenticated);
export const isPost = (route: RouteOptions): boolean => ([] as string[]).concat(route.method).includes('POST');
/** POSTs whose answers may be kept for replay: not those that answer a secret shown once (`answersSecret`). */
export const isReplayablePost = (route: RouteOptions): boolean => isPost(route) && !route.config?.answersSecret;
