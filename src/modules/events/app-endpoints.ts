// The endpoints of app installs (docs/api-contract.md §25): an installing account's events reach the app's
// webhook_url by §9's rules. Each install of an app with a webhook has an endpoint of its own in the installing
// account (`app_install_id`), kept by the apps module from the app and the install, never shown to the business:
// so the fan-out, the delivery worker, its retries, signing, address checks and attempt log are §9's, unchanged.
// What it subscribes to is spelled out from the app's webhook_events and the install's scopes (appSubscriptions).
import { type SqlBool, sql } from 'kysely';
import { newId } from '../../core/deps.js';
import { type Executor, keysOf, listPlan, type Page, type PageRequest, pageRequest, toPage } from '../../db/index.js';
import type { WebhookDeliveryRow, WebhookEndpointPatch, WebhookEndpointRow } from '../../db/types.js';
import { appSubscriptions, uninstalledSubscriptions } from './events.service.js';
import { DELIVERY_SORTS } from './webhooks.repository.js';
import { DELIVERY_STATUSES } from './webhooks.schemas.js';

/** A rotated-out app webhook secret keeps signing this long, as an endpoint's does (§9). */
const SECRET_OVERLAP_MS = 24 * 60 * 60 * 1000;

/** An app's webhook, as its installs' endpoints carry it. */
export interface AppWebhook {
  appId: string;
  url: string | null;
  /** The app's webhook_status. */
  enabled: boolean;
  secret: string;
  /** The app's webhook_events. */
  events: readonly string[];
}

/** An install, as its endpoint needs it: `scopes` are its effective ones (the install's ∩ the app's). */
export interface InstallOfApp {
  id: string;
  accountId: string;
  scopes: ReadonlySet<string>;
}

const NO_URL = 'the app has no webhook_url';
const DISABLED = 'the app’s webhook_status is disabled';

function statusOf(app: AppWebhook): Pick<WebhookEndpointRow, 'status' | 'disabled_reason'> {
  if (app.url === null) return { status: 'disabled', disabled_reason: NO_URL };
  return app.enabled ? { status: 'enabled', disabled_reason: null } : { status: 'disabled', disabled_reason: DISABLED };
}

async function findInstallEndpoint(db: Executor, installId: string): Promise<WebhookEndpointRow | undefined> {
  return db.selectFrom('webhook_endpoints').selectAll().where('app_install_id', '=', installId).executeTakeFirst();
}

/**
 * Makes an active install's endpoint match its app and scopes: made when the app has a webhook_url, its
 * subscriptions spelled out afresh (an install, a new consent, a change of the app's scopes or events).
 */
export async function syncInstallEndpoint(
  db: Executor,
  now: string,
  app: AppWebhook,
  install: InstallOfApp,
): Promise<void> {
  const existing = await findInstallEndpoint(db, install.id);
  const enabledEvents = JSON.stringify(appSubscriptions(app.events, install.scopes, install.id));
  const { status, disabled_reason } = statusOf(app);
  if (!existing) {
    if (app.url === null) return;
    await db
      .insertInto('webhook_endpoints')
      .values({
        id: newId(),
        account_id: install.accountId,
        url: app.url,
        description: null,
        enabled_events: enabledEvents,
        status,
        disabled_reason,
        secret: app.secret,
        previous_secret: null,
        previous_secret_expires_at: null,
        failing_since: null,
        metadata: '{}',
        app_id: app.appId,
        app_install_id: install.id,
        created_at: now,
        updated_at: now,
      })
      .execute();
    return;
  }
  const patch: WebhookEndpointPatch = { enabled_events: enabledEvents, status, disabled_reason, updated_at: now };
  if (app.url !== null) patch.url = app.url;
  if (status === 'enabled' && existing.status !== 'enabled') patch.failing_since = null;
  await db.updateTable('webhook_endpoints').set(patch).where('id', '=', existing.id).execute();
}

/**
 * The app's URL and status on every endpoint of its installs, those uninstalled too (their news of the uninstall
 * may still be on its way).
 */
export async function syncAppEndpoints(db: Executor, now: string, app: AppWebhook): Promise<void> {
  const { status, disabled_reason } = statusOf(app);
  const patch: WebhookEndpointPatch = { status, disabled_reason, updated_at: now };
  if (app.url !== null) patch.url = app.url;
  await db.updateTable('webhook_endpoints').set(patch).where('app_id', '=', app.appId).execute();
  if (status === 'enabled')
    await db
      .updateTable('webhook_endpoints')
      .set({ failing_since: null })
      .where('app_id', '=', app.appId)
      .where('failing_since', 'is not', null)
      .execute();
}

