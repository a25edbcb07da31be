// Events (docs/api-contract.md §9): recorded in the transaction of the change they describe, so a change that
// rolls back leaves no event and no change goes without one; each is queued, in the same transaction, to
// every enabled webhook endpoint whose enabled_events match it.
import type { Actor, Context } from '../../kernel/context.js';
import type { Origin } from '../../kernel/operation-scope.js';
import { isUuid, newId } from '../../core/deps.js';
import { fromJson, type Page, pageRequest, toPage } from '../../db/index.js';
import type { EventRow, WebhookDeliveryRow } from '../../db/types.js';
import { insertDeliveries } from './webhooks.repository.js';
import { requireRow } from '../shared/index.js';
import { fieldError, notFound } from '../../core/errors.js';
import { EVENT_TYPES, isEventPattern, matchesEventPattern, type EventType } from '../../kernel/event-types.js';
import * as repository from './events.repository.js';
import { noteChange } from './changes.repository.js';
import type { Event, EventData, ListEventsInput } from './events.schemas.js';

export function presentEvent(row: EventRow): Event {
  return {
    id: row.id,
    object: 'event',
    type: row.type as EventType,
    created_at: row.created_at,
    account_id: row.account_id,
    actor: { type: row.actor_type as Actor['type'], id: row.actor_id, app_id: row.actor_app_id },
    origin: row.origin_id === null ? null : { type: row.origin_type as Origin['type'], id: row.origin_id },
    data: fromJson<EventData>(row.data),
  };
}

/** What recording an event needs: the transaction of the change, the clock, the account and who acts. */
export type EventContext = Pick<Context, 'db' | 'clock' | 'accountId' | 'actor' | 'origin'>;

export interface RecordOptions {
  /** For `*.updated` and status events: the changed fields' values before the change. */
  previous_attributes?: Record<string, unknown> | undefined;
  /** Where the change came from, when not the API (the client hub). */
  source?: 'hub' | undefined;
  /** Queue to this endpoint alone, whatever it subscribes to (the endpoint test). */
  onlyEndpointId?: string | undefined;
}

/** Records one event and queues it to the endpoints that listen for it. Call it inside the change's transaction. */
/** How a module above completes an object before its event records it (ObjectCompleter, completeEventObjectsWith). */
type ObjectCompleter = (ctx: EventContext, object: object) => Promise<void>;
let completeObject: ObjectCompleter | undefined;

/**
 * Set once by the custom fields module (which stands above this one): an event's object answers every custom field
 * its kind defines, as the API's answers do, though the kind's presenter gave only the stored values.
 */
export function completeEventObjectsWith(completer: ObjectCompleter): void {
  completeObject = completer;
}

/** The event's row, its object completed (`completeObject`). */
async function eventRow(
  ctx: EventContext,
  type: EventType,
  object: { id: string },
  options: RecordOptions,
): Promise<EventRow> {
  const now = ctx.clock.now().toISOString();
  if (completeObject !== undefined) await completeObject(ctx, object);
  // Built property by property: spreads of optional parts made it several times slower (issue 36).
  const full: EventData = { object };
  if (options.previous_attributes) full.previous_attributes = options.previous_attributes;
  if (options.source) full.source = options.source;
  const data = boundedData(full);
  return {
    id: newId(),
    account_id: ctx.accountId,
    type,
    resource_id: object.id,
    data,
    actor_type: ctx.actor.type,
    actor_id: ctx.actor.id,
    actor_app_id: ctx.actor.app_id ?? null,
    origin_type: ctx.origin?.type ?? null,
    origin_id: ctx.origin?.id ?? null,
    created_at: now,
  };
}

/**
 * Records one event of `type` for each of `objects`, in their order, as `recordEvent` does each, their rows
 * written together (`writeEvent.many`: statements of many rows where commits are not gathered).
 */
export async function recordEvents(ctx: EventContext, type: EventType, objects: readonly { id: string }[]) {
  const family = `${type.slice(0, type.lastIndexOf('.'))}.*`;
  const calls: [EventRow, string, string | null][] = [];
  for (const object of objects)
    calls.push([await eventRow(ctx, type, object, {}), family, qualifiedType(type, object)]);
  await repository.writeEvent.many(ctx.db, calls);
}

