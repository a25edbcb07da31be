// The check pass of a change set's operations (docs/api-contract.md §26): a request the change set makes in its
// `check` scope goes through authentication, its scope, its link scopes and its body's schema, then stops before
// the handler with 204, so that every operation is checked before any of them runs.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { currentOperation } from '../kernel/operation-scope.js';
import { requireScope } from './auth.js';
import { addRouteHookOf, needsKey } from './route-hooks.js';

export function registerOperationChecks(app: FastifyInstance): void {
  addRouteHookOf(app, needsKey, 'preHandler', (route) => {
    const linkScopes = Object.entries(route.config?.linkScopes ?? {});
    return async (request: FastifyRequest, reply: FastifyReply) => {
      if (currentOperation()?.pass !== 'check') return;
      const body = (request.body ?? {}) as Record<string, unknown>;
      for (const [field, scope] of linkScopes) if (body[field] !== undefined) requireScope(request, scope);
      reply.code(204);
      return reply.send();
    };
  });
}
