// Publishing apps (docs/api-contract.md §25): an account's OAuth clients, their redirect URIs, the scopes they
// ask for and where their webhooks go. Secrets are answered once, at create and roll; the events never hold one.
import { AppError, fieldError, fieldProblems, validationError } from '../../core/errors.js';
import { hash } from 'node:crypto';
import { type Clock, newId } from '../../core/deps.js';
import { type Executor, fromJson, type Page, pageRequest, toPage } from '../../db/index.js';
import type { AppRow, WebhookDeliveryRow } from '../../db/types.js';
import { type Context, inTransaction, SYSTEM_ACTOR } from '../../kernel/context.js';
import { isEventPattern } from '../../kernel/event-types.js';
import { GRANTABLE_SCOPES, type Scope } from '../../kernel/scopes.js';
import {
  checkEndpointUrl,
  disableAppEndpoints,
  listAppDeliveries,
  previousAttributes,
  recordEvent,
  rotateAppEndpointSecrets,
} from '../events/index.js';
import { requireRow } from '../shared/index.js';
import { decodeLogo, type LogoInput } from '../accounts/index.js';
import * as repository from './apps.repository.js';
import type {
  App,
  AppDelivery,
  AppWithSecrets,
  CreateAppInput,
  ListAppDeliveriesInput,
  UpdateAppInput,
} from './apps.schemas.js';
import { forgetInstallTokens } from './token-cache.js';
import { uninstallInTransaction } from './uninstall.js';
import { syncAppWebhook } from './app-webhooks.js';
import { redirectUriProblem } from './redirect-uris.js';
import { newSecret, newWebhookSecret } from './secrets.js';
import { APP_LIMITS, type AppSettings } from './settings.js';