export async function recordEvent(
  ctx: EventContext,
  type: EventType,
  object: { id: string },
  options: RecordOptions = {},
): Promise<EventRow> {
  const { db: trx, accountId } = ctx;
  const row = await eventRow(ctx, type, object, options);
  const now = row.created_at;
  const family = `${type.slice(0, type.lastIndexOf('.'))}.*`;
  if (options.onlyEndpointId) {
    // The change feed's mark, in the same transaction: the object changed (docs/api-contract.md §26). A
    // deferred write (below) makes it with the event.
    await noteChange(trx, accountId, type, object.id, now);
    await repository.insertEvent(trx, row);
    await insertDeliveries(trx, [pendingAttempt(accountId, options.onlyEndpointId, row, 1, now)]);
  } else {
    // With its deliveries, as a deferred write: at its batch's commit, or at once (events.repository.ts).
    await repository.writeEvent(trx, row, family, qualifiedType(type, object));
  }
  return row;
}

/**
 * For the types an app's install hears of only in part (docs/api-contract.md §25), the type with what decides
 * it: `app.installed@<install id>` (its own install's, never another's), `delivery.failed@invoice` (its
 * document's read scope). An install's endpoint subscribes to these forms (`appSubscriptions`); a business's
 * endpoints never hold one, so they match as before. The event list reads the same part of a stored event with
 * `qualifierOf` (events.repository.ts).
 */
function qualifiedType(type: EventType, object: { id: string }): string | null {
  if (type.startsWith('app.')) return `${type}@${object.id}`;
  if (type.startsWith('delivery.')) {
    const documentType = (object as { document_type?: unknown }).document_type;
    return typeof documentType === 'string' ? `${type}@${documentType}` : null;
  }
  return null;
}

/** The app.* types an install's app hears of, about its own install only. */
const OWN_INSTALL_TYPES: readonly EventType[] = ['app.installed', 'app.reauthorized', 'app.uninstalled'];
/** The kinds of document a delivery is of. */
const DOCUMENT_KINDS = ['invoice', 'quote', 'credit_note'] as const;

/**
 * What an app's install hears of (docs/api-contract.md §25), its webhook and its tokens' event list alike: of the
 * types its app's `webhook_events` name, those about a kind the install reads (`scopes`: the install's ∩ the
 * app's, or a token's), `delivery.*` of the documents it reads; and its own install's `app.*` always. Each in the
 * form the fan-out matches (`qualifiedType`). The list is closed (concrete types, no pattern), so a type added
 * later reaches no app that did not ask anew.
 */
export function appSubscriptions(
  webhookEvents: readonly string[],
  scopes: ReadonlySet<string>,
  installId: string,
): string[] {
  const subscriptions: string[] = [];
  for (const type of EVENT_TYPES) {
    const kind = type.slice(0, type.indexOf('.'));
    if (kind === 'app') {
      if (OWN_INSTALL_TYPES.includes(type)) subscriptions.push(`${type}@${installId}`);
      continue;
    }
    if (!webhookEvents.some((pattern) => matchesEventPattern(pattern, type))) continue;
    if (kind === 'delivery') {
      for (const document of DOCUMENT_KINDS)
        if (scopes.has(READ_SCOPE_OF[document] as string)) subscriptions.push(`${type}@${document}`);
    } else {
      const scope = READ_SCOPE_OF[kind];
      if (scope !== undefined && scopes.has(scope)) subscriptions.push(type);
    }
  }
  return subscriptions;
}

/**
 * Of the types `asked`, those an install whose subscriptions (`appSubscriptions`) these are hears of whole, and
 * those it hears of in part, each with the values of its qualifier that it hears of (`app.installed` → [its
 * install id]; `delivery.failed` → the documents it reads).
 */
function audienceOf(subscriptions: readonly string[], asked: readonly string[]): repository.Audience {
  const whole: string[] = [];
  const part = new Map<string, string[]>();
  for (const subscription of subscriptions) {
    const at = subscription.indexOf('@');
    const type = at < 0 ? subscription : subscription.slice(0, at);
    if (!asked.includes(type)) continue;
    if (at < 0) whole.push(type);
    else part.set(type, [...(part.get(type) ?? []), subscription.slice(at + 1)]);
  }
  return { whole, part };
}

/** The one subscription an uninstalled install's endpoint keeps: the news of its own uninstall. */
export function uninstalledSubscriptions(installId: string): string[] {
  return [`app.uninstalled@${installId}`];
}

