// Every registered route, kept so that auth tests can be generated from it and so a known path with
// the wrong method can be answered 405 with an Allow header.
import type { FastifyInstance, RouteOptions } from 'fastify';

export interface RouteEntry {
  method: string;
  url: string;
  scope: string | undefined;
}

/** A route with a direct handler (http/direct-route.ts), with its path's pattern and parameters' names. */
export interface DirectRoute {
  route: RouteOptions;
  regex: RegExp;
  names: string[];
}

export class RouteTable {
  readonly routes: RouteEntry[] = [];
  private readonly patterns = new Map<string, { regex: RegExp; methods: Set<string> }>();
  private readonly direct = new Map<string, DirectRoute[]>();
  /** `METHOD /path` of the routes without parameters, which Fastify's router prefers to a parametric one. */
  private readonly fixed = new Set<string>();

  record(route: RouteOptions): void {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (route.config?.direct) this.recordDirect(route, methods);
    if (!route.url.includes(':')) for (const method of methods) this.fixed.add(`${method} ${route.url}`);
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

  private recordDirect(route: RouteOptions, methods: string[]): void {
    const names: string[] = [];
    const pattern = route.url
      .split('/')
      .map((part) => {
        if (!part.startsWith(':')) return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
        names.push(part.slice(1));
        return '([^/]+)';
      })
      .join('/');
    for (const method of methods) {
      const routes = this.direct.get(method) ?? [];
      routes.push({ route, regex: new RegExp(`^${pattern}$`), names });
      this.direct.set(method, routes);
    }
  }

  /** The route with a direct handler that `method` and `path` (no query) reach, with its parameters; or undefined. */
  directRoute(method: string, path: string): { route: RouteOptions; params: Record<string, string> } | undefined {
    if (this.fixed.has(`${method} ${path}`) && !this.direct.get(method)?.some(({ route }) => route.url === path))
      return undefined;
    for (const { route, regex, names } of this.direct.get(method) ?? []) {
      const match = regex.exec(path);
      if (!match) continue;
      const params: Record<string, string> = {};
      try {
        for (const [index, name] of names.entries()) params[name] = decodeURIComponent(match[index + 1] as string);
      } catch {
        return undefined;
      }
      return { route, params };
    }
    return undefined;
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