export function presentApp(row: AppRow): App {
  return {
    id: row.id,
    object: 'app',
    name: row.name,
    description: row.description,
    website: row.website,
    redirect_uris: fromJson<string[]>(row.redirect_uris),
    install_url: row.install_url,
    scopes: fromJson<Scope[]>(row.scopes),
    visibility: row.visibility as App['visibility'],
    webhook_url: row.webhook_url,
    webhook_events: fromJson<string[]>(row.webhook_events),
    metadata: fromJson<Record<string, string>>(row.metadata),
    has_logo: row.logo_sha256 !== null,
    client_type: row.client_type as App['client_type'],
    webhook_status: row.webhook_status as App['webhook_status'],
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

function httpsUrl(field: string, value: string | null | undefined, allowHttp = false): void {
  if (value === null || value === undefined) return;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw fieldError(field, 'must be an absolute URL');
  }
  if (url.protocol === 'https:' || (allowHttp && url.protocol === 'http:')) return;
  throw fieldError(field, allowHttp ? 'must be an http:// or https:// URL' : 'must be an https:// URL');
}

/** Every field check of a create or an update, in one 422. */
function checkFields(settings: AppSettings, body: Partial<CreateAppInput & UpdateAppInput>): void {
  const problems = fieldProblems(
    () => httpsUrl('website', body.website),
    () => httpsUrl('install_url', body.install_url),
    () => httpsUrl('webhook_url', body.webhook_url, settings.allowHttpWebhooks),
    ...(body.redirect_uris ?? []).map((uri, index) => () => {
      const problem = redirectUriProblem(uri);
      if (problem) throw fieldError(`redirect_uris[${index}]`, problem);
    }),
    ...(body.scopes ?? []).map((scope, index) => () => {
      if (!GRANTABLE_SCOPES.includes(scope))
        throw fieldError(
          `scopes[${index}]`,
          `an app cannot be granted '${scope}' (no api_keys:*, webhooks:*, apps:*, app_installs:*)`,
        );
    }),
    ...(body.webhook_events ?? []).map((pattern, index) => () => {
      if (!isEventPattern(pattern))
        throw fieldError(`webhook_events[${index}]`, `'${pattern}' is not an event type or pattern`);
    }),
  );
  if (problems.length > 0) throw validationError(problems);
}

/**
 * The webhook_url's host checked as a webhook endpoint's is, by §9's rules (a private address refused unless
 * WEBHOOK_ALLOW_PRIVATE); checked again at every delivery.
 */
async function checkWebhookUrl(settings: AppSettings, url: string | null | undefined): Promise<void> {
  if (url === null || url === undefined) return;
  await checkEndpointUrl(
    url,
    { allowHttp: settings.allowHttpWebhooks, allowPrivate: settings.allowPrivateWebhooks },
    'webhook_url',
  );
}

export async function createApp(ctx: Context, settings: AppSettings, body: CreateAppInput): Promise<AppWithSecrets> {
  checkFields(settings, body);
  await checkWebhookUrl(settings, body.webhook_url);
  const clientType = body.client_type ?? 'confidential';
  const secret = clientType === 'confidential' ? newSecret('clientSecret', settings.pepper) : undefined;
  const webhookSecret = newWebhookSecret();
  const now = ctx.clock.now().toISOString();
  const row: AppRow = {
    id: newId(),
    account_id: ctx.accountId,
    name: body.name,
    description: body.description ?? null,
    website: body.website ?? null,
    client_type: clientType,
    client_secret_hash: secret?.hash ?? null,
    previous_secret_hash: null,
    previous_secret_expires_at: null,
    redirect_uris: JSON.stringify(body.redirect_uris),
    install_url: body.install_url,
    scopes: JSON.stringify(inScopeOrder(body.scopes)),
    visibility: body.visibility ?? 'private',
    webhook_url: body.webhook_url ?? null,
    webhook_events: JSON.stringify(body.webhook_events ?? ['*']),
    webhook_status: 'enabled',
    webhook_secret: webhookSecret,
    metadata: JSON.stringify(body.metadata ?? {}),
    logo_sha256: null,
    suspended_at: null,
    deleted_at: null,
    created_at: now,
    updated_at: now,
  };
  await inTransaction(ctx, async (tx) => {
    if ((await repository.countApps(tx.db, ctx.accountId)) >= APP_LIMITS.appsPerAccount)
      throw new AppError(
        'CONFLICT',
        `An account publishes at most ${APP_LIMITS.appsPerAccount} apps; delete one first.`,
      );
    await repository.insertApp(tx.db, row);
    await recordEvent(tx, 'app.created', presentApp(row));
  });
  return { ...presentApp(row), client_secret: secret?.secret ?? null, webhook_secret: webhookSecret };
}

/** Scopes in §3's order (the order of SCOPES), as every answer lists them. */
export function inScopeOrder(scopes: readonly string[]): Scope[] {
  return GRANTABLE_SCOPES.filter((scope) => scopes.includes(scope));
}

async function ownApp(ctx: Context, id: string, lock = false): Promise<AppRow> {
  return requireRow('app', id, (found) => repository.findOwnApp(ctx.db, ctx.accountId, found, lock));
}

export async function getApp(ctx: Context, id: string): Promise<App> {
  return presentApp(await ownApp(ctx, id));
}

export async function listApps(ctx: Context, query: { limit?: number; cursor?: string }): Promise<Page<AppRow>> {
  const page = pageRequest({ ...query, sort: '-created_at' }, repository.APP_SORTS);
  const { rows, resumeAfter } = await repository.listApps(ctx.db, ctx.accountId, page);
  return toPage(rows, page, resumeAfter);
}

export async function updateApp(ctx: Context, settings: AppSettings, id: string, body: UpdateAppInput): Promise<App> {
  checkFields(settings, body);
  // Resolved before the transaction: a slow DNS answer must not hold a write lock.
  await checkWebhookUrl(settings, body.webhook_url);
  const updated = await inTransaction(ctx, async (tx) => {
    const before = await ownApp(tx, id, true);
    const changes: Partial<AppRow> = {};
    if (body.name !== undefined) changes.name = body.name;
    if (body.description !== undefined) changes.description = body.description;
    if (body.website !== undefined) changes.website = body.website;
    if (body.redirect_uris !== undefined) changes.redirect_uris = JSON.stringify(body.redirect_uris);
    if (body.install_url !== undefined) changes.install_url = body.install_url;
    if (body.scopes !== undefined) changes.scopes = JSON.stringify(inScopeOrder(body.scopes));
    if (body.visibility !== undefined) changes.visibility = body.visibility;
    if (body.webhook_url !== undefined) changes.webhook_url = body.webhook_url;
    if (body.webhook_events !== undefined) changes.webhook_events = JSON.stringify(body.webhook_events);
    if (body.webhook_status !== undefined) changes.webhook_status = body.webhook_status;
    if (body.metadata !== undefined) changes.metadata = JSON.stringify(body.metadata);
    const after: AppRow = { ...before, ...changes };
    const previous = previousAttributes(presentApp(before), presentApp(after));
    if (Object.keys(previous).length === 0) return presentApp(before);
    after.updated_at = tx.clock.now().toISOString();
    await repository.updateApp(tx.db, id, { ...changes, updated_at: after.updated_at });
    const webhookFields = ['webhook_url', 'webhook_events', 'webhook_status', 'scopes'] as const;
    if (webhookFields.some((field) => field in previous)) await syncAppWebhook(tx.db, after.updated_at, after);
    await recordEvent(tx, 'app.updated', presentApp(after), { previous_attributes: previous });
    return presentApp(after);
  });
  // Its tokens' scopes and events are the app's as they are now: found afresh from the next request.
  forgetInstallTokens();
  return updated;
}

/** Deletes an app: every install of it, in every account, is uninstalled (`app_deleted`) in the same transaction. */
export async function deleteApp(ctx: Context, id: string): Promise<{ id: string; deleted: true }> {
  await inTransaction(ctx, async (tx) => {
    const app = await ownApp(tx, id, true);
    const now = tx.clock.now().toISOString();
    for (const install of await repository.findActiveInstallsOfApp(tx.db, id))
      await uninstallInTransaction(
        { ...tx, accountId: install.account_id, actor: SYSTEM_ACTOR },
        install,
        app,
        'app_deleted',
      );
    await repository.updateApp(tx.db, id, { deleted_at: now, updated_at: now });
    await recordEvent(tx, 'app.deleted', presentApp(app));
  });
  return { id, deleted: true };
}

export async function rollClientSecret(
  ctx: Context,
  settings: AppSettings,
  id: string,
  overlapHours: number,
): Promise<AppWithSecrets> {
  return inTransaction(ctx, async (tx) => {
    const app = await ownApp(tx, id, true);
    if (app.client_type !== 'confidential')
      throw new AppError('INVALID_STATE', 'A public app has no client secret to roll.');
    const secret = newSecret('clientSecret', settings.pepper);
    const now = tx.clock.now();
    const changes: Partial<AppRow> = {
      client_secret_hash: secret.hash,
      previous_secret_hash: overlapHours > 0 ? app.client_secret_hash : null,
      previous_secret_expires_at:
        overlapHours > 0 ? new Date(now.getTime() + overlapHours * 3_600_000).toISOString() : null,
      updated_at: now.toISOString(),
    };
    await repository.updateApp(tx.db, id, changes);
    const after = { ...app, ...changes };
    await recordEvent(tx, 'app.updated', presentApp(after), { previous_attributes: { updated_at: app.updated_at } });
    return { ...presentApp(after), client_secret: secret.secret, webhook_secret: app.webhook_secret };
  });
}

export async function rotateWebhookSecret(ctx: Context, id: string): Promise<AppWithSecrets> {
  return inTransaction(ctx, async (tx) => {
    const app = await ownApp(tx, id, true);
    const webhookSecret = newWebhookSecret();
    const updatedAt = tx.clock.now().toISOString();
    await repository.updateApp(tx.db, id, { webhook_secret: webhookSecret, updated_at: updatedAt });
    // Every install's endpoint signs with it; the old secret signs beside it for 24 hours (§9).
    await rotateAppEndpointSecrets(tx.db, tx.clock.now(), id, webhookSecret);
    const after = { ...app, webhook_secret: webhookSecret, updated_at: updatedAt };
    await recordEvent(tx, 'app.updated', presentApp(after), { previous_attributes: { updated_at: app.updated_at } });
    return { ...presentApp(after), client_secret: null, webhook_secret: webhookSecret };
  });
}

/**
 * The app's webhook failed for good (its URL answered 410, or every attempt failed for days: §9): its
 * webhook_status becomes disabled, for every install, with `app.updated` in the publisher's account. Called by
 * the delivery worker in the transaction that records the attempt.
 */
export async function disableAppWebhook(db: Executor, clock: Clock, appId: string, reason: string): Promise<void> {
  const now = clock.now().toISOString();
  await disableAppEndpoints(db, now, appId, reason);
  const app = await repository.findAppById(db, appId);
  if (!app || app.webhook_status !== 'enabled') return;
  await repository.updateApp(db, appId, { webhook_status: 'disabled', updated_at: now });
  const after = { ...app, webhook_status: 'disabled', updated_at: now };
  await recordEvent({ db, clock, accountId: app.account_id, actor: SYSTEM_ACTOR }, 'app.updated', presentApp(after), {
    previous_attributes: { webhook_status: 'enabled', updated_at: app.updated_at },
  });
}

export function presentAppDelivery(row: WebhookDeliveryRow): AppDelivery {
  return {
    id: row.id,
    object: 'webhook_delivery',
    account_id: row.account_id,
    event_id: row.event_id,
    event_type: row.event_type,
    attempt: row.attempt,
    status: row.status as AppDelivery['status'],
    next_attempt_at: row.status === 'pending' ? row.next_attempt_at : null,
    response_status: row.response_status,
    error: row.error,
    duration_ms: row.duration_ms,
    response_body: row.response_body,
    created_at: row.created_at,
  };
}

/** The attempt log of the app's webhook, across the accounts that installed it, newest first. */
export async function listDeliveries(
  ctx: Context,
  id: string,
  query: ListAppDeliveriesInput,
): Promise<Page<WebhookDeliveryRow>> {
  const app = await ownApp(ctx, id);
  return listAppDeliveries(ctx.db, app.id, query);
}

/**
 * The app's logo, checked as the account's is (§10: a real PNG or JPEG of the stated type, ≤ 512 KB, 1 to 4,000
 * pixels a side), replacing any before; `app.updated` records `has_logo`. The consent page shows it.
 */
export async function putAppLogo(ctx: Context, id: string, input: LogoInput): Promise<App> {
  const data = decodeLogo(input);
  const sha256 = hash('sha256', data);
  return inTransaction(ctx, async (tx) => {
    const before = await ownApp(tx, id, true);
    const now = tx.clock.now().toISOString();
    const logo = { app_id: id, content_type: input.content_type, data, sha256, created_at: now };
    await repository.replaceAppLogo(tx.db, logo);
    if (before.logo_sha256 === sha256) return presentApp(before);
    const after = { ...before, logo_sha256: sha256, updated_at: now };
    await repository.updateApp(tx.db, id, { logo_sha256: sha256, updated_at: now });
    await recordEvent(tx, 'app.updated', presentApp(after), {
      previous_attributes: { has_logo: before.logo_sha256 !== null, updated_at: before.updated_at },
    });
    return presentApp(after);
  });
}

/** Removes the app's logo; answers the app (also when it had none: unchanged, no event). */
export async function deleteAppLogo(ctx: Context, id: string): Promise<App> {
  return inTransaction(ctx, async (tx) => {
    const before = await ownApp(tx, id, true);
    if (before.logo_sha256 === null) return presentApp(before);
    const now = tx.clock.now().toISOString();
    await repository.deleteAppLogo(tx.db, id);
    const after = { ...before, logo_sha256: null, updated_at: now };
    await repository.updateApp(tx.db, id, { logo_sha256: null, updated_at: now });
    await recordEvent(tx, 'app.updated', presentApp(after), {
      previous_attributes: { has_logo: true, updated_at: before.updated_at },
    });
    return presentApp(after);
  });
}
