// The migration that gives installs made before apps' webhooks their endpoint (contract §25), on a database whose
// apps and installs were written with that version's SQL, on both engines: each active install of an app with a
// webhook_url gets one endpoint in the installing account, with the app's URL, secret and status and the
// install's subscriptions spelled out; an install without a webhook, an uninstalled one, or one that already has
// its endpoint gets none; down and up again add nothing.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { migratableDatabase } from './helpers/migration.js';

const NAME = '20261130050000_app_install_endpoints';
/** The version whose installs had no endpoint. */
const WEBHOOKS = '20261129210000_app_webhook_deliveries';

const PUBLISHER = '019a8f4e-7c1a-7d2b-9a3e-00000000a001';
const BUSINESS = '019a8f4e-7c1a-7d2b-9a3e-00000000a002';
const HOOKED = '019a8f4e-7c1a-7d2b-9a3e-00000000b001';
const SILENT = '019a8f4e-7c1a-7d2b-9a3e-00000000b002';
const PAUSED = '019a8f4e-7c1a-7d2b-9a3e-00000000b003';
const INSTALL = '019a8f4e-7c1a-7d2b-9a3e-00000000c001';
const WITHOUT_WEBHOOK = '019a8f4e-7c1a-7d2b-9a3e-00000000c002';
const PAUSED_INSTALL = '019a8f4e-7c1a-7d2b-9a3e-00000000c003';
const UNINSTALLED = '019a8f4e-7c1a-7d2b-9a3e-00000000c004';
const LATER = '019a8f4e-7c1a-7d2b-9a3e-00000000c005';
const LATER_ENDPOINT = '019a8f4e-7c1a-7d2b-9a3e-00000000d005';

test('active installs of apps with a webhook get their endpoint, spelled out as the code of this version does', async () => {
  const database = await migratableDatabase();
  const { db } = database;
  try {
    await database.migrateTo(database.before(WEBHOOKS));
    const now = '2026-11-20T10:00:00.000Z';
    for (const [id, name] of [
      [PUBLISHER, 'Route Planner Ltd'],
      [BUSINESS, 'Acme Plumbing'],
    ])
      await sql`insert into accounts (id, name, currency, payment_terms_days, created_at, updated_at)
        values (${id}, ${name}, ${'USD'}, ${30}, ${now}, ${now})`.execute(db);
    const app = async (id: string, url: string | null, events: string, status: string, scopes: string) =>
      sql`insert into apps (id, account_id, name, client_type, redirect_uris, install_url, scopes, visibility, webhook_url, webhook_events, webhook_status, webhook_secret, metadata, created_at, updated_at)
        values (${id}, ${PUBLISHER}, ${'App'}, ${'confidential'}, ${'["https://a.example/cb"]'}, ${'https://a.example/install'}, ${scopes}, ${'public'}, ${url}, ${events}, ${status}, ${`whsec_${id.slice(-4)}`}, ${'{}'}, ${now}, ${now})`.execute(
        db,
      );
    await app(
      HOOKED,
      'https://hooks.example.test/a',
      '["*"]',
      'enabled',
      '["clients:read","invoices:read","events:read"]',
    );
    await app(SILENT, null, '["*"]', 'enabled', '["clients:read"]');
    await app(PAUSED, 'https://hooks.example.test/c', '["invoice.paid","client.*"]', 'disabled', '["clients:read"]');
    const install = async (id: string, account: string, appId: string, scopes: string, status = 'active') =>
      sql`insert into app_installs (id, account_id, app_id, scopes, status, family_id, installed_by_type, installed_by_id, installed_at, uninstalled_at, uninstalled_reason, created_at, updated_at)
        values (${id}, ${account}, ${appId}, ${scopes}, ${status}, ${id}, ${'api_key'}, ${null}, ${now}, ${status === 'active' ? null : now}, ${status === 'active' ? null : 'business'}, ${now}, ${now})`.execute(
        db,
      );
    // The install holds invoices:read and clients:read; events:read is the app's alone.
    await install(INSTALL, BUSINESS, HOOKED, '["clients:read","invoices:read"]');
    await install(WITHOUT_WEBHOOK, BUSINESS, SILENT, '["clients:read"]');
    await install(PAUSED_INSTALL, BUSINESS, PAUSED, '["clients:read"]');
    await install(UNINSTALLED, PUBLISHER, PAUSED, '["clients:read"]', 'uninstalled');

    // An install made once apps had webhooks, with the endpoint that version's code made.
    await database.migrateTo(database.before(NAME));
    await install(LATER, PUBLISHER, HOOKED, '["clients:read"]');
    await sql`insert into webhook_endpoints (id, account_id, url, enabled_events, status, secret, metadata, app_id, app_install_id, created_at, updated_at)
      values (${LATER_ENDPOINT}, ${PUBLISHER}, ${'https://hooks.example.test/a'}, ${'["client.created"]'}, ${'enabled'}, ${'whsec_b001'}, ${'{}'}, ${HOOKED}, ${LATER}, ${now}, ${now})`.execute(
      db,
    );

    assert.ok((await database.migrateToLatest()).includes(NAME));
    const expected = [
      {
        app_install_id: INSTALL,
        account_id: BUSINESS,
        app_id: HOOKED,
        url: 'https://hooks.example.test/a',
        secret: 'whsec_b001',
        status: 'enabled',
        disabled_reason: null,
        enabled_events: [
          'client.created',
          'client.updated',
          'client.deleted',
          'property.created',
          'property.updated',
          'property.deleted',
          'invoice.created',
          'invoice.updated',
          'invoice.sent',
          'invoice.paid',
          'invoice.voided',
          'invoice.deleted',
          'invoice.reminder_sent',
          'delivery.succeeded@invoice',
          'delivery.failed@invoice',
          'delivery.canceled@invoice',
          `app.installed@${INSTALL}`,
          `app.reauthorized@${INSTALL}`,
          `app.uninstalled@${INSTALL}`,
        ],
      },
      {
        app_install_id: PAUSED_INSTALL,
        account_id: BUSINESS,
        app_id: PAUSED,
        url: 'https://hooks.example.test/c',
        secret: 'whsec_b003',
        status: 'disabled',
        disabled_reason: 'the app’s webhook_status is disabled',
        enabled_events: [
          'client.created',
          'client.updated',
          'client.deleted',
          `app.installed@${PAUSED_INSTALL}`,
          `app.reauthorized@${PAUSED_INSTALL}`,
          `app.uninstalled@${PAUSED_INSTALL}`,
        ],
      },
      {
        app_install_id: LATER,
        account_id: PUBLISHER,
        app_id: HOOKED,
        url: 'https://hooks.example.test/a',
        secret: 'whsec_b001',
        status: 'enabled',
        disabled_reason: null,
        enabled_events: ['client.created'],
      },
    ];
    const endpoints = async () =>
      (
        await db
          .selectFrom('webhook_endpoints')
          .select([
            'app_install_id',
            'account_id',
            'app_id',
            'url',
            'secret',
            'status',
            'disabled_reason',
            'enabled_events',
          ])
          .orderBy('app_install_id')
          .execute()
      ).map((row) => ({
        ...row,
        enabled_events: typeof row.enabled_events === 'string' ? JSON.parse(row.enabled_events) : row.enabled_events,
      }));
    assert.deepEqual(await endpoints(), expected);

    await database.migrateTo(database.before(NAME));
    assert.deepEqual(await endpoints(), expected, 'down keeps the endpoints');
    assert.ok((await database.migrateToLatest()).includes(NAME));
    assert.deepEqual(await endpoints(), expected, 'up again adds none');
  } finally {
    await database.close();
  }
});
