// Lapsed refresh tokens (contract §25): an install whose live refresh token went unused for its 90 days is
// uninstalled (`expired`) by the sweeper's pass (`POST /test/workers/run {worker: "app_installs"}`), in one
// transaction with `app.uninstalled` (actor system); one refreshed in time lives on. Driven by the test clock,
// which only moves forward, so the tests run in the order of the time they set.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { TestClock } from '../src/core/test-clock.js';
import { AppInstallSweeper } from '../src/workers/app-install-sweeper.js';
import { createTestContext, type TestContext } from './helpers/context.js';
import { installApp, type InstalledApp } from './helpers/app-install.js';

const DAY = 86_400_000;
const quiet = { error() {} };

describe('installs whose refresh token lapsed', () => {
  let context: TestContext;
  let key: string;
  let start: number;
  let refreshed: InstalledApp;
  let idle: InstalledApp;
  let refreshToken: string;

  const setClock = async (at: number) => {
    const set = await context.request('PUT', '/test/clock', { body: { now: new Date(at).toISOString() } });
    assert.equal(set.status, 200, set.text);
  };
  const sweep = async () => {
    const run = await context.request('POST', '/test/workers/run', { body: { worker: 'app_installs' } });
    assert.equal(run.status, 200, run.text);
    return run.body.data as { worker: string; processed: number };
  };
  const install = async (id: string) =>
    (await context.request('GET', `/v1/app-installs/${id}`, { key })).body.data as {
      status: string;
      uninstalled_reason: string | null;
    };
  const refresh = (installed: InstalledApp, token: string) =>
    context.request('POST', '/oauth/token', {
      rawBody: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: token,
        client_id: installed.app.id,
        client_secret: installed.app.client_secret,
      }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });

  before(async () => {
    context = await createTestContext({ clock: new TestClock(), env: { BMS_TEST_CLOCK: 'true' } });
    const { app, database } = context;
    const sweeper = new AppInstallSweeper(database, app.clock, app.links, quiet);
    app.workerPasses.set('app_installs', () => sweeper.runPass());
    ({ key } = await context.account('Acme Plumbing'));
    start = context.clock.now().getTime();
    refreshed = await installApp(context, key, { scopes: ['clients:read'] });
    idle = await installApp(context, key, { scopes: ['clients:read'] });
    refreshToken = refreshed.refresh_token;
  });
  after(() => context.close());

  test('at 89 days nothing lapsed; the pass ends nothing', async () => {
    await setClock(start + 89 * DAY);
    assert.deepEqual(await sweep(), { worker: 'app_installs', processed: 0 });
    assert.equal((await install(idle.install_id)).status, 'active');
    // One install is refreshed now: its new refresh token lives 90 days from here.
    const renewed = await refresh(refreshed, refreshToken);
    assert.equal(renewed.status, 200, renewed.text);
    refreshToken = renewed.body.refresh_token;
  });

  test('past 90 days the idle install is uninstalled (`expired`), the refreshed one is not', async () => {
    await setClock(start + 90 * DAY + 60_000);
    assert.deepEqual(await sweep(), { worker: 'app_installs', processed: 1 });
    assert.deepEqual(await install(idle.install_id), {
      ...(await install(idle.install_id)),
      status: 'uninstalled',
      uninstalled_reason: 'expired',
    });
    assert.equal((await install(refreshed.install_id)).status, 'active');
    const events = await context.request('GET', `/v1/events?type=app.uninstalled&resource_id=${idle.install_id}`, {
      key,
    });
    assert.deepEqual(
      events.body.data.map((event: { actor: { type: string }; data: { object: { uninstalled_reason: string } } }) => [
        event.actor.type,
        event.data.object.uninstalled_reason,
      ]),
      [['system', 'expired']],
    );
    const late = await refresh(idle, idle.refresh_token);
    assert.equal(late.status, 400, late.text);
    assert.equal(late.body.error, 'invalid_grant');
    assert.deepEqual(await sweep(), { worker: 'app_installs', processed: 0 }, 'a second pass finds nothing');
  });

  test('the refreshed install lapses 90 days after its refresh', async () => {
    await setClock(start + 89 * DAY + 90 * DAY - 60_000);
    assert.deepEqual(await sweep(), { worker: 'app_installs', processed: 0 });
    await setClock(start + 89 * DAY + 90 * DAY + 60_000);
    assert.deepEqual(await sweep(), { worker: 'app_installs', processed: 1 });
    assert.equal((await install(refreshed.install_id)).uninstalled_reason, 'expired');
  });
});
