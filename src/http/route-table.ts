// Every registered route, kept so that auth tests can be generated from it and so a known path with
// the wrong method can be answered 405 with an Allow header.
import type { FastifyInstance, RouteOptions } from 'fastify';

export interface RouteEntry {
  method: string;
  url: string;
  scope: string | undefined;
}

export class RouteTable {
  readonly routes: RouteEntry[] = [];
  private readonly patterns = new Map<string, { regex: RegExp; methods: Set<string> }>();

  record(route: RouteOptions): void {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    let entry = this.patterns.get(route.url);
    if (!entry) {
      const regex = new RegExp(
        `^${route.url
          .split('/')
          .map((part) => (part.startsWith(':') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
          .join('/')}$`,
      );
      entry = { regex, methods: new Set() };
      this.patterns.set(route.url, entry);
    }
    for (const method of methods) {
      entry.methods.add(method);
      if (method !== 'HEAD') this.routes.push({ method, url: route.url, scope: route.config?.scope });
    }
  }

  /** The methods a path accepts, or an empty list when no route has that path. */
  allowedMethods(path: string): string[] {
    const methods = new Set<string>();
    for (const { regex, methods: routeMethods } of this.patterns.values()) {
      if (regex.test(path)) for (const method of routeMethods) methods.add(method);
    }
    return [...methods].sort();
  }
}

export function trackRoutes(app: FastifyInstance, table: RouteTable): void {
  app.addHook('onRoute', (route) => table.record(route));
}
