// What a resource declares to have its endpoints made by http/resource-routes.ts (its schemas, scopes, service
// functions, seams and actions), and the words its operations' summaries and ids are made of.
import type { FastifyContextConfig } from 'fastify';
import type { TSchema, Static } from '@sinclair/typebox';
import type { Context } from '../kernel/context.js';
import type { Scope } from '../kernel/scopes.js';
import type { ErrorCode, ErrorDetail, Precondition } from '../core/errors.js';
import type { Page } from '../db/index.js';

/** 'webhook endpoint' → 'WebhookEndpoint', for operationIds such as `createWebhookEndpoint`. */
export const pascal = (words: string): string =>
  words.replace(/(?:^|\s)(\w)/g, (_, first: string) => first.toUpperCase());

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
export function fieldChecksOf(
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
    /**
     * Several creates in the caller's transaction, each as `create` makes it, written together (an import's chunk
     * of new objects: http/direct-route.ts); any refusal refuses them all.
     */
    createMany?(ctx: Context, bodies: readonly Static<Create>[]): Promise<(Item & { id: string })[]>;
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
