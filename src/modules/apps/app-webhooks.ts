// An app's webhook (docs/api-contract.md §25): the installing account's events reach the app's webhook_url by
// §9's rules, through an endpoint per install that the events module keeps (events/app-endpoints.ts). This file
// hands it the app and the install as they are after each change: an install or a new consent, a change of the
// app's webhook or scopes.
import { fromJson, type Executor } from '../../db/index.js';
import type { AppInstallRow, AppRow } from '../../db/types.js';
import { type AppWebhook, syncAppEndpoints, syncInstallEndpoint } from '../events/index.js';
import * as repository from './apps.repository.js';

export function webhookOf(app: AppRow): AppWebhook {
  return {
    appId: app.id,
    url: app.webhook_url,
    enabled: app.webhook_status === 'enabled',
    secret: app.webhook_secret,
    events: fromJson<string[]>(app.webhook_events),
  };
}

/** What the install may read: its scopes that the app still asks for (one it dropped leaves at once). */
function effectiveScopes(install: AppInstallRow, app: AppRow): Set<string> {
  const appScopes = fromJson<string[]>(app.scopes);
  return new Set(fromJson<string[]>(install.scopes).filter((scope) => appScopes.includes(scope)));
}

/** The install's endpoint as its app and scopes now say; call it before the install's event is recorded. */
export async function syncInstallWebhook(
  db: Executor,
  now: string,
  app: AppRow,
  install: AppInstallRow,
): Promise<void> {
  await syncInstallEndpoint(db, now, webhookOf(app), {
    id: install.id,
    accountId: install.account_id,
    scopes: effectiveScopes(install, app),
  });
}

/** After a change of the app's webhook or scopes: every endpoint of its installs, in the same transaction. */
export async function syncAppWebhook(db: Executor, now: string, app: AppRow): Promise<void> {
  await syncAppEndpoints(db, now, webhookOf(app));
  for (const install of await repository.findActiveInstallsOfApp(db, app.id))
    await syncInstallWebhook(db, now, app, install);
}
