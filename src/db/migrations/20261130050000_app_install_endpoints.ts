// docs/api-contract.md §25: an installing account's events reach the app's webhook_url through an endpoint per
// install (migration 20261129210000). Installs made before that migration have none, so their app heard nothing of
// them; this one makes it for each active install of an app with a webhook_url, as the code of this version makes
// it (events/app-endpoints.ts, `syncInstallEndpoint`): the app's URL, secret and status, and the install's
// subscriptions spelled out (events.service.ts, `appSubscriptions`). Those rules are code above db/, which a
// migration may not import, and they change as types are added; so they stand below as they are at this version,
// history written once. A type added later reaches these endpoints as it reaches every other: after a change of
// the app or a new consent spells the subscriptions out again.
// biome-ignore-all lint/suspicious/noExplicitAny: a migration runs against a past schema, so Kysely hands it an untyped instance
import type { Kysely } from 'kysely';
import { newId } from '../../core/deps.js';

/** The event types of this version by kind, with the scope that reads the kind; null: no install reads it so. */
const KINDS: ReadonlyArray<readonly [kind: string, readScope: string | null, actions: readonly string[]]> = [
  ['client', 'clients:read', ['created', 'updated', 'deleted']],
  ['property', 'clients:read', ['created', 'updated', 'deleted']],
  ['service_request', 'requests:read', ['created', 'updated', 'converted']],
  [
    'quote',
    'quotes:read',
    ['created', 'updated', 'sent', 'approved', 'declined', 'converted', 'deleted', 'deposit_paid'],
  ],
  ['job', 'jobs:read', ['created', 'updated', 'completed', 'canceled', 'deleted']],
  ['invoice', 'invoices:read', ['created', 'updated', 'sent', 'paid', 'voided', 'deleted', 'reminder_sent']],
  ['payment', 'payments:read', ['created', 'refunded', 'applied', 'unapplied']],
  // Its document's read scope (DOCUMENTS).
  ['delivery', null, ['succeeded', 'failed', 'canceled']],
  ['team_member', 'team:read', ['created', 'updated', 'deleted']],
  [
    'visit',
    'visits:read',
    [
      'created',
      'scheduled',
      'rescheduled',
      'reassigned',
      'en_route',
      'started',
      'completed',
      'canceled',
      'reopened',
      'updated',
      'deleted',
    ],
  ],
  ['visit_schedule', 'schedules:read', ['created', 'updated', 'paused', 'resumed', 'split', 'ended']],
  ['product', 'catalog:read', ['created', 'updated', 'deleted']],
  ['tax_rate', 'catalog:read', ['created', 'updated', 'deleted']],
  ['recurring_invoice', 'recurring_invoices:read', ['created', 'updated', 'paused', 'resumed', 'ended']],
  ['availability_exception', 'team:read', ['created', 'updated', 'deleted']],
  [
    'credit_note',
    'credit_notes:read',
    ['created', 'updated', 'issued', 'sent', 'applied', 'unapplied', 'refunded', 'voided', 'deleted'],
  ],
  [
    'time_entry',
    'time_entries:read',
    ['created', 'updated', 'deleted', 'started', 'stopped', 'approved', 'unapproved'],
  ],
  ['time_lock', 'time_entries:read', ['locked', 'unlocked']],
  // Its own install's, always (OWN_INSTALL).
  ['app', null, []],
  ['custom_field', 'custom_fields:read', ['created', 'updated', 'deleted']],
  ['tag', 'tags:read', ['renamed', 'deleted']],
  ['attachment', 'attachments:read', ['created', 'updated', 'deleted']],
];

/** The documents a delivery is of, with their read scopes. */
const DOCUMENTS = [
  ['invoice', 'invoices:read'],
  ['quote', 'quotes:read'],
  ['credit_note', 'credit_notes:read'],
] as const;
const OWN_INSTALL = ['installed', 'reauthorized', 'uninstalled'];
const DISABLED = 'the app’s webhook_status is disabled';

function matches(pattern: string, type: string): boolean {
  return pattern === '*' || pattern === type || (pattern.endsWith('.*') && type.startsWith(pattern.slice(0, -1)));
}

/** `appSubscriptions` of this version: what the install's endpoint subscribes to. */
function subscriptions(webhookEvents: readonly string[], scopes: ReadonlySet<string>, installId: string): string[] {
  const spelled: string[] = [];
  for (const [kind, readScope, actions] of KINDS) {
    if (kind === 'app') for (const action of OWN_INSTALL) spelled.push(`app.${action}@${installId}`);
    for (const action of actions) {
      const type = `${kind}.${action}`;
      if (!webhookEvents.some((pattern) => matches(pattern, type))) continue;
      if (kind === 'delivery') {
        for (const [document, scope] of DOCUMENTS) if (scopes.has(scope)) spelled.push(`${type}@${document}`);
      } else if (readScope !== null && scopes.has(readScope)) spelled.push(type);
    }
  }
  return spelled;
}

const json = (value: unknown): string[] => (typeof value === 'string' ? JSON.parse(value) : value) as string[];

// `any`: migrations run against past schemas, so they use an untyped Kysely.
export async function up(db: Kysely<any>): Promise<void> {
  const installs = await db
    .selectFrom('app_installs as i')
    .innerJoin('apps as a', 'a.id', 'i.app_id')
    .leftJoin('webhook_endpoints as w', 'w.app_install_id', 'i.id')
    .select([
      'i.id as install_id',
      'i.account_id as account_id',
      'i.scopes as install_scopes',
      'a.id as app_id',
      'a.scopes as app_scopes',
      'a.webhook_url as url',
      'a.webhook_events as webhook_events',
      'a.webhook_status as webhook_status',
      'a.webhook_secret as secret',
    ])
    .where('i.status', '=', 'active')
    .where('a.webhook_url', 'is not', null)
    .where('w.id', 'is', null)
    .orderBy('i.id')
    .execute();
  const now = new Date().toISOString();
  for (const install of installs) {
    const appScopes = json(install.app_scopes);
    const scopes = new Set(json(install.install_scopes).filter((scope) => appScopes.includes(scope)));
    const enabled = install.webhook_status === 'enabled';
    await db
      .insertInto('webhook_endpoints')
      .values({
        id: newId(),
        account_id: install.account_id,
        url: install.url,
        description: null,
        enabled_events: JSON.stringify(subscriptions(json(install.webhook_events), scopes, install.install_id)),
        status: enabled ? 'enabled' : 'disabled',
        disabled_reason: enabled ? null : DISABLED,
        secret: install.secret,
        previous_secret: null,
        previous_secret_expires_at: null,
        failing_since: null,
        metadata: '{}',
        app_id: install.app_id,
        app_install_id: install.install_id,
        created_at: now,
        updated_at: now,
      })
      .execute();
  }
}

// `any`: see above. The endpoints stay: the schema before holds them, as the code of that version made them for
// the installs it made.
export async function down(_db: Kysely<any>): Promise<void> {}
