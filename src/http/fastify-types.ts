// What BMS adds to Fastify's types: the shared dependencies on the instance, the caller on the request,
// and the scope each route declares.
import type { RouteTable } from './route-table.js';
import type { WorkerPasses } from './test-clock.routes.js';
import type { StorageHealth } from './storage-health.js';
import type { Clock } from '../core/deps.js';
import type { ControlledTransaction } from 'kysely';
import type { Database, Db } from '../db/index.js';
import type { Tables } from '../db/types.js';
import type { PdfPool } from '../mail/pdf-pool.js';
import type { AuthContext } from '../kernel/auth-context.js';
import type { Context, HostedLinks } from '../kernel/context.js';
import type { Scope } from '../kernel/scopes.js';
import type { ErrorDetail } from '../core/errors.js';

/** A route's own code without HTTP: its path's parameters, its checked body and the caller's scopes in. */
export type DirectHandler = (
  ctx: Context,
  input: { params: Record<string, string>; body: unknown; scopes: ReadonlySet<string> },
) => Promise<unknown>;

/** What a route's `directMany` takes: the bodies of several creates, and the caller's scopes. */
export interface DirectManyInput {
  bodies: readonly unknown[];
  scopes: ReadonlySet<string>;
}

/** Several creates' own code at once (`directMany`), answering their objects in the bodies' order. */
export type DirectManyHandler = (ctx: Context, input: DirectManyInput) => Promise<readonly { id: string }[]>;

declare module 'fastify' {
  interface FastifyInstance {
    db: Db;
    database: Database;
    clock: Clock;
    /** Where the client hub's links point (PUBLIC_BASE_URL). */
    links: HostedLinks;
    routeTable: RouteTable;
    /** Whether the database took writes lately: /ready reports a recent storage fault. */
    storage: StorageHealth;
    /** The PDF renderer's worker threads. */
    pdf: PdfPool;
    /** The workers' single passes, for `POST /test/workers/run` (filled where the workers start). */
    workerPasses: WorkerPasses;
  }
  interface FastifyRequest {
    auth: AuthContext | undefined;
    /** Set while this request holds an Idempotency-Key, until its response is stored. */
    idempotencyKey: string | undefined;
    /**
     * The transaction a request with an Idempotency-Key runs in, from its claim until its response is stored:
     * the request's writes and its kept response commit together (http/idempotency.ts).
     */
    transaction: ControlledTransaction<Tables> | undefined;
  }
  interface FastifyContextConfig {
    scope?: Scope;
    /** Body fields that name a second resource, and the scope each takes (§3): checked by a change set first. */
    linkScopes?: Record<string, Scope>;
    /** Authenticated and rate-limited like a route with a scope, the scopes checked by the handler (/mcp). */
    authenticated?: boolean;
    /** A 401 names RFC 9728's protected-resource metadata in `WWW-Authenticate` (/mcp, docs/api-contract.md §25). */
    resourceMetadata?: boolean;
    /** The answer carries a secret shown once: it is never kept for an Idempotency-Key replay. */
    answersSecret?: boolean;
    /**
     * The handler opens (and always rolls back) transactions of its own: a preview, the MCP server's dry runs.
     * An Idempotency-Key there keeps the answer beside the work, not in one transaction with it.
     */
    ownTransaction?: boolean;
    /**
     * The request body as the OpenAPI document describes it, for a route whose body is not JSON and is read by
     * its handler (an upload: `{content: {'multipart/form-data': …, 'application/octet-stream': …}}`).
     */
    documentedBody?: Record<string, unknown>;
    /**
     * The route's own checks of single fields (a webhook's URL), run on the body as sent when the schema
     * refuses it too, so one 422 names every wrong field. The service runs them on a valid body.
     */
    fieldChecks?: (body: unknown) => Promise<ErrorDetail[]>;
    /**
     * The ids the body names that the account does not hold (a quote's `client_id`, a line's `product_id`),
     * each a detail; run with `fieldChecks` on any 422 of the route, the schema's or the service's, so one 422
     * names every wrong field (docs/api-contract.md §21). `scopes`: the key's, as ids it cannot read are skipped.
     */
    referenceChecks?: (ctx: Context, body: unknown, scopes: ReadonlySet<string>) => Promise<ErrorDetail[]>;
    /**
     * The route's own code without the HTTP machinery (http/direct-route.ts), for the imports worker's rows: what
     * its handler runs once the body is checked, answering the object (`201` for a POST, else `200`).
     */
    direct?: DirectHandler;
    /**
     * Several creates written together (a resource whose service has `createMany`): an import's chunk of new
     * objects, each body checked as `direct` checks it first (http/direct-route.ts, `createMany`).
     */
    directMany?: DirectManyHandler;
  }
}
