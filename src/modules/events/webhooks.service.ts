// Webhook endpoints (docs/api-contract.md §9): their URL checked (https, and a host that resolves to no
// private address), their subscriptions from the closed list of event types, a signing secret shown
// once and rotated with a 24-hour overlap, a test event, the attempt log, and re-queuing failures.
import type { WebhookConfig } from '../../config.js';
import { newId } from '../../core/deps.js';
import { AppError, fieldError, validationError, type ErrorDetail, type Precondition } from '../../core/errors.js';
import { type Executor, fromJson, normalizeInstant, type Page, pageRequest, toPage } from '../../db/index.js';
import { inTransaction, type Context } from '../../kernel/context.js';
import type { WebhookDeliveryRow, WebhookEndpointPatch, WebhookEndpointRow } from '../../db/types.js';
import { isEventPattern } from '../../kernel/event-types.js';
import { findEvent } from './events.repository.js';
import { pendingAttempt, presentEvent, recordEvent } from './events.service.js';
import type { Event } from './events.schemas.js';
import { requireReference, requireRow } from '../shared/index.js';
import { NotPublicAddressError, RefusedAddressError, resolveTarget } from './address-policy.js';
import { newWebhookSecret } from './signing.js';
import * as repository from './webhooks.repository.js';
import type {
  CreateWebhookEndpointInput,
  ListWebhookDeliveriesInput,
  ListWebhookEndpointsInput,
  UpdateWebhookEndpointInput,
  WebhookDelivery,
  WebhookEndpoint,
} from './webhooks.schemas.js';

/** A rotated-out secret keeps signing this long, so receivers can switch without missing a message. */
const SECRET_OVERLAP_MS = 24 * 60 * 60 * 1000;

export type UrlPolicy = Pick<WebhookConfig, 'allowHttp' | 'allowPrivate'>;

export function presentEndpoint(row: WebhookEndpointRow, withSecret = false): WebhookEndpoint {
  return {
    id: row.id,
    object: 'webhook_endpoint',
    url: row.url,
    description: row.description,
    enabled_events: fromJson<string[]>(row.enabled_events),
    status: row.status as WebhookEndpoint['status'],
    disabled_reason: row.disabled_reason,
    ...(withSecret ? { secret: row.secret } : {}),
    metadata: fromJson(row.metadata),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export function presentDelivery(row: WebhookDeliveryRow): WebhookDelivery {
  return {
    id: row.id,
    object: 'webhook_delivery',
    endpoint_id: row.endpoint_id,
    event_id: row.event_id,
    event_type: row.event_type,
    attempt: row.attempt,
    status: row.status as WebhookDelivery['status'],
    next_attempt_at: row.status === 'pending' ? row.next_attempt_at : null,
    response_status: row.response_status,
    error: row.error,
    duration_ms: row.duration_ms,
    response_body: row.response_body,
    created_at: row.created_at,
  };
}

/** 422 on `field` (`url`; an app's `webhook_url`) unless it is an absolute http(s) URL this server may deliver to. */
export async function checkEndpointUrl(text: string, policy: UrlPolicy, field = 'url'): Promise<string> {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw fieldError(field, 'must be an absolute URL, e.g. https://example.com/webhooks');
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && policy.allowHttp))
    throw fieldError(
      field,
      policy.allowHttp
        ? 'must be an http:// or https:// URL'
        : 'must be an https:// URL (a server started with WEBHOOK_ALLOW_HTTP=true also accepts http://)',
    );
  if (url.username || url.password) throw fieldError(field, 'must not carry a user name or password');
  try {
    await resolveTarget(url.hostname, policy.allowPrivate);
  } catch (error) {
    if (error instanceof NotPublicAddressError)
      throw fieldError(
        field,
        `is not deliverable: ${error.message}; to deliver to your own machine or network (development, tests), start the server with WEBHOOK_ALLOW_PRIVATE=true`,
      );
    if (error instanceof RefusedAddressError) throw fieldError(field, `is not deliverable: ${error.message}`);
    throw error;
  }
  return url.toString();
}

function checkEnabledEvents(patterns: readonly string[]): string[] {
  const unknown = patterns.filter((pattern) => !isEventPattern(pattern));
  if (unknown.length > 0)
    throw fieldError(
      'enabled_events',
      `unknown event types: ${unknown.join(', ')} (use "*", a type such as "invoice.paid", or "invoice.*")`,
    );
  return [...new Set(patterns)];
}

/**
 * The URL and subscriptions of a create or update, each checked whatever the other's fate, so one 422 names
 * both (issue 34.17); throws that 422, or answers the URL as stored and the subscriptions without repeats.
 */
