// The endpoints of a resource (list, create, get, update, delete where it has one, and actions such as send),
// declared once: each resource's routes file states its schemas, scopes and service functions.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { TSchema, Static } from '@sinclair/typebox';
import type { Context } from '../kernel/context.js';
import type { Scope } from '../kernel/scopes.js';
import { contextOf, requireScope } from './auth.js';
import type { ErrorDetail, Precondition } from '../core/errors.js';
import { etagOfJson, ifMatch, IfMatchHeaders, sentJson, sentJsonFingerprint } from './etag.js';
import { IdempotencyHeaders } from './idempotency.js';
import { JSON_CONTENT_TYPE, ok, okJson } from './envelope.js';
import type { ErrorCode } from '../core/errors.js';
import { type Page, readDataVersion } from '../db/index.js';
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

/** The route config that gives a create's or an update's field checks, if the resource has them. */
function fieldChecksOf(
  checks: ResourceDefinition<never, never, TSchema, TSchema, TSchema>['fieldChecks'],
  kind: 'create' | 'update',
) {
  const found = typeof checks === 'function' ? checks : checks?.[kind];
  return found ? { fieldChecks: found } : {};
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
  /** Error codes besides validation and lookup that update and delete can answer (e.g. INVALID_STATE). */
  stateErrors?: ErrorCode[];
  service: {
    /** `now` (read once per request) is for fields that depend on the date, such as is_overdue. */
    list(ctx: Context, query: Static<Query>, now: Date): Promise<Page<Row>>;
    present(row: Row, now: Date): Item;
    create(ctx: Context, body: Static<Create>): Promise<Item & { id: string }>;
    get(ctx: Context, id: string, now: Date): Promise<Item>;
    update(ctx: Context, id: string, body: Static<Update>, precondition?: Precondition): Promise<Item>;
    delete?(ctx: Context, id: string, precondition?: Precondition): Promise<{ id: string; deleted: true }>;
  };
  /**
   * GET's answers are kept per object and given again while SQLite's data version says that nothing was
   * committed since they were read (any commit, by this process or another, makes them all old): only for a
   * resource whose object is made of the database alone, not of the time or the caller. No effect on PostgreSQL.
   */
  keepAnswers?: boolean;
  /** Operations on one object beyond the standard five: `POST <path>/:id/<name>` (registered after them). */
  actions?: ReadonlyArray<ResourceAction<Item>>;
}

/** A GET's answer as it was sent, and the data version it was read at (ResourceDefinition.keepAnswers). */
interface KeptAnswer {
  version: number;
  json: string;
  etag: string;
}

/** The most GET answers a resource keeps; the oldest kept goes first (each is its object's JSON, ~0.5 KB). */
const KEPT_ANSWERS = 1000;

export interface ResourceAction<Item> {
  /** The path segment after `/:id`, such as `send`. */
  name: string;
  /** The OpenAPI operationId, as the SDKs name the method: `sendInvoice` is `invoices.send`. */
  operationId: string;
  scope: Scope;
  summary: string;
  description: string;
  body: TSchema;
  /** Error codes besides the body's, idempotency's and NOT_FOUND that it can answer. */
  errors: ErrorCode[];
  run(ctx: Context, id: string, body: unknown): Promise<Item>;
}

/**
 * `text` made one flat string (V8 flattens a string in place when a character of it is read). A serializer
 * builds its JSON piece by piece, and a string of pieces is walked piece by piece every time it is copied: 25
 * kept clients' JSON joined into a page took 13 µs so, 1 µs once flat.
 */
function flattened(text: string): string {
  text.charCodeAt(0);
  return text;
}

