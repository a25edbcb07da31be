// Rate limits, on both stores (in-process and a real Redis), with a hand-moved clock: the burst of 100,
// one token a second after, the daily quota and its reset at UTC midnight, per-key overrides, isolation,
// the headers' values, 429s taking nothing, failed authentication per IP, and Redis failing open.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { FailOpenStore, MemoryStore, RedisStore, type RateLimitStore } from '../src/http/rate-limit/stores.js';
import { SCOPES } from '../src/kernel/scopes.js';
import { createTestContext, ManualClock, type ApiResponse, type TestContext } from './helpers/context.js';
import { startRedis, type TestRedis } from './helpers/redis.js';

let redis: TestRedis;
before(async () => {
  redis = await startRedis();
});
after(() => redis.stop());

function secondsToMidnight(now: Date): number {
  const midnight = new Date(now);
  midnight.setUTCHours(24, 0, 0, 0);
  return Math.ceil((midnight.getTime() - now.getTime()) / 1000);
}

for (const storeName of ['memory', 'redis'] as const) {
  describe(`rate limits (${storeName} store)`, () => {
    const clock = new ManualClock(new Date('2026-11-21T10:00:00.000Z'));
    let context: TestContext;
    let accountId: string;
    let store: RateLimitStore;

    before(async () => {
      store = storeName === 'memory' ? new MemoryStore() : new RedisStore(redis.url);
      context = await createTestContext({ clock, rateLimitStore: store });
      ({ accountId } = await context.account());
    });
    after(() => context.close());

    /** A key with the contract's default limits, or the given overrides. */
    async function keyWith(rateLimits: { burst?: number; perMinute?: number; perDay?: number } = {}) {
      return (await context.key(accountId, SCOPES, { rateLimits })).key;
    }

    async function hit(key: string, path = '/v1/clients'): Promise<ApiResponse> {
      return context.request('GET', path, { key });
    }

    async function burst(key: string, count: number): Promise<number[]> {
      const statuses: number[] = [];
      for (let index = 0; index < count; index += 1) statuses.push((await hit(key)).status);
      return statuses;
    }

    test('exactly 100 back-to-back requests, then 429 with Retry-After; one more each second after', async () => {
      clock.set(new Date('2026-11-21T10:00:00.000Z'));
      const key = await keyWith();
      assert.deepEqual(await burst(key, 100), Array(100).fill(200));
      const limited = await hit(key);
      assert.equal(limited.status, 429);
      assert.equal(limited.body.error.code, 'RATE_LIMITED');
      assert.equal(limited.headers['retry-after'], '1');
      assert.ok(limited.body.meta.request_id);
      clock.advance(999);
      assert.equal((await hit(key)).status, 429, 'not a whole token yet');
      clock.advance(1);
      assert.equal((await hit(key)).status, 200, 'one token after one second');
      assert.equal((await hit(key)).status, 429);
      clock.advance(5000);
      assert.deepEqual(await burst(key, 6), [200, 200, 200, 200, 200, 429], 'five seconds, five tokens');
    });

    test('429s take no token', async () => {
      const key = await keyWith({ burst: 2 });
      await burst(key, 2);
      assert.deepEqual(await burst(key, 50), Array(50).fill(429));
      clock.advance(1000);
      assert.deepEqual(await burst(key, 2), [200, 429]);
    });

    test('every outcome takes a token: 404, 422 and 403 count', async () => {
      const key = await keyWith({ burst: 3 });
      assert.equal((await hit(key, '/v1/clients/019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f01')).status, 404);
      assert.equal((await hit(key, '/v1/clients?limit=0')).status, 422);
      const narrow = (await context.key(accountId, ['jobs:read'], { rateLimits: { burst: 1 } })).key;
      assert.equal((await hit(narrow)).status, 403);
      assert.equal((await hit(narrow)).status, 429, 'the 403 took the only token');
      assert.equal((await hit(key)).status, 200);
      assert.equal((await hit(key)).status, 429);
    });

    test('headers tell the truth, on every authenticated response', async () => {
      clock.set(new Date('2026-11-21T10:00:00.000Z'));
      const key = await keyWith();
      const first = await hit(key);
      const dayReset = secondsToMidnight(clock.now());
      assert.equal(first.headers['ratelimit-policy'], '"minute";q=60;w=60;bms-burst=100, "day";q=10000;w=86400');
      assert.equal(first.headers.ratelimit, `"minute";r=99;t=1, "day";r=9999;t=${dayReset}`);
      assert.equal(first.headers['x-ratelimit-limit'], '100');
      assert.equal(first.headers['x-ratelimit-remaining'], '99');
      assert.equal(first.headers['x-ratelimit-reset'], String(clock.now().getTime() / 1000 + 1));
      await burst(key, 9);
      const tenth = await hit(key, '/v1/clients/not-a-uuid');
      assert.equal(tenth.status, 404);
      assert.equal(tenth.headers.ratelimit, `"minute";r=89;t=11, "day";r=9989;t=${dayReset}`, 'on errors too');
      clock.advance(2500);
      const later = await hit(key);
      // 89 tokens + 2.5 refilled - 1 taken = 90.5: 90 whole tokens, 9.5 s until full.
      assert.equal(later.headers.ratelimit, `"minute";r=90;t=10, "day";r=9988;t=${secondsToMidnight(clock.now())}`);
      assert.equal(
        (await context.request('GET', '/health')).headers.ratelimit,
        undefined,
        'not on unauthenticated endpoints',
      );
    });

    test('a 429 carries the headers with nothing left', async () => {
      const key = await keyWith({ burst: 1, perMinute: 30 });
      await hit(key);
      const limited = await hit(key);
      assert.equal(limited.status, 429);
      assert.match(String(limited.headers.ratelimit), /^"minute";r=0;t=2, "day";r=\d+;t=\d+$/);
      assert.equal(limited.headers['x-ratelimit-remaining'], '0');
      assert.equal(limited.headers['retry-after'], '2', '30 a minute: a token every 2 seconds');
    });

    test('the daily quota, and its reset at UTC midnight', async () => {
      clock.set(new Date('2026-11-21T23:59:50.000Z'));
      const key = await keyWith({ perDay: 5 });
      assert.deepEqual(await burst(key, 6), [200, 200, 200, 200, 200, 429]);
      const limited = await hit(key);
      assert.equal(limited.headers['retry-after'], '10', 'until midnight');
      assert.match(String(limited.headers.ratelimit), /"day";r=0;t=10$/);
      clock.set(new Date('2026-11-22T00:00:00.000Z'));
      assert.deepEqual(await burst(key, 6), [200, 200, 200, 200, 200, 429], 'a new day, a new quota');
    });

    test('per-key overrides: burst and per-minute rate', async () => {
      const key = await keyWith({ burst: 3, perMinute: 120 });
      assert.deepEqual(await burst(key, 4), [200, 200, 200, 429]);
      clock.advance(500);
      assert.deepEqual(await burst(key, 2), [200, 429], '120 a minute is one every half second');
      const first = await hit(key);
      assert.match(
        String(first.headers['ratelimit-policy']),
        /^"minute";q=120;w=60;bms-burst=3, "day";q=10000;w=86400$/,
      );
    });

    test('keys a key mints share its budget: parent, children and grandchildren together get its 6 a day', async () => {
      clock.set(new Date('2026-11-23T08:00:00.000Z'));
      const parent = await keyWith({ perDay: 6 });
      const mint = async (by: string, rateLimits: Record<string, number>) => {
        const made = await context.request('POST', '/v1/api-keys', {
          key: by,
          body: { name: 'child', scopes: ['clients:read', 'api_keys:write'], rate_limits: rateLimits },
        });
        assert.equal(made.status, 201, made.text);
        return made.body.data.secret as string;
      };
      // Each child may have 6 a day of its own; the three mints are three of the parent's six.
      const children = [
        await mint(parent, { per_day: 6 }),
        await mint(parent, { per_day: 6 }),
        await mint(parent, { per_day: 2 }),
      ];
      const grandchild = await mint(children[0]!, { per_day: 6 });
      let admitted = 0;
      for (let round = 0; round < 6; round += 1)
        for (const key of [...children, grandchild]) if ((await hit(key)).status === 200) admitted += 1;
      assert.equal(admitted, 2, 'six a day in all: three mints by the parent, one by a child, two more requests');
      const refused = await hit(parent);
      assert.equal(refused.status, 429, 'the parent’s own requests share the same six');
      assert.equal(refused.headers['retry-after'], String(16 * 3600), 'until UTC midnight');
      const child = await hit(children[1]!);
      assert.equal(child.status, 429);
      assert.match(String(child.headers.ratelimit), /"day";r=0;t=57600$/, 'a child’s headers show the shared day');

      // A new day: a child's own tighter limit still holds, and its requests still count for the parent.
      clock.set(new Date('2026-11-24T00:00:00.000Z'));
      assert.deepEqual(await burst(children[2]!, 3), [200, 200, 429], 'the child’s own 2 a day');
      assert.deepEqual(await burst(parent, 5), [200, 200, 200, 200, 429], 'the parent has 4 of its 6 left');
    });

    test('keys are limited separately', async () => {
      const spent = await keyWith({ burst: 2 });
      const fresh = await keyWith({ burst: 2 });
      await burst(spent, 3);
      assert.deepEqual(await burst(fresh, 3), [200, 200, 429]);
    });

    test('failed authentication is limited per IP: 20, then 429 even with a good key, then one every 3 s', async () => {
      const key = await keyWith();
      const from = (remoteAddress: string, apiKey: string) =>
        context.request('GET', '/v1/clients', { key: apiKey, remoteAddress });
      const bad = `bms_${'x'.repeat(40)}`;
      for (let index = 0; index < 20; index += 1) assert.equal((await from('203.0.113.7', bad)).status, 401);
      const blocked = await from('203.0.113.7', bad);
      assert.deepEqual(
        [blocked.status, blocked.body.error.code, blocked.headers['retry-after']],
        [429, 'RATE_LIMITED', '3'],
      );
      assert.equal((await from('203.0.113.7', key)).status, 429, 'no key is looked at from a blocked address');
      assert.equal((await from('203.0.113.8', key)).status, 200, 'other addresses are not affected');
      clock.advance(3000);
      assert.equal((await from('203.0.113.7', bad)).status, 401, 'one more try after 3 seconds');
      assert.equal((await from('203.0.113.7', bad)).status, 429);
      const missing = await context.request('GET', '/v1/clients', { remoteAddress: '203.0.113.9' });
      assert.equal(missing.status, 401);
    });
  });
}