async function checkEndpointFields(
  input: { url?: unknown; enabled_events?: unknown },
  policy: UrlPolicy,
): Promise<{ url?: string; enabledEvents?: string[] }> {
  const checked: { url?: string; enabledEvents?: string[] } = {};
  const problems: ErrorDetail[] = [];
  const collect = async (check: () => Promise<void> | void) => {
    try {
      await check();
    } catch (error) {
      if (!(error instanceof AppError) || error.code !== 'VALIDATION_ERROR') throw error;
      problems.push(...(error.details ?? []));
    }
  };
  const { url, enabled_events: patterns } = input;
  if (typeof url === 'string')
    await collect(async () => {
      checked.url = await checkEndpointUrl(url, policy);
    });
  if (Array.isArray(patterns) && patterns.every((pattern) => typeof pattern === 'string'))
    await collect(() => {
      checked.enabledEvents = checkEnabledEvents(patterns as string[]);
    });
  if (problems.length > 0) throw validationError(problems);
  return checked;
}

/** The webhook's own field checks, for a body the schema refused too (http/fastify-types.ts, fieldChecks). */
export function endpointFieldChecks(policy: UrlPolicy): (body: unknown) => Promise<ErrorDetail[]> {
  return async (body) => {
    if (body === null || typeof body !== 'object' || Array.isArray(body)) return [];
    try {
      await checkEndpointFields(body, policy);
      return [];
    } catch (error) {
      if (error instanceof AppError && error.details) return error.details;
      throw error;
    }
  };
}

function getRow(db: Executor, accountId: string, id: string): Promise<WebhookEndpointRow> {
  return requireRow('webhook endpoint', id, (found) => repository.findEndpoint(db, accountId, found));
}

async function createEndpoint(
  ctx: Context,
  policy: UrlPolicy,
  input: CreateWebhookEndpointInput,
): Promise<WebhookEndpoint> {
  const { url, enabledEvents } = await checkEndpointFields(input, policy);
  return inTransaction(ctx, async (tx) => {
    await assertEndpointRoom(tx);
    return insertEndpoint(tx, url!, enabledEvents!, input);
  });
}

/** Webhook endpoints per account unless the operator set another number (as Stripe: 16). */
export const DEFAULT_MAX_WEBHOOK_ENDPOINTS = 16;

/**
 * 422 on `url` when the account has as many endpoints as its limit (docs/api-contract.md §21: 16 unless the
 * operator raised it). The account's row is locked first, so two creates at once cannot both take the last place.
 */
async function assertEndpointRoom(tx: Context): Promise<void> {
  const limit = (await repository.lockEndpointLimit(tx.db, tx.accountId)) ?? DEFAULT_MAX_WEBHOOK_ENDPOINTS;
  if ((await repository.countEndpoints(tx.db, tx.accountId)) >= limit)
    throw fieldError(
      'url',
      `this account already has ${limit} webhook endpoints, the most it may have; delete one (or subscribe an existing one to more events), or ask the operator to raise the limit (bms accounts set-limits)`,
    );
}

async function insertEndpoint(
  ctx: Context,
  url: string,
  enabledEvents: string[],
  input: CreateWebhookEndpointInput,
): Promise<WebhookEndpoint> {
  const now = ctx.clock.now().toISOString();
  const row: WebhookEndpointRow = {
    id: newId(),
    account_id: ctx.accountId,
    url,
    description: input.description ?? null,
    enabled_events: JSON.stringify(enabledEvents),
    status: 'enabled',
    disabled_reason: null,
    secret: newWebhookSecret(),
    previous_secret: null,
    previous_secret_expires_at: null,
    failing_since: null,
    metadata: JSON.stringify(input.metadata ?? {}),
    app_id: null,
    app_install_id: null,
    created_at: now,
    updated_at: now,
  };
  await repository.insertEndpoint(ctx.db, row);
  return presentEndpoint(row, true);
}

export async function getEndpoint(ctx: Context, id: string): Promise<WebhookEndpoint> {
  return presentEndpoint(await getRow(ctx.db, ctx.accountId, id));
}

async function updateEndpoint(
  ctx: Context,
  policy: UrlPolicy,
  id: string,
  input: UpdateWebhookEndpointInput,
  precondition?: Precondition,
): Promise<WebhookEndpoint> {
  // The URL is resolved before the transaction: a slow DNS answer must not hold a write lock.
  const { url, enabledEvents } = await checkEndpointFields(input, policy);
  return inTransaction(ctx, async ({ db: trx, clock, accountId }) => {
    const current = await getRow(trx, accountId, id);
    precondition?.(presentEndpoint(current));
    if (Object.keys(input).length === 0) return presentEndpoint(current);
    const patch: WebhookEndpointPatch = { updated_at: clock.now().toISOString() };
    if (url !== undefined) patch.url = url;
    if (input.description !== undefined) patch.description = input.description;
    if (enabledEvents !== undefined) patch.enabled_events = JSON.stringify(enabledEvents);
    if (input.metadata !== undefined) patch.metadata = JSON.stringify(input.metadata);
    if (input.status === 'enabled' && current.status !== 'enabled')
      Object.assign(patch, { status: 'enabled', disabled_reason: null, failing_since: null });
    if (input.status === 'disabled' && current.status !== 'disabled')
      Object.assign(patch, { status: 'disabled', disabled_reason: 'disabled through the API' });
    return presentEndpoint((await repository.updateEndpoint(trx, accountId, current.id, patch)) ?? current);
  });
}