export function resourceRoutes<Row, Item, Create extends TSchema, Update extends TSchema, Query extends TSchema>(
  definition: ResourceDefinition<Row, Item, Create, Update, Query>,
): FastifyPluginAsyncTypebox {
  const { path, names, scopes, schemas, service } = definition;
  const [singular, plural] = names;
  const tags = [plural.charAt(0).toUpperCase() + plural.slice(1)];
  const item = schemaRef(schemas.item);
  const stateErrors = definition.stateErrors ?? [];

  return async (app) => {
    /**
     * The object's JSON as its answers carry it (fast-json-stringify of the item's schema, the serializer the
     * envelope's own uses for `data`), compiled at the first answer. The ETag is the hash of these bytes, and
     * If-Match is compared with the current object's the same way.
     */
    let serializeItem: ((data: unknown) => string) | undefined;
    const itemJson = (reply: FastifyReply, data: unknown): string => {
      serializeItem ??= sentJson(reply, item);
      return serializeItem(data);
    };
    const fingerprintOf = (reply: FastifyReply) => sentJsonFingerprint(reply, item);
    /**
     * The JSON and ETag of each frozen object answered (one that cannot change: a client record remembered by
     * its row's version, clients.repository.ts), made once and shared by its GET and the lists that show it.
     */
    const sentOf = new WeakMap<object, { json: string; etag?: string }>();
    const sent = (reply: FastifyReply, data: unknown): { json: string; etag?: string } => {
      if (typeof data !== 'object' || data === null || !Object.isFrozen(data)) return { json: itemJson(reply, data) };
      let found = sentOf.get(data);
      if (found === undefined) {
        found = { json: flattened(itemJson(reply, data)) };
        sentOf.set(data, found);
      }
      return found;
    };
    /** The object's JSON and its ETag (the hash of that JSON). */
    const tagged = (reply: FastifyReply, data: unknown): { json: string; etag: string } => {
      const found = sent(reply, data);
      found.etag ??= etagOfJson(found.json);
      return found as { json: string; etag: string };
    };
    /**
     * The answer of one object with its ETag: the envelope's JSON written around the object's (serialized once
     * for both), which Fastify sends as it is (a string with a JSON content type). The headers come in the order
     * they did when Fastify serialized the envelope: ETag, then Location (201), then Content-Type.
     */
    const answerJson = (
      request: FastifyRequest,
      reply: FastifyReply,
      json: string,
      etag: string,
      location?: string,
    ) => {
      reply.header('etag', etag);
      if (location !== undefined) reply.code(201).header('location', location);
      reply.header('content-type', JSON_CONTENT_TYPE);
      // Typed as the envelope the route's schema declares: this string is that envelope's JSON.
      return okJson(request, json) as unknown as ReturnType<typeof ok<unknown>>;
    };
    const answer = (request: FastifyRequest, reply: FastifyReply, data: unknown, location?: string) => {
      const { json, etag } = tagged(reply, data);
      return answerJson(request, reply, json, etag, location);
    };
    /** The GET answers kept (definition.keepAnswers), by account and id: this app's, read from its database. */
    const kept = definition.keepAnswers ? new Map<string, KeptAnswer>() : undefined;

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
          (data) => sent(reply, data).json,
        );
        // Typed as the envelope the route's schema declares: this string is that envelope's JSON.
        return json as unknown as ReturnType<typeof listResponse>;
      },
    );

    app.post(
      path,
      {
        config: { scope: scopes.write, ...fieldChecksOf(definition.fieldChecks, 'create') },
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
        const item = await service.create(contextOf(request), request.body as Static<Create>);
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
      async (request, reply) => {
        const ctx = contextOf(request);
        const id = request.params.id;
        const version = kept && readDataVersion(ctx.db);
        if (version === undefined) return answer(request, reply, await service.get(ctx, id, app.clock.now()));
        const key = `${ctx.accountId}/${id}`;
        const hit = kept!.get(key);
        if (hit !== undefined && hit.version === version) return answerJson(request, reply, hit.json, hit.etag);
        // Read after the version: a commit in between makes the version kept older than the row, never newer.
        const { json, etag } = tagged(reply, await service.get(ctx, id, app.clock.now()));
        if (kept!.size >= KEPT_ANSWERS) kept!.delete(kept!.keys().next().value as string);
        kept!.set(key, { version, json, etag });
        return answerJson(request, reply, json, etag);
      },
    );

    app.put(
      `${path}/:id`,
      {
        config: { scope: scopes.write, ...fieldChecksOf(definition.fieldChecks, 'update') },
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
