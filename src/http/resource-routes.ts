// The endpoints of a resource (list, create, get, update, delete where it has one, and actions such as send),
// declared once: each resource's routes file states its schemas, scopes and service functions (its
// ResourceDefinition, http/resource-definition.ts).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { TSchema, Static } from '@sinclair/typebox';
import type { Context } from '../kernel/context.js';
import { auth, contextOf, insufficientScope, requireScope } from './auth.js';
import { etagOfJson, ifMatch, IfMatchHeaders, sentJson, sentJsonFingerprint } from './etag.js';
import { IdempotencyHeaders } from './idempotency.js';
import { envelopeJson, JSON_CONTENT_TYPE, ok } from './envelope.js';
import { answerList, jsonPage, type listResponse } from './pagination.js';
import {
  article,
  fieldChecksOf,
  pascal,
  patternFiltersDescription,
  type ResourceDefinition,
} from './resource-definition.js';
import {
  BODY_ERRORS,
  IDEMPOTENCY_ERRORS,
  dataEnvelope,
  DeletedSchema,
  errorResponses,
  IdParamsSchema,
  listEnvelope,
  schemaRef,
} from './schemas.js';
import { tagRoutes } from './tag-routes.js';
import type { DirectManyInput } from './fastify-types.js';

export function resourceRoutes<Row, Item, Create extends TSchema, Update extends TSchema, Query extends TSchema>(
  definition: ResourceDefinition<Row, Item, Create, Update, Query>,
): FastifyPluginAsyncTypebox {
  const { path, names, scopes, schemas, service, kept, customFields } = definition;
  const [singular, plural] = names;
  const tags = [plural.charAt(0).toUpperCase() + plural.slice(1)];
  const item = schemaRef(schemas.item);
  const stateErrors = definition.stateErrors ?? [];

  return async (app) => {
    /**
     * The object's JSON as its answers carry it (fast-json-stringify of the item's schema, the serializer the
     * envelope's own uses for `data`), compiled at the first answer, or the JSON kept with it (definition.kept).
     * The ETag is the hash of these bytes, and If-Match is compared with the current object's the same way.
     */
    let serializeItem: ((data: unknown) => string) | undefined;
    const write = (data: Item) => serializeItem!(data);
    const itemJson = (reply: FastifyReply, data: Item): string => {
      serializeItem ??= sentJson(reply, item);
      return kept ? kept.json(data, write) : serializeItem(data);
    };
    /** Completes an answer's custom fields (the identity for a kind without the seam). */
    const completerOf = async (ctx: Context): Promise<<T>(item: T) => T> =>
      customFields ? customFields.answers(ctx) : (item) => item;
    /** The fingerprint of the current object, completed as its answers were when their ETag was made. */
    const fingerprintOf = (reply: FastifyReply, complete: <T>(item: T) => T = (item) => item) => {
      const fingerprint = sentJsonFingerprint(reply, item);
      // A shallow copy completed: the service may still compare the object it passed with its next state.
      return (current: unknown) => fingerprint(complete({ ...(current as object) }));
    };
    /**
     * The answer of one object with its ETag: the envelope's JSON written around the object's (serialized once
     * for both), which Fastify sends as it is (a string with a JSON content type). The headers come in the order
     * they did when Fastify serialized the envelope: ETag, then Location (201), then Content-Type.
     */
    const answer = (request: FastifyRequest, reply: FastifyReply, data: Item, location?: string) => {
      const json = itemJson(reply, data);
      reply.header('etag', kept ? kept.etag(data, json, etagOfJson) : etagOfJson(json));
      if (location !== undefined) reply.code(201).header('location', location);
      reply.header('content-type', JSON_CONTENT_TYPE);
      // Typed as the envelope the route's schema declares: this string is that envelope's JSON.
      return envelopeJson(request, json) as unknown as ReturnType<typeof ok<unknown>>;
    };

    app.get(
      path,
      {
        config: { scope: scopes.read },
        schema: {
          tags,
          operationId: `list${pascal(plural)}`,
          summary: `List ${plural}`,
          ...patternFiltersDescription(schemas.list),
          querystring: schemas.list,
          response: { 200: listEnvelope(item), ...errorResponses('VALIDATION_ERROR') },
        },
      },
      async (request, reply) => {
        const query = request.query as Static<Query> & { limit?: number };
        const ctx = contextOf(request);
        /** The page at `cursor` (else the query's own), each object's JSON as the other answers write it. */
        const read = async (cursor?: string) => {
          const now = app.clock.now();
          const page = await service.list(ctx, cursor === undefined ? query : { ...query, cursor }, now);
          const complete = await completerOf(ctx);
          return jsonPage(
            page,
            (row) => complete(service.present(row, now)),
            (data) => itemJson(reply, data),
          );
        };
        // Typed as the envelope the route's schema declares: this string is that envelope's JSON.
        return (await answerList(request, reply, query.limit, read)) as unknown as ReturnType<typeof listResponse>;
      },
    );

    const create = service.create;
    /** A body's link scopes, which the create checks first. */
    const checkLinkScopes = (body: Static<Create>, scopes: ReadonlySet<string>) => {
      for (const [field, scope] of Object.entries(definition.linkScopes ?? {}))
        if ((body as Record<string, unknown>)[field] !== undefined && !scopes.has(scope))
          throw insufficientScope(scope);
    };
    /** The create's own code after the checks (the handler's, and the direct path's: http/direct-route.ts). */
    const createItem = (ctx: Context, body: Static<Create>, scopes: ReadonlySet<string>) => {
      checkLinkScopes(body, scopes);
      return (create as NonNullable<typeof create>)(ctx, body);
    };
    const createMany = service.createMany;
    if (create)
      app.post(
        path,
        {
          config: {
            scope: scopes.write,
            ...fieldChecksOf(definition, 'create'),
            ...(definition.linkScopes ? { linkScopes: definition.linkScopes } : {}),
            direct: (ctx, { body, scopes: held }) => createItem(ctx, body as Static<Create>, held),
            ...(createMany
              ? {
                  directMany: (ctx: Context, { bodies, scopes: held }: DirectManyInput) => {
                    for (const body of bodies) checkLinkScopes(body as Static<Create>, held);
                    return createMany(ctx, bodies as Static<Create>[]);
                  },
                }
              : {}),
          },
          schema: {
            tags,
            operationId: `create${pascal(singular)}`,
            summary: `Create ${article(singular)}`,
            headers: IdempotencyHeaders,
            body: schemas.create,
            response: {
              201: dataEnvelope(item),
              ...errorResponses(...BODY_ERRORS, ...IDEMPOTENCY_ERRORS, ...stateErrors),
            },
          },
        },
        async (request, reply) => {
          const ctx = contextOf(request);
          const item = await createItem(ctx, request.body as Static<Create>, auth(request).scopes);
          return answer(request, reply, (await completerOf(ctx))(item), `${path}/${item.id}`);
        },
      );

    app.get(
      `${path}/:id`,
      {
        config: { scope: scopes.read },
        schema: {
          tags,
          operationId: `get${pascal(singular)}`,
          summary: `Get ${article(singular)}`,
          params: IdParamsSchema,
          response: { 200: dataEnvelope(item), ...errorResponses('NOT_FOUND') },
        },
      },
      async (request, reply) => {
        const ctx = contextOf(request);
        const found = await service.get(ctx, request.params.id, app.clock.now());
        return answer(request, reply, (await completerOf(ctx))(found));
      },
    );

    app.put(
      `${path}/:id`,
      {
        config: {
          scope: scopes.write,
          ...fieldChecksOf(definition, 'update'),
          // Without If-Match (the direct path answers none: http/direct-route.ts).
          direct: (ctx, { params, body }) => service.update(ctx, params.id as string, body as Static<Update>),
        },
        schema: {
          tags,
          operationId: `update${pascal(singular)}`,
          summary: `Update ${article(singular)} (partial: absent fields are kept, null clears)`,
          params: IdParamsSchema,
          headers: IfMatchHeaders,
          body: schemas.update,
          response: {
            200: dataEnvelope(item),
            ...errorResponses(...BODY_ERRORS, 'NOT_FOUND', 'PRECONDITION_FAILED', ...stateErrors),
          },
        },
      },
      async (request, reply) => {
        const ctx = contextOf(request);
        const complete = await completerOf(ctx);
        const updated = await service.update(
          ctx,
          request.params.id,
          request.body as Static<Update>,
          ifMatch(request.headers['if-match'], fingerprintOf(reply, complete)),
        );
        return answer(request, reply, complete(updated));
      },
    );

    const remove = service.delete;
    if (scopes.delete && remove) {
      app.delete(
        `${path}/:id`,
        {
          config: { scope: scopes.delete },
          schema: {
            tags,
            operationId: `delete${pascal(singular)}`,
            summary: `Delete ${article(singular)}`,
            params: IdParamsSchema,
            headers: IfMatchHeaders,
            response: {
              200: dataEnvelope(DeletedSchema),
              ...errorResponses('NOT_FOUND', 'PRECONDITION_FAILED', ...stateErrors),
            },
          },
        },
        async (request, reply) => {
          const ctx = contextOf(request);
          const complete = await completerOf(ctx);
          return ok(
            request,
            await remove(ctx, request.params.id, ifMatch(request.headers['if-match'], fingerprintOf(reply, complete))),
          );
        },
      );
    }

    if (definition.tags)
      tagRoutes(app, {
        path,
        singular,
        tags,
        scope: scopes.write,
        item,
        seam: definition.tags,
        get: (tx, id) => service.get(tx, id, app.clock.now()) as Promise<Item & { id: string }>,
        answer: async (request, reply, ctx, done) => answer(request, reply, (await completerOf(ctx))(done)),
      });

    for (const action of definition.actions ?? []) {
      app.post(
        `${path}/:id/${action.name}`,
        {
          config: { scope: action.scope },
          // The second scope before the body is validated, as the first is (the contract's order of checks).
          ...(action.alsoScopes
            ? {
                preValidation: async (request: FastifyRequest) => {
                  for (const scope of action.alsoScopes ?? []) requireScope(request, scope);
                },
              }
            : {}),
          schema: {
            tags,
            operationId: action.operationId,
            summary: action.summary,
            description: action.description,
            params: IdParamsSchema,
            headers: IdempotencyHeaders,
            body: action.body,
            response: {
              200: dataEnvelope(item),
              ...errorResponses(...BODY_ERRORS, ...IDEMPOTENCY_ERRORS, 'NOT_FOUND', ...action.errors),
            },
          },
        },
        async (request, reply) => {
          const ctx = contextOf(request);
          const done = await action.run(ctx, request.params.id, request.body);
          return answer(request, reply, (await completerOf(ctx))(done));
        },
      );
    }
  };
}
