// The endpoints of a resource (list, create, get, update, delete where it has one, and actions such as send),
// declared once: each resource's routes file states its schemas, scopes and service functions.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyContextConfig, FastifyReply, FastifyRequest } from 'fastify';
import { Type, type TSchema, type Static } from '@sinclair/typebox';
import type { Context } from '../kernel/context.js';
import type { Scope } from '../kernel/scopes.js';
import { auth, contextOf, insufficientScope, requireScope } from './auth.js';
import type { ErrorDetail, Precondition } from '../core/errors.js';
import { etagOfJson, ifMatch, IfMatchHeaders, sentJson, sentJsonFingerprint } from './etag.js';
import { IdempotencyHeaders } from './idempotency.js';
import { envelopeJson, JSON_CONTENT_TYPE, ok } from './envelope.js';
import type { ErrorCode } from '../core/errors.js';
import type { Page } from '../db/index.js';
import { answerList, jsonPage, type listResponse } from './pagination.js';
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

/** 'webhook endpoint' → 'WebhookEndpoint', for operationIds such as `createWebhookEndpoint`. */
export const pascal = (words: string): string =>
  words.replace(/(?:^|\s)(\w)/g, (_, first: string) => first.toUpperCase());

/** The path of one tag of one object: `/v1/<kind>/{id}/tags/{tag}`. */
const TagParamsSchema = Type.Object({
  id: IdParamsSchema.properties.id,
  tag: Type.String({ minLength: 1, maxLength: 200, description: 'The tag, any case (URL-encoded).', example: 'VIP' }),
});

/**
 * The filters a list's query matches by pattern (custom fields: `custom_fields.<key>`), which an OpenAPI document
 * cannot list as parameters: said in the operation's description instead.
 */
export function patternFiltersDescription(query: TSchema): { description?: string } {
  const patterns = (query as { patternProperties?: Record<string, { description?: string }> }).patternProperties;
  const said = Object.values(patterns ?? {})
    .map((pattern) => pattern.description)
    .filter((text): text is string => text !== undefined);
  return said.length > 0 ? { description: said.join(' ') } : {};
}

/** 'a client', 'an invoice'. */
export const article = (noun: string): string => `${/^[aeiou]/i.test(noun) ? 'an' : 'a'} ${noun}`;

type FieldChecks = (body: unknown) => Promise<ErrorDetail[]>;

type ReferenceChecks = NonNullable<FastifyContextConfig['referenceChecks']>;

/**
 * A kind's custom fields (modules/custom-fields `customFieldSeam`): their checks, joined to the reference checks so
 * that one 422 names every wrong field, and the completion of every answer (each defined key, null when unset).
 */
export interface CustomFieldSeam {
  checks(creating: boolean, also?: ReferenceChecks): ReferenceChecks;
  answers(ctx: Pick<Context, 'db' | 'accountId'>): Promise<<T>(item: T) => T>;
}

/** A kind's tags (modules/tags `tagSeam`): `POST <path>/:id/tags` adds, `DELETE <path>/:id/tags/:tag` removes. */
export interface TagSeam {
  /** The add endpoint's body. */
  body: TSchema;
  /** Changes the object's tags under its lock and answers it as `get` does, after. */
  change<Item extends { id: string }>(
    ctx: Context,
    id: string,
    change: { add: readonly string[] } | { remove: string },
    get: (tx: Context, id: string) => Promise<Item>,
  ): Promise<Item>;
}

/** The route config that gives a create's or an update's field and reference checks, if the resource has them. */
function fieldChecksOf(
  definition: Pick<
    ResourceDefinition<never, never, TSchema, TSchema, TSchema>,
    'fieldChecks' | 'referenceChecks' | 'customFields'
  >,
  kind: 'create' | 'update',
) {
  const checks = definition.fieldChecks;
  const found = typeof checks === 'function' ? checks : checks?.[kind];
  const references = definition.referenceChecks;
  const referencesOwn = typeof references === 'function' ? references : references?.[kind];
  const referencesFound = definition.customFields
    ? definition.customFields.checks(kind === 'create', referencesOwn)
    : referencesOwn;
  return {
    ...(found ? { fieldChecks: found } : {}),
    ...(referencesFound ? { referenceChecks: referencesFound } : {}),
  };
}