/** No event is over 64 KB (docs/api-contract.md §21); its id, type, actor and envelope take well under 1 KB. */
export const MAX_EVENT_BYTES = 64 * 1024;
const MAX_DATA_BYTES = MAX_EVENT_BYTES - 1024;

/**
 * The event's data as stored, at most MAX_DATA_BYTES of JSON. Capped lists (an invoice's 20 most recent
 * payments) keep ordinary objects far below it; a larger one (200 long line items, with their old values)
 * loses its previous_attributes first, then is reduced to its id and kind, and says so with `truncated`:
 * the receiver GETs the object.
 */
function boundedData(data: EventData): string {
  const full = JSON.stringify(data);
  // A UTF-16 unit is at most 3 bytes of UTF-8: most events are far below the bound without counting them.
  if (full.length * 3 <= MAX_DATA_BYTES || Buffer.byteLength(full) <= MAX_DATA_BYTES) return full;
  const { previous_attributes: _previous, ...rest } = data;
  const withoutPrevious = JSON.stringify({ ...rest, truncated: true });
  if (Buffer.byteLength(withoutPrevious) <= MAX_DATA_BYTES) return withoutPrevious;
  const { id, object: kind } = data.object as { id: string; object?: unknown };
  return JSON.stringify({ ...rest, object: { id, object: kind }, truncated: true });
}

/**
 * A pending attempt (number `attempt`) of an event to an endpoint, made `now` and due at `dueAt`; `appId`, the app
 * whose install's endpoint it is.
 */
export function pendingAttempt(
  accountId: string,
  endpointId: string,
  event: Pick<EventRow, 'id' | 'type'>,
  attempt: number,
  now: string,
  dueAt = now,
  appId: string | null = null,
): WebhookDeliveryRow {
  return {
    id: newId(),
    account_id: accountId,
    endpoint_id: endpointId,
    event_id: event.id,
    event_type: event.type,
    attempt,
    status: 'pending',
    next_attempt_at: dueAt,
    locked_by: null,
    locked_until: null,
    response_status: null,
    error: null,
    duration_ms: null,
    response_body: null,
    app_id: appId,
    created_at: now,
    updated_at: now,
  };
}

/**
 * The fields whose value differs between two presentations of an object, with their old values (updated_at
 * aside). `custom_fields` is answered as the changed keys' old values only (docs/api-contract.md §27).
 */
export function previousAttributes(before: object, after: object): Record<string, unknown> {
  const old = before as Record<string, unknown>;
  const current = after as Record<string, unknown>;
  const changed: Record<string, unknown> = {};
  for (const key of Object.keys(current)) {
    if (key !== 'updated_at' && JSON.stringify(old[key]) !== JSON.stringify(current[key]))
      changed[key] = key === 'custom_fields' ? changedKeys(old[key], current[key]) : (old[key] ?? null);
  }
  return changed;
}

/** The old values of the keys whose value differs between two `custom_fields` objects. */
function changedKeys(before: unknown, after: unknown): Record<string, unknown> {
  const old = (before ?? {}) as Record<string, unknown>;
  const current = (after ?? {}) as Record<string, unknown>;
  const changed: Record<string, unknown> = {};
  for (const key of new Set([...Object.keys(old), ...Object.keys(current)]))
    if (JSON.stringify(old[key] ?? null) !== JSON.stringify(current[key] ?? null)) changed[key] = old[key] ?? null;
  return changed;
}

/**
 * The event of a change to an object: its status's own type when the status moved to one that has a
 * type (`quote.approved`), else `<resource>.updated`; nothing when nothing visible changed.
 */
export interface Change<T> {
  resource:
    | 'client'
    | 'property'
    | 'service_request'
    | 'quote'
    | 'job'
    | 'invoice'
    | 'payment'
    | 'team_member'
    | 'api_key'
    | 'visit'
    | 'visit_schedule'
    | 'product'
    | 'tax_rate'
    | 'availability_exception'
    | 'credit_note'
    | 'time_entry'
    | 'custom_field'
    | 'attachment';
  before: T;
  after: T;
  /** The lifecycle's events: the event entering each status records. */
  statusEvents?: Partial<Record<string, EventType>>;
  source?: 'hub';
}