test('Redis failing: the service keeps answering, limiting per process, and says so in the log', async () => {
  const own = await startRedis();
  const clock = new ManualClock(new Date('2026-11-21T10:00:00.000Z'));
  const logs: string[] = [];
  const log = { error: (fields: object, message: string) => void logs.push(`${message} ${JSON.stringify(fields)}`) };
  const context = await createTestContext({
    clock,
    rateLimitStore: new FailOpenStore(new RedisStore(own.url), new MemoryStore(), log),
  });
  const { accountId } = await context.account();
  const key = (await context.key(accountId, SCOPES, { rateLimits: { burst: 3 } })).key;
  assert.equal((await context.request('GET', '/v1/clients', { key })).status, 200);
  await own.stop();
  const statuses = [];
  for (let index = 0; index < 4; index += 1)
    statuses.push((await context.request('GET', '/v1/clients', { key })).status);
  assert.deepEqual(statuses, [200, 200, 200, 429], 'limited by the in-process bucket, never a 500');
  assert.ok(
    logs.some((line) => line.includes('Redis is not answering')),
    'logged loudly',
  );
  await context.close();
});

test('behind a proxy, failures are counted per the address the proxy appended, never one the client wrote', async () => {
  // TRUST_PROXY as a number of hops (true is one), and as the proxy's address: the same rule.
  for (const trust of ['true', '1', '10.1.1.1', '10.1.0.0/16']) {
    const context = await createTestContext({ env: { TRUST_PROXY: trust } });
    const bad = `bms_${'y'.repeat(40)}`;
    // The client wrote the first address; the proxy at 10.1.1.1 appended the one it saw.
    const from = (client: string, forged = '203.0.113.9', remoteAddress = '10.1.1.1') =>
      context.request('GET', '/v1/clients', {
        key: bad,
        remoteAddress,
        headers: { 'x-forwarded-for': `${forged}, ${client}` },
      });
    for (let index = 0; index < 20; index += 1)
      assert.equal((await from('198.51.100.1', `203.0.113.${index}`)).status, 401, trust);
    assert.equal(
      (await from('198.51.100.1', '192.0.2.77')).status,
      429,
      `${trust}: a new forged address does not escape the limit`,
    );
    assert.equal(
      (await from('198.51.100.2', '198.51.100.1')).status,
      401,
      `${trust}: writing a victim's address does not lock the victim out, nor block another client`,
    );
    await context.close();
  }
});

