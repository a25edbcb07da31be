// Contract section 26, "Change feed": deletions are kept 90 days (CHANGE_RETENTION_DAYS). The webhooks worker's
// pass, which prunes old events, prunes the feed's older deletions too; run here through the test clock.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { TestClock } from '../src/core/test-clock.js';
import { WebhookWorker } from '../src/workers/webhook-worker.js';
import { createTestContext, type TestContext } from './helpers/context.js';

const quiet = { info() {}, warn() {}, error() {} };
let context: TestContext;
let key: string;

before(async () => {
  context = await createTestContext({ clock: new TestClock(), env: { BMS_TEST_CLOCK: 'true' } });
  const worker = new WebhookWorker(context.database, context.app.clock, context.config.webhooks, quiet);
  context.app.workerPasses.set('webhooks', () => worker.runPass());
  ({ key } = await context.account('Feed Keeper'));
});
after(() => context.close());

async function setClock(now: Date) {
  const set = await context.request('PUT', '/test/clock', { body: { now: now.toISOString() } });
  assert.equal(set.status, 200, set.text);
}

async function madeAndDeleted(name: string): Promise<string> {
  const made = await context.request('POST', '/v1/clients', { key, body: { name } });
  assert.equal(made.status, 201, made.text);
  const deleted = await context.request('DELETE', `/v1/clients/${made.body.data.id}`, { key });
  assert.equal(deleted.status, 200, deleted.text);
  return made.body.data.id;
}

/** The feed from the start: each entry's id and whether it is a deletion. */
async function feed(): Promise<Array<[string, boolean]>> {
  const page = await context.request('GET', '/v1/changes?kinds=client&limit=1000', { key });
  assert.equal(page.status, 200, page.text);
  return page.body.data.map((entry: { id: string; deleted: boolean }) => [entry.id, entry.deleted]);
}

test('a deletion older than 90 days leaves the feed at the webhooks pass; a younger one and live objects stay', async () => {
  const start = new Date(Date.now() + 60_000);
  await setClock(start);
  const old = await madeAndDeleted('Deleted on day 0');
  const live = await context.request('POST', '/v1/clients', { key, body: { name: 'Still here' } });
  await setClock(new Date(start.getTime() + 5 * 86_400_000));
  const young = await madeAndDeleted('Deleted on day 5');
  assert.deepEqual(await feed(), [
    [old, true],
    [live.body.data.id, false],
    [young, true],
  ]);

  // Day 90 exactly is still inside the retention: nothing goes.
  await setClock(new Date(start.getTime() + 90 * 86_400_000 - 1000));
  const ran = await context.request('POST', '/test/workers/run', { body: { worker: 'webhooks' } });
  assert.equal(ran.status, 200, ran.text);
  assert.equal((await feed()).length, 3);

  await setClock(new Date(start.getTime() + 91 * 86_400_000));
  const pruned = await context.request('POST', '/test/workers/run', { body: { worker: 'webhooks' } });
  assert.equal(pruned.status, 200, pruned.text);
  assert.deepEqual(await feed(), [
    [live.body.data.id, false],
    [young, true],
  ]);
});
