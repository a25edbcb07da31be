// Overload shedding: while the event loop lags beyond OVERLOAD_MAX_EVENT_LOOP_DELAY_MS, API requests are
// refused at once with 503 SERVICE_UNAVAILABLE and Retry-After; /health answers, /ready reports 503, and
// service resumes when the lag is gone; the app's requests to itself (an import's rows) are never shed. The lag
// is made here by blocking the loop, as a burst of work beyond capacity would; bench/overload.ts shows the same
// under real load.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, test } from 'node:test';
import { shedShare } from '../src/http/overload.js';
import { runAsOperation } from '../src/kernel/operation-scope.js';
import { createTestContext, type ApiResponse, type TestContext } from './helpers/context.js';

let context: TestContext;
let key: string;

before(async () => {
  context = await createTestContext({ env: { OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '20' } });
  ({ key } = await context.account());
});
after(() => context.close());

async function pollUntil(status: number, ms: number): Promise<ApiResponse | undefined> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const response = await context.request('GET', '/v1/clients', { key });
    if (response.status === status) return response;
    await sleep(5);
  }
  return undefined;
}

test('a lagging event loop sheds API requests with 503 and Retry-After, keeps /health, and recovers', async () => {
  assert.ok(await pollUntil(200, 5000), 'serves normally before the lag');
  const until = Date.now() + 1500;
  while (Date.now() < until) {
    // Busy: the process has more work than it can do.
  }
  // While the lag lasts (a sample or two on a busy machine), the API sheds, /ready says 503 and /health
  // answers. They are polled together: one request after another could each see a different sample.
  const deadline = Date.now() + 3000;
  let shed: ApiResponse | undefined;
  let ready: ApiResponse | undefined;
  const healthStatuses: number[] = [];
  const ownStatuses: number[] = [];
  while (Date.now() < deadline && (!shed || !ready)) {
    const [api, readiness, health, own] = await Promise.all([
      context.request('GET', '/v1/clients', { key }),
      context.request('GET', '/ready'),
      context.request('GET', '/health'),
      // A request the app makes to itself (an import's row, a change set's operation) is never shed.
      runAsOperation({ pass: 'read', actor: 'api_key' }, () => context.request('GET', '/v1/clients', { key })),
    ]);
    if (api.status === 503) shed ??= api;
    if (readiness.status === 503) ready ??= readiness;
    healthStatuses.push(health.status);
    ownStatuses.push(own.status);
    await sleep(5);
  }
  assert.ok(shed, 'an API request was shed');
  assert.equal(shed.body.error.code, 'SERVICE_UNAVAILABLE');
  assert.match(shed.body.error.message, /overloaded/);
  assert.equal(shed.headers['retry-after'], '1');
  assert.match(shed.body.meta.request_id, /^req_/);
  assert.deepEqual([...new Set(healthStatuses)], [200], '/health answers under pressure');
  assert.deepEqual([...new Set(ownStatuses)], [200], 'the app’s requests to itself are not shed');
  assert.ok(ready, '/ready tells the load balancer to send traffic elsewhere');
  assert.equal(ready.body.error.code, 'SERVICE_UNAVAILABLE');

  assert.ok(await pollUntil(200, 5000), 'serves again once the lag is gone');
});

test('OVERLOAD_MAX_EVENT_LOOP_DELAY_MS=0 never sheds', async () => {
  const calm = await createTestContext({ env: { OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '0' } });
  try {
    const account = await calm.account();
    const until = Date.now() + 600;
    while (Date.now() < until) {
      // Busy.
    }
    for (let i = 0; i < 40; i++) {
      assert.equal((await calm.request('GET', '/v1/clients', { key: account.key })).status, 200);
      await sleep(10);
    }
  } finally {
    await calm.close();
  }
});

test('the share refused grows with the lag past the limit: none at it, half at twice it, never over 95 %', () => {
  assert.equal(shedShare(150, 200), 0);
  assert.equal(shedShare(200, 200), 0);
  assert.equal(shedShare(400, 200), 0.5);
  assert.equal(shedShare(800, 200), 0.75);
  assert.equal(shedShare(100_000, 200), 0.95);
});
