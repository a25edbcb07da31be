// POST /v1/change-sets (docs/api-contract.md §26): the set's checks and run are the service's; each operation is
// a request to this app itself (`inject`), so it runs through its route's own code: authentication, scopes,
// schema, handler and answer, in the set's transaction (kernel/operation-scope.ts).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { auth, contextOf } from '../../http/auth.js';
import { ok } from '../../http/envelope.js';
import { IdempotencyHeaders } from '../../http/idempotency.js';
import { selfDispatch } from '../../http/self-dispatch.js';
import { rateLimited, type RateLimiter } from '../../http/rate-limit/rate-limiter.js';
import { BODY_ERRORS, dataEnvelope, errorResponses, IDEMPOTENCY_ERRORS, schemaRef } from '../../http/schemas.js';
import { applyChangeSet, ChangeSetSchema, CreateChangeSetBody, type CreateChangeSetInput } from './index.js';

export const changeSetRoutes =
  (options: { limiter: RateLimiter }): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.post(
      '/v1/change-sets',
      {
        // No scope of its own: each operation's scopes are checked (§26). Its own transaction: the service's.
        config: { authenticated: true, ownTransaction: true },
        schema: {
          tags: ['Change sets'],
          operationId: 'createChangeSet',
          summary: 'Apply a change set: up to 50 operations, all or none',
          description:
            'Runs 1–50 POST, PUT and DELETE operations of the API in order in one transaction, each through its route’s own code: all commit or none. Every operation’s scopes and body are checked before any runs; `"$ref:<j>"` in a path segment or an id field is the id operation j answered. Takes one rate-limit token per operation. `dry_run: true` answers the same and leaves nothing behind. Answers 200 either way.',
          headers: IdempotencyHeaders,
          body: CreateChangeSetBody,
          response: {
            200: dataEnvelope(schemaRef(ChangeSetSchema)),
            ...errorResponses(
              ...BODY_ERRORS,
              ...IDEMPOTENCY_ERRORS,
              'INSUFFICIENT_SCOPE',
              'INVALID_STATE',
              'PRECONDITION_FAILED',
              'NOT_FOUND',
              'RATE_LIMITED',
            ),
          },
        },
      },
      async (request, reply) => {
        const body = request.body as CreateChangeSetInput;
        const admission = await options.limiter.admitMore(auth(request), app.clock.now(), body.operations.length - 1);
        if (admission) {
          reply.headers(admission.headers);
          if (!admission.allowed) throw rateLimited(admission.retryAfter, admission.headers);
        }
        return ok(request, await applyChangeSet(contextOf(request), body, selfDispatch(request)));
      },
    );
  };
