// The tag endpoints of a tagged kind (contract §27): `POST <path>/:id/tags` and `DELETE <path>/:id/tags/:tag`,
// declared by http/resource-routes.ts for a standard resource and by a kind's own routes file otherwise.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type, type TSchema } from '@sinclair/typebox';
import type { Context } from '../kernel/context.js';
import type { Scope } from '../kernel/scopes.js';
import { contextOf } from './auth.js';
import type { ok } from './envelope.js';
import { IdempotencyHeaders } from './idempotency.js';
import { article, pascal, type TagSeam } from './resource-definition.js';
import { BODY_ERRORS, IDEMPOTENCY_ERRORS, dataEnvelope, errorResponses, IdParamsSchema } from './schemas.js';

/** The path of one tag of one object: `/v1/<kind>/{id}/tags/{tag}`. */
const TagParamsSchema = Type.Object({
  id: IdParamsSchema.properties.id,
  tag: Type.String({ minLength: 1, maxLength: 200, description: 'The tag, any case (URL-encoded).', example: 'VIP' }),
});

/**
 * `POST <path>/:id/tags` (adds) and `DELETE <path>/:id/tags/:tag` (removes) of a tagged kind, with its write scope;
 * `answer` writes the object's answer as the kind's other routes do.
 */
export function tagRoutes<Item extends { id: string }>(
  app: Parameters<FastifyPluginAsyncTypebox>[0],
  options: {
    path: string;
    singular: string;
    tags: string[];
    scope: Scope;
    item: TSchema;
    seam: TagSeam;
    get: (tx: Context, id: string) => Promise<Item>;
    answer: (
      request: FastifyRequest,
      reply: FastifyReply,
      ctx: Context,
      done: Item,
    ) => Promise<ReturnType<typeof ok<unknown>>>;
  },
): void {
  const { path, singular, tags, scope, item, seam, get } = options;
  app.post(
    `${path}/:id/tags`,
    {
      config: { scope },
      schema: {
        tags,
        operationId: `add${pascal(singular)}Tags`,
        summary: `Add tags to ${article(singular)}`,
        description:
          'Adds the tags the object does not hold yet (case-insensitive; a tag the account has keeps its spelling), under the object’s lock: two writers adding at once both keep theirs.',
        params: IdParamsSchema,
        headers: IdempotencyHeaders,
        body: seam.body,
        response: {
          200: dataEnvelope(item),
          ...errorResponses(...BODY_ERRORS, ...IDEMPOTENCY_ERRORS, 'NOT_FOUND'),
        },
      },
    },
    async (request, reply) => {
      const ctx = contextOf(request);
      const added = (request.body as { tags: string[] }).tags;
      const params = request.params as { id: string };
      return options.answer(request, reply, ctx, await seam.change(ctx, params.id, { add: added }, get));
    },
  );
  app.delete(
    `${path}/:id/tags/:tag`,
    {
      config: { scope },
      schema: {
        tags,
        operationId: `remove${pascal(singular)}Tag`,
        summary: `Remove a tag from ${article(singular)}`,
        description: 'Removes one tag (any case) and answers the object; a tag it does not hold changes nothing.',
        params: TagParamsSchema,
        response: { 200: dataEnvelope(item), ...errorResponses('NOT_FOUND') },
      },
    },
    async (request, reply) => {
      const ctx = contextOf(request);
      const { id, tag } = request.params as { id: string; tag: string };
      return options.answer(request, reply, ctx, await seam.change(ctx, id, { remove: tag }, get));
    },
  );
}
