// The /mcp route (docs/api-contract.md §20), on the app's own port. It is authenticated and rate-limited by the
// same hook as /v1 (config.authenticated), so a missing or bad key is the same 401 with WWW-Authenticate and
// every request takes a token of the key's own bucket; each tool checks its own scope. The protocol SDK is
// loaded on the first call, so a server that never serves MCP does not pay its start-up time.
import type { FastifyInstance } from 'fastify';

type Server = typeof import('./server.js');
let loading: Promise<Server> | undefined;

export function mcpRoutes(headers: Record<string, string>) {
  return async (app: FastifyInstance) => {
    app.post(
      '/mcp',
      { config: { authenticated: true, ownTransaction: true, resourceMetadata: true }, schema: { hide: true } },
      async (request, reply) => {
        loading ??= import('./server.js');
        await (await loading).serveMcp(request, reply, headers);
      },
    );
  };
}
