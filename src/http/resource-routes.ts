// The endpoints of a resource (list, create, get, update, delete where it has one, and actions such as send),
// declared once: each resource's routes file states its schemas, scopes and service functions.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyContextConfig, FastifyReply, FastifyRequest } from 'fastify';
import type { TSchema, Static } from '@sinclair/typebox';
import type { Context } from '../kernel/context.js';
import type { Scope } from '../kernel/scopes.js';
import { contextOf, requireScope } from './auth.js';
import type { ErrorDetail, Precondition } from '../core/errors.js';
import { etagOfJson, ifMatch, IfMatchHeaders, sentJson, sentJsonFingerprint } from './etag.js';
import { IdempotencyHeaders } from './idempotency.js';
import { envelopeJson, JSON_CONTENT_TYPE, ok } from './envelope.js';
import type { ErrorCode } from '../core/errors.js';
import type { Page } from '../db/index.js';
import { listJsonResponse, type listResponse } from './pagination.js';
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

/** 'a client', 'an invoice'. */
export const article = (noun: string): string => `${/^[aeiou]/i.test(noun) ? 'an' : 'a'} ${noun}`;

type FieldChecks = (body: unknown) => Promise<ErrorDetail[]>;

type ReferenceChecks = NonNullable<FastifyContextConfig['referenceChecks']>;

/** The route config that gives a create's or an update's field and reference checks, if the resource has them. */
function fieldChecksOf(
  definition: Pick<ResourceDefinition<never, never, TSchema, TSchema, TSchema>, 'fieldChecks' | 'referenceChecks'>,
  kind: 'create' | 'update',
) {
  const checks = definition.fieldChecks;
  const found = typeof checks === 'function' ? checks : checks?.[kind];
  const references = definition.referenceChecks;
  const referencesFound = typeof references === 'function' ? references : references?.[kind];
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
  const { path, names, scopes, schemas, service, kept } = definition;
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
    const fingerprintOf = (reply: FastifyReply) => sentJsonFingerprint(reply, item);
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
          querystring: schemas.list,
          response: { 200: listEnvelope(item), ...errorResponses('VALIDATION_ERROR') },
        },
      },
      async (request, reply) => {
        const query = request.query as Static<Query> & { limit?: number };
        const now = app.clock.now();
        const page = await service.list(contextOf(request), query, now);
        const json = listJsonResponse(
          request,
          reply,
          page,
          query.limit,
          (row) => service.present(row, now),
          (data) => itemJson(reply, data),
        );
        // Typed as the envelope the route's schema declares: this string is that envelope's JSON.
        return json as unknown as ReturnType<typeof listResponse>;
      },
    );

    const create = service.create;
    if (create)
      app.post(
        path,
        {
          config: {
            scope: scopes.write,
            ...fieldChecksOf(definition, 'create'),
            ...(definition.linkScopes ? { linkScopes: definition.linkScopes } : {}),
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
          for (const [field, scope] of Object.entries(definition.linkScopes ?? {})) {
            if ((request.body as Record<string, unknown>)[field] !== undefined) requireScope(request, scope);
          }
          const item = await create(contextOf(request), request.body as Static<Create>);
          return answer(request, reply, item, `${path}/${item.id}`);
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
      async (request, reply) =>
        answer(request, reply, await service.get(contextOf(request), request.params.id, app.clock.now())),
    );

    app.put(
      `${path}/:id`,
      {
        config: { scope: scopes.write, ...fieldChecksOf(definition, 'update') },
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
        const updated = await service.update(
          contextOf(request),
          request.params.id,
          request.body as Static<Update>,
          ifMatch(request.headers['if-match'], fingerprintOf(reply)),
        );
        return answer(request, reply, updated);
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
        async (request, reply) =>
          ok(
            request,
            await remove(
              contextOf(request),
              request.params.id,
              ifMatch(request.headers['if-match'], fingerprintOf(reply)),
            ),
          ),
      );
    }

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
          return answer(request, reply, await action.run(contextOf(request), request.params.id, request.body));
        },
      );
    }
  };
}