export async function deleteEndpoint(
  ctx: Context,
  id: string,
  precondition?: Precondition,
): Promise<{ id: string; deleted: true }> {
  return inTransaction(ctx, async ({ db: trx, accountId }) => {
    const current = await getRow(trx, accountId, id);
    precondition?.(presentEndpoint(current));
    await repository.deleteEndpoint(trx, accountId, current.id);
    return { id: current.id, deleted: true as const };
  });
}

export async function listEndpoints(ctx: Context, query: ListWebhookEndpointsInput): Promise<Page<WebhookEndpointRow>> {
  const page = pageRequest(query, repository.ENDPOINT_SORTS);
  return toPage(await repository.listEndpoints(ctx.db, ctx.accountId, query, page), page);
}

/** A new secret; the old one keeps signing beside it for 24 hours. */
export async function rotateSecret(ctx: Context, id: string): Promise<WebhookEndpoint> {
  return inTransaction(ctx, async ({ db: trx, clock, accountId }) => {
    const current = await getRow(trx, accountId, id);
    const now = clock.now();
    const updated = await repository.updateEndpoint(trx, accountId, current.id, {
      secret: newWebhookSecret(),
      previous_secret: current.secret,
      previous_secret_expires_at: new Date(now.getTime() + SECRET_OVERLAP_MS).toISOString(),
      updated_at: now.toISOString(),
    });
    return presentEndpoint(updated ?? current, true);
  });
}

/** Queues a webhook_endpoint.test event to this endpoint alone. */
export async function testEndpoint(ctx: Context, id: string): Promise<Event> {
  return inTransaction(ctx, async (tx) => {
    const endpoint = await getRow(tx.db, tx.accountId, id);
    return presentEvent(
      await recordEvent(tx, 'webhook_endpoint.test', presentEndpoint(endpoint), { onlyEndpointId: endpoint.id }),
    );
  });
}

export async function listEndpointDeliveries(
  ctx: Context,
  id: string,
  query: ListWebhookDeliveriesInput,
): Promise<Page<WebhookDeliveryRow>> {
  const { db, accountId } = ctx;
  const endpoint = await getRow(db, accountId, id);
  const page = pageRequest({ ...query, sort: '-created_at' }, repository.DELIVERY_SORTS);
  return toPage(await repository.listDeliveries(db, accountId, endpoint.id, query, page), page);
}

/** Queues the next attempt of (event, endpoint) now, unless one is already waiting; true when queued. */
async function requeue(tx: Context, endpointId: string, event: { id: string; type: string }): Promise<boolean> {
  if (await repository.hasPendingDelivery(tx.db, event.id, endpointId)) return false;
  const attempt = await repository.nextAttemptNumber(tx.db, event.id, endpointId);
  await repository.insertDeliveries(tx.db, [
    pendingAttempt(tx.accountId, endpointId, event, attempt, tx.clock.now().toISOString()),
  ]);
  return true;
}

/** Re-queues every (event, endpoint) delivery that failed for good since `since`. */
export async function recoverEndpoint(ctx: Context, id: string, since: string): Promise<{ requeued: number }> {
  return inTransaction(ctx, async (tx) => {
    const endpoint = await getRow(tx.db, tx.accountId, id);
    let requeued = 0;
    for (const failed of await repository.listFailedSince(tx.db, tx.accountId, endpoint.id, normalizeInstant(since))) {
      if (await requeue(tx, endpoint.id, { id: failed.event_id, type: failed.event_type })) requeued += 1;
    }
    return { requeued };
  });
}

/** Queues one event to one endpoint again (an attempt already waiting counts as queued). */
export async function resendEvent(ctx: Context, eventId: string, endpointId: string): Promise<{ requeued: number }> {
  return inTransaction(ctx, async (tx) => {
    const event = await requireRow('event', eventId, (found) => findEvent(tx.db, tx.accountId, found));
    const endpoint = await requireReference('endpoint_id', 'webhook endpoint', endpointId, (found) =>
      repository.findEndpoint(tx.db, tx.accountId, found),
    );
    await requeue(tx, endpoint.id, event);
    return { requeued: 1 };
  });
}

/** The endpoints' five operations as the routes declare them, with the server's URL policy applied. */
export function endpointService(policy: UrlPolicy) {
  return {
    list: listEndpoints,
    present: (row: WebhookEndpointRow) => presentEndpoint(row),
    create: (ctx: Context, input: CreateWebhookEndpointInput) => createEndpoint(ctx, policy, input),
    get: getEndpoint,
    update: (ctx: Context, id: string, input: UpdateWebhookEndpointInput, precondition?: Precondition) =>
      updateEndpoint(ctx, policy, id, input, precondition),
    delete: deleteEndpoint,
  };
}