export interface ResourceDefinition<Row, Item, Create extends TSchema, Update extends TSchema, Query extends TSchema> {
  path: string;
  /** Singular and plural names for summaries, e.g. ['quote', 'quotes']. */
  names: [string, string];
  scopes: { read: Scope; write: Scope; delete?: Scope };
  schemas: { item: TSchema & { $id?: string }; create: Create; update: Update; list: Query };
  /**
   * Body fields that name a second resource the create reads or changes, and the scope that takes (a job
   * from a quote converts it: `quote_id: 'quotes:write'`).
   */
  linkScopes?: Record<string, Scope>;
  /**
   * The resource's own field checks that need no database, reported with the schema's errors when it refuses
   * a body (http/field-checks.ts): one function for create and update, or one for each.
   */
  fieldChecks?: FieldChecks | { create?: FieldChecks; update?: FieldChecks };
  /**
   * The ids a body names, looked up together when a create or update is refused with a 422, so that the answer
   * names every unknown one beside the other wrong fields (http/error-handler.ts).
   */
  referenceChecks?: ReferenceChecks | { create?: ReferenceChecks; update?: ReferenceChecks };
  /** Error codes besides validation and lookup that update and delete can answer (e.g. INVALID_STATE). */
  stateErrors?: ErrorCode[];
  /** The kind's custom fields: checked with the body, completed in every answer (CustomFieldSeam). */
  customFields?: CustomFieldSeam;
  /** The kind's tags: the add and remove endpoints (TagSeam). */
  tags?: TagSeam;
  service: {
    /** `now` (read once per request) is for fields that depend on the date, such as is_overdue. */
    list(ctx: Context, query: Static<Query>, now: Date): Promise<Page<Row>>;
    present(row: Row, now: Date): Item;
    /** Absent for a resource whose create is not a JSON body (an attachment's upload): no POST is declared. */
    create?(ctx: Context, body: Static<Create>): Promise<Item & { id: string }>;
    get(ctx: Context, id: string, now: Date): Promise<Item>;
    update(ctx: Context, id: string, body: Static<Update>, precondition?: Precondition): Promise<Item>;
    delete?(ctx: Context, id: string, precondition?: Precondition): Promise<{ id: string; deleted: true }>;
  };
  /**
   * The resource's kept copies (modules/clients/client-cache.ts, which keeps GET's answers too): the JSON and
   * ETag of an object it keeps, made once by `write` and `tag` and kept with it. Without, each answer writes them.
   */
  kept?: KeptJson<Item>;
  /** Operations on one object beyond the standard five: `POST <path>/:id/<name>` (registered after them). */
  actions?: ReadonlyArray<ResourceAction<Item>>;
}

/** How a resource's kept copies keep their JSON and ETag (ResourceDefinition.kept). */
export interface KeptJson<Item> {
  json(item: Item, write: (item: Item) => string): string;
  etag(item: Item, json: string, tag: (json: string) => string): string;
}

export interface ResourceAction<Item> {
  /** The path segment after `/:id`, such as `send`. */
  name: string;
  /** The OpenAPI operationId, as the SDKs name the method: `sendInvoice` is `invoices.send`. */
  operationId: string;
  scope: Scope;
  /** Scopes it needs besides `scope`, checked after it (a refund of credit moves money: `payments:write`). */
  alsoScopes?: readonly Scope[];
  summary: string;
  description: string;
  body: TSchema;
  /** Error codes besides the body's, idempotency's and NOT_FOUND that it can answer. */
  errors: ErrorCode[];
  run(ctx: Context, id: string, body: unknown): Promise<Item>;
}

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
    /** The create's own code after the checks (the handler's, and the direct path's: http/direct-route.ts). */
    const createItem = (ctx: Context, body: Static<Create>, scopes: ReadonlySet<string>) => {
      for (const [field, scope] of Object.entries(definition.linkScopes ?? {}))
        if ((body as Record<string, unknown>)[field] !== undefined && !scopes.has(scope))
          throw insufficientScope(scope);
      return (create as NonNullable<typeof create>)(ctx, body);
    };
    if (create)
      app.post(
        path,
        {
          config: {
            scope: scopes.write,
            ...fieldChecksOf(definition, 'create'),
            ...(definition.linkScopes ? { linkScopes: definition.linkScopes } : {}),
            direct: (ctx, { body, scopes: held }) => createItem(ctx, body as Static<Create>, held),
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
