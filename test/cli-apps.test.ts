// The operator's app commands (contract §25), run as a user runs them (the package's bin, another process) against
// the database a live app serves: `bms apps set-limits` raises an install's rate limits past what its business may
// set (which then only lowers them), `bms apps suspend` uninstalls (`suspended`) every install of an app, or one,
// and `bms apps unsuspend` lets a suspended app be installed again, its installs left uninstalled.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestContext, type TestContext } from './helpers/context.js';
import { installApp, type InstalledApp } from './helpers/app-install.js';
import { runBmsAsync } from './helpers/processes.js';
import { TOKEN_CACHE_TTL_MS } from '../src/modules/apps/token-cache.js';

describe('bms apps', () => {
  let context: TestContext;
  let business: { accountId: string; key: string };
  let installed: InstalledApp;

  const bms = (args: string[]) => runBmsAsync(args, { DATABASE_URL: context.databaseUrl });
  const json = (result: { status: number | null; stdout: string; stderr: string }) => {
    assert.equal(result.status, 0, result.stderr);
    return JSON.parse(result.stdout);
  };
  const install = async (id: string) =>
    (await context.request('GET', `/v1/app-installs/${id}`, { key: business.key })).body.data;
  /** The server's token cache keeps a found token 2 seconds: what another process changed holds after it. */
  const cacheLapse = () => new Promise((resolve) => setTimeout(resolve, TOKEN_CACHE_TTL_MS + 100));

  before(async () => {
    context = await createTestContext();
    business = await context.account('Acme Plumbing');
    installed = await installApp(context, business.key);
  });
  after(() => context.close());

  test('set-limits raises an install’s limits; its tokens get them; the business may then only lower them', async () => {
    const set = json(await bms(['apps', 'set-limits', installed.install_id, '--per-minute', '120', '--json']));
    assert.deepEqual(set, {
      id: installed.install_id,
      app_id: installed.app.id,
      account_id: business.accountId,
      rate_limits: { per_minute: 120, per_day: null, burst: null },
    });
    assert.deepEqual((await install(installed.install_id)).rate_limits, {
      per_minute: 120,
      per_day: null,
      burst: null,
    });
    await cacheLapse();
    const read = await context.request('GET', '/v1/clients', { key: installed.access_token });
    assert.equal(read.status, 200, read.text);
    assert.equal(read.headers['ratelimit-policy'], '"minute";q=120;w=60;bms-burst=100, "day";q=10000;w=86400');

    const lower = await context.request('PUT', `/v1/app-installs/${installed.install_id}`, {
      key: business.key,
      body: { rate_limits: { per_minute: 100 } },
    });
    assert.equal(lower.status, 200, lower.text);
    assert.equal(lower.body.data.rate_limits.per_minute, 100);
    const higher = await context.request('PUT', `/v1/app-installs/${installed.install_id}`, {
      key: business.key,
      body: { rate_limits: { per_minute: 101 } },
    });
    assert.equal(higher.status, 422, higher.text);
    assert.equal(higher.body.error.details[0].field, 'rate_limits.per_minute');

    const back = json(await bms(['apps', 'set-limits', installed.install_id, '--per-minute', 'default', '--json']));
    assert.equal(back.rate_limits.per_minute, null);
    assert.match((await bms(['apps', 'set-limits', installed.install_id, '--burst', '120'])).stdout, /burst 120/);
  });

  test('set-limits refuses what is not a limit or an install (exit 2)', async () => {
    const zero = await bms(['apps', 'set-limits', installed.install_id, '--per-minute', '0']);
    assert.equal(zero.status, 2);
    assert.match(zero.stderr, /--per-minute must be a whole number/);
    const unknown = await bms(['apps', 'set-limits', '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f01', '--json']);
    assert.equal(unknown.status, 2);
    assert.deepEqual(JSON.parse(unknown.stderr), {
      error: 'No app install with id 019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f01',
    });
    assert.equal((await bms(['apps', 'set-limits'])).status, 2);
  });

  test('suspend an install: uninstalled (`suspended`), its tokens 401, app.uninstalled recorded', async () => {
    const other = await installApp(context, business.key, { scopes: ['clients:read'] });
    const suspended = json(await bms(['apps', 'suspend', other.install_id, '--json']));
    assert.deepEqual(suspended, {
      id: other.install_id,
      object: 'app_install',
      suspended_at: null,
      uninstalled: [other.install_id],
    });
    const read = await install(other.install_id);
    assert.deepEqual([read.status, read.uninstalled_reason], ['uninstalled', 'suspended']);
    await cacheLapse();
    assert.equal((await context.request('GET', '/v1/clients', { key: other.access_token })).status, 401);
    const events = await context.request('GET', `/v1/events?type=app.uninstalled&resource_id=${other.install_id}`, {
      key: business.key,
    });
    assert.deepEqual(
      events.body.data.map((event: { actor: { type: string } }) => event.actor.type),
      ['system'],
    );
  });

  test('suspend an app: every install uninstalled, no new install link, no authorization; again: nothing', async () => {
    const suspended = json(await bms(['apps', 'suspend', installed.app.id, '--json']));
    assert.equal(suspended.object, 'app');
    assert.match(suspended.suspended_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    assert.deepEqual(suspended.uninstalled, [installed.install_id]);
    assert.equal((await install(installed.install_id)).uninstalled_reason, 'suspended');
    const link = await context.request('POST', '/v1/app-install-links', {
      key: business.key,
      body: { app_id: installed.app.id },
    });
    assert.equal(link.status, 422, link.text);
    assert.equal(link.body.error.details[0].field, 'app_id');
    const again = json(await bms(['apps', 'suspend', installed.app.id, '--json']));
    assert.deepEqual([again.suspended_at, again.uninstalled], [suspended.suspended_at, []]);
    const unknown = await bms(['apps', 'suspend', 'nope']);
    assert.equal(unknown.status, 2);
    assert.match(unknown.stderr, /No app or app install with id nope/);
  });

  test('unsuspend an app: installed anew, its old installs stay uninstalled; an install’s id is refused', async () => {
    const lifted = json(await bms(['apps', 'unsuspend', installed.app.id, '--json']));
    assert.deepEqual(lifted, { id: installed.app.id, object: 'app', suspended_at: null, lifted: true });
    assert.equal((await install(installed.install_id)).status, 'uninstalled');
    const anew = await installApp(context, business.key, { app: installed.app });
    assert.notEqual(anew.install_id, installed.install_id);
    assert.equal((await context.request('GET', '/v1/clients', { key: anew.access_token })).status, 200);
    assert.match((await bms(['apps', 'unsuspend', installed.app.id])).stdout, /was not suspended/);
    const byInstall = await bms(['apps', 'unsuspend', installed.install_id]);
    assert.equal(byInstall.status, 2);
    assert.match(byInstall.stderr, /is an app install: its suspension uninstalled it, which is final/);
    const unknown = await bms(['apps', 'unsuspend', '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f01', '--json']);
    assert.equal(unknown.status, 2);
    assert.deepEqual(JSON.parse(unknown.stderr), { error: 'No app with id 019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f01' });
  });
});