/**
 * At an uninstall, in its transaction and before `app.uninstalled` is recorded: the attempts still waiting are
 * dropped, and the endpoint keeps one subscription, the news of this uninstall, which it then delivers.
 */
export async function endInstallEndpoint(db: Executor, now: string, installId: string): Promise<void> {
  const endpoint = await findInstallEndpoint(db, installId);
  if (!endpoint) return;
  await db
    .deleteFrom('webhook_deliveries')
    .where('endpoint_id', '=', endpoint.id)
    .where('status', '=', 'pending')
    .execute();
  await db
    .updateTable('webhook_endpoints')
    .set({ enabled_events: JSON.stringify(uninstalledSubscriptions(installId)), updated_at: now })
    .where('id', '=', endpoint.id)
    .execute();
}

/** A new webhook secret on every endpoint of the app's installs; the old one signs beside it for 24 hours (§9). */
export async function rotateAppEndpointSecrets(db: Executor, now: Date, appId: string, secret: string): Promise<void> {
  const endpoints = await db
    .selectFrom('webhook_endpoints')
    .select(['id', 'secret'])
    .where('app_id', '=', appId)
    .execute();
  const expiresAt = new Date(now.getTime() + SECRET_OVERLAP_MS).toISOString();
  for (const endpoint of endpoints)
    await db
      .updateTable('webhook_endpoints')
      .set({
        secret,
        previous_secret: endpoint.secret,
        previous_secret_expires_at: expiresAt,
        updated_at: now.toISOString(),
      })
      .where('id', '=', endpoint.id)
      .execute();
}

/** Disables every endpoint of the app's installs still enabled (its URL answered 410, or failed for days). */
export async function disableAppEndpoints(db: Executor, now: string, appId: string, reason: string): Promise<void> {
  await db
    .updateTable('webhook_endpoints')
    .set({ status: 'disabled', disabled_reason: reason, updated_at: now })
    .where('app_id', '=', appId)
    .where('status', '=', 'enabled')
    .execute();
}

export interface AppDeliveryFilters {
  status?: string | undefined;
  event_id?: string | undefined;
}

/**
 * The attempt log of an app, newest first, across the accounts that installed it: one range of
 * webhook_deliveries_app_status_idx per status, merged (an event's attempts: webhook_deliveries_event_attempts_idx).
 */
export function listAppDeliveriesPlan(
  db: Executor,
  appId: string,
  filters: AppDeliveryFilters,
  page: PageRequest<WebhookDeliveryRow>,
) {
  const keys = keysOf({ event_id: filters.event_id });
  const among = { column: 'status', values: filters.status === undefined ? DELIVERY_STATUSES : [filters.status] };
  // An event's few attempts are found by the event; the app is then a condition on them, never the driving range
  // (a planner without statistics could take the app's index, every attempt to the app, otherwise).
  const byEvent = filters.event_id !== undefined;
  const app = { column: 'app_id', expression: sql<SqlBool>`app_id = ${appId}` };
  const source = {
    table: 'webhook_deliveries',
    columns: APP_DELIVERY_COLUMNS,
    scope: byEvent ? ({} as Record<string, string>) : { app_id: appId },
  };
  return listPlan<WebhookDeliveryRow>(db, source, { keys, among, conditions: byEvent ? [app] : [] }, page);
}

const APP_DELIVERY_COLUMNS = [
  'id',
  'account_id',
  'endpoint_id',
  'event_id',
  'event_type',
  'attempt',
  'status',
  'next_attempt_at',
  'locked_by',
  'locked_until',
  'response_status',
  'error',
  'duration_ms',
  'response_body',
  'app_id',
  'created_at',
  'updated_at',
] as const;

/** A page of the app's attempt log (`GET /v1/apps/:id/deliveries`); the caller has checked the app is its own. */
export async function listAppDeliveries(
  db: Executor,
  appId: string,
  query: AppDeliveryFilters & { limit?: number | undefined; cursor?: string | undefined },
): Promise<Page<WebhookDeliveryRow>> {
  const page = pageRequest({ ...query, sort: '-created_at' }, DELIVERY_SORTS);
  return toPage(await listAppDeliveriesPlan(db, appId, query, page).query.execute(), page);
}