test('a request that did not come through a trusted proxy is counted on its own address', async () => {
  const context = await createTestContext({ env: { TRUST_PROXY: '10.1.1.1' } });
  const bad = `bms_${'z'.repeat(40)}`;
  for (let index = 0; index < 20; index += 1) {
    const response = await context.request('GET', '/v1/clients', {
      key: bad,
      remoteAddress: '10.9.9.9',
      headers: { 'x-forwarded-for': `198.51.100.${index}` },
    });
    assert.equal(response.status, 401);
  }
  assert.equal(
    (
      await context.request('GET', '/v1/clients', {
        key: bad,
        remoteAddress: '10.9.9.9',
        headers: { 'x-forwarded-for': '198.51.100.200' },
      })
    ).status,
    429,
  );
  await context.close();
});

test('TRUST_PROXY takes false, hops, or proxy addresses; anything else stops the start', async () => {
  const { loadConfig } = await import('../src/config.js');
  assert.equal(loadConfig({ TRUST_PROXY: 'false' }).trustProxy, false);
  assert.equal(loadConfig({ TRUST_PROXY: '2' }).trustProxy, 2);
  assert.equal(loadConfig({ TRUST_PROXY: '10.0.0.1, fd00::/8' }).trustProxy, '10.0.0.1,fd00::/8');
  for (const value of ['yes', '10.0.0.999', '10.0.0.0/33', 'proxy.example.com'])
    assert.throws(() => loadConfig({ TRUST_PROXY: value }), /TRUST_PROXY/);
});