export async function recordChange<T extends { id: string; status?: string }>(
  ctx: EventContext,
  change: Change<T>,
): Promise<void> {
  const { resource, before, after, statusEvents = {}, source } = change;
  const changed = previousAttributes(before, after);
  if (Object.keys(changed).length === 0) return;
  const statusType =
    before.status !== after.status && after.status !== undefined ? statusEvents[after.status] : undefined;
  const type = statusType ?? (`${resource}.updated` as EventType);
  if (!(EVENT_TYPES as readonly string[]).includes(type)) throw new Error(`no event type ${type}`);
  await recordEvent(ctx, type, after, { previous_attributes: changed, source });
}

/** The read scope an app's token needs to see an event about each kind (docs/api-contract.md §25). */
const READ_SCOPE_OF: Partial<Record<string, string>> = {
  client: 'clients:read',
  property: 'clients:read',
  service_request: 'requests:read',
  quote: 'quotes:read',
  job: 'jobs:read',
  invoice: 'invoices:read',
  payment: 'payments:read',
  team_member: 'team:read',
  visit: 'visits:read',
  visit_schedule: 'schedules:read',
  product: 'catalog:read',
  tax_rate: 'catalog:read',
  recurring_invoice: 'recurring_invoices:read',
  availability_exception: 'team:read',
  credit_note: 'credit_notes:read',
  time_entry: 'time_entries:read',
  time_lock: 'time_entries:read',
  custom_field: 'custom_fields:read',
  tag: 'tags:read',
  attachment: 'attachments:read',
};

/**
 * `subscriptions`, for an app's token: what its install hears of (`appSubscriptions`), which is all it reads of the
 * events; undefined for a key, which reads them all.
 */
export async function getEvent(ctx: Context, id: string, subscriptions?: readonly string[]): Promise<Event> {
  const row = await requireRow('event', id, (found) => repository.findEvent(ctx.db, ctx.accountId, found));
  const event = presentEvent(row);
  if (subscriptions && !hears(subscriptions, event)) throw notFound('event', id);
  return event;
}

/** Whether an install whose subscriptions these are hears of the event: the fan-out's match (writeEvent). */
function hears(subscriptions: readonly string[], event: Event): boolean {
  const qualified = qualifiedType(event.type, event.data.object as { id: string });
  return subscriptions.includes(event.type) || (qualified !== null && subscriptions.includes(qualified));
}

/** `subscriptions`: as for getEvent. */
export async function listEvents(
  ctx: Context,
  query: ListEventsInput,
  subscriptions?: readonly string[],
): Promise<Page<EventRow>> {
  const { db, accountId } = ctx;
  const page = pageRequest({ ...query, sort: '-created_at' }, repository.EVENT_SORTS);
  const patterns = query.type?.split(',').map((pattern) => pattern.trim());
  const unknown = patterns?.filter((pattern) => !isEventPattern(pattern)) ?? [];
  if (unknown.length > 0)
    throw fieldError(
      'type',
      `unknown event types: ${unknown.join(', ')} (use a type such as invoice.paid, or invoice.*)`,
    );
  // Patterns are spelled out into the closed list of types: each type is one range of its index.
  const types = patterns?.includes('*')
    ? undefined
    : patterns && EVENT_TYPES.filter((type) => patterns.some((pattern) => matchesEventPattern(pattern, type)));
  if (query.actor_id !== undefined && !isUuid(query.actor_id))
    throw fieldError('actor_id', 'must be the id of an API key or an app install (a UUID)');
  if (query.app_id !== undefined && !isUuid(query.app_id))
    throw fieldError('app_id', 'must be the id of an app (a UUID)');
  if (query.origin_id !== undefined && !isUuid(query.origin_id))
    throw fieldError('origin_id', 'must be the id of a change set or an import (a UUID)');
  const filters: repository.EventFilters = { ...query, types, actor_app_id: query.app_id };
  if (subscriptions) {
    // The types the install hears of, whole or in part; those in part, only for the values it hears of.
    const audience = audienceOf(subscriptions, types ?? EVENT_TYPES);
    filters.types = [...audience.whole, ...audience.part.keys()];
    filters.audience = audience;
  }
  const { rows, resumeAfter } = await repository.listEvents(db, accountId, filters, page);
  return toPage(rows, page, resumeAfter);
}
