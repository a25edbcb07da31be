// API keys through the API (contract section 20): create (the secret shown once), list, get, PUT, revoke and
// roll; no escalation; allowed_cidrs; created_by; events without secrets. The fixed clock drives the overlap.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createTestContext, ManualClock, type TestContext } from './helpers/context.js';

const clock = new ManualClock(new Date('2026-11-25T12:00:00.000Z'));
let context: TestContext;
let owner: { accountId: string; key: string };
/** Every secret seen in these tests: none may appear in an event, a list or a log line. */
const secrets: string[] = [];

const request = (method: string, url: string, key: string, body?: unknown, remoteAddress?: string) =>
  context.request(method, url, { key, body, ...(remoteAddress ? { remoteAddress } : {}) });

async function makeKey(key: string, body: Record<string, unknown>) {
  const response = await request('POST', '/v1/api-keys', key, body);
  assert.equal(response.status, 201, response.text);
  secrets.push(response.body.data.secret);
  return response.body.data;
}

before(async () => {
  context = await createTestContext({ clock });
  owner = await context.account('Keys Inc');
  secrets.push(owner.key);
});
after(() => context.close());

test('create answers the secret once; get and list never show it; the new key works at once', async () => {
  const created = await request('POST', '/v1/api-keys', owner.key, {
    name: 'Zapier',
    scopes: ['clients:read', 'clients:write'],
  });
  assert.equal(created.status, 201, created.text);
  assert.equal(created.headers.location, `/v1/api-keys/${created.body.data.id}`);
  const key = created.body.data;
  secrets.push(key.secret);
  assert.match(key.secret, /^bms_[0-9A-Za-z]{40}$/);
  assert.equal(key.prefix, key.secret.slice(0, 12));
  assert.equal(key.object, 'api_key');
  assert.deepEqual(key.scopes, ['clients:read', 'clients:write']);
  assert.equal(key.created_by.type, 'api_key');
  assert.equal(key.last_used_at, null);
  assert.deepEqual(key.allowed_cidrs, []);

  const fetched = await request('GET', `/v1/api-keys/${key.id}`, owner.key);
  assert.equal(fetched.status, 200);
  assert.equal(fetched.body.data.secret, undefined);
  const { secret: _secret, ...shown } = key;
  assert.deepEqual(fetched.body.data, shown);

  assert.equal((await request('GET', '/v1/clients', key.secret)).status, 200);
  assert.equal((await request('DELETE', `/v1/api-keys/${key.id}`, key.secret)).status, 403, 'no api_keys scope');
  const used = await request('GET', `/v1/api-keys/${key.id}`, owner.key);
  assert.equal(used.body.data.last_used_at, clock.now().toISOString(), 'last_used_at within 5 s of first use');

  const listed = await request('GET', '/v1/api-keys?limit=100', owner.key);
  assert.ok(listed.body.data.some((item: { id: string }) => item.id === key.id));
  assert.ok(listed.body.data.every((item: Record<string, unknown>) => item.secret === undefined));
});

test('no escalation: scopes, expiry, limits and networks at most the creator’s', async () => {
  const creator = await makeKey(owner.key, {
    name: 'Limited maker',
    scopes: ['clients:read', 'api_keys:write', 'api_keys:read'],
    expires_at: '2026-12-31T00:00:00.000Z',
    rate_limits: { per_minute: 30, per_day: 1000, burst: 10 },
    allowed_cidrs: ['10.1.0.0/16'],
  });
  const from = '10.1.2.3';
  const wider = await request('POST', '/v1/api-keys', creator.secret, { name: 'x', scopes: ['clients:write'] }, from);
  assert.equal(wider.status, 403);
  assert.equal(wider.body.error.code, 'INSUFFICIENT_SCOPE');
  assert.equal(
    wider.headers['www-authenticate'],
    'Bearer realm="bms", error="insufficient_scope", scope="clients:write"',
  );

  const later = await request(
    'POST',
    '/v1/api-keys',
    creator.secret,
    {
      name: 'x',
      scopes: ['clients:read'],
      expires_at: '2027-06-01T00:00:00.000Z',
      rate_limits: { per_minute: 31 },
      allowed_cidrs: ['10.0.0.0/8'],
    },
    from,
  );
  assert.equal(later.status, 422);
  assert.deepEqual(later.body.error.details.map((detail: { field: string }) => detail.field).sort(), [
    'allowed_cidrs',
    'expires_at',
    'rate_limits.per_minute',
  ]);
  const offset = await request(
    'POST',
    '/v1/api-keys',
    creator.secret,
    { name: 'x', scopes: ['clients:read'], expires_at: '2026-12-31T03:00:00+05:00' },
    from,
  );
  assert.equal(offset.status, 201, 'an expiry written with an offset compares as the instant it is');
  secrets.push(offset.body.data.secret);
  assert.equal(offset.body.data.expires_at, '2026-12-30T22:00:00.000Z');
  const never = await request(
    'POST',
    '/v1/api-keys',
    creator.secret,
    { name: 'x', scopes: ['clients:read'], expires_at: null },
    from,
  );
  assert.equal(never.status, 422, 'a key that expires cannot make one that never does');

  // What the body leaves out is the creator's own.
  const inherited = await request(
    'POST',
    '/v1/api-keys',
    creator.secret,
    { name: 'child', scopes: ['clients:read'] },
    from,
  );
  assert.equal(inherited.status, 201, inherited.text);
  secrets.push(inherited.body.data.secret);
  assert.equal(inherited.body.data.expires_at, '2026-12-31T00:00:00.000Z');
  assert.deepEqual(inherited.body.data.rate_limits, { per_minute: 30, per_day: 1000, burst: 10 });
  assert.deepEqual(inherited.body.data.allowed_cidrs, ['10.1.0.0/16']);
  assert.deepEqual(inherited.body.data.created_by, { type: 'api_key', id: creator.id });

  // Nor can it widen, or roll, a key with more power than its own.
  const strong = await makeKey(owner.key, { name: 'strong', scopes: ['clients:write'] });
  const widen = await request(
    'PUT',
    `/v1/api-keys/${inherited.body.data.id}`,
    creator.secret,
    { scopes: ['clients:write'] },
    from,
  );
  assert.equal(widen.status, 403);
  const roll = await request('POST', `/v1/api-keys/${strong.id}/roll`, creator.secret, {}, from);
  assert.equal(roll.status, 403, 'rolling a stronger key would hand its power over');
  assert.equal((await request('GET', '/v1/clients', strong.secret)).status, 403, 'untouched: still its old scopes');
});

test('a rolled key: the old secret works during the overlap and not after; overlap 0 stops it at once', async () => {
  const key = await makeKey(owner.key, { name: 'rolled', scopes: ['clients:read'] });
  assert.equal((await request('GET', '/v1/clients', key.secret)).status, 200);
  const rolled = await request('POST', `/v1/api-keys/${key.id}/roll`, owner.key, { overlap_hours: 2 });
  assert.equal(rolled.status, 200, rolled.text);
  secrets.push(rolled.body.data.secret);
  assert.notEqual(rolled.body.data.secret, key.secret);
  assert.equal(rolled.body.data.prefix, rolled.body.data.secret.slice(0, 12));
  assert.equal(rolled.body.data.previous_secret_expires_at, '2026-11-25T14:00:00.000Z');
  assert.equal((await request('GET', '/v1/clients', key.secret)).status, 200, 'old secret during the overlap');
  assert.equal((await request('GET', '/v1/clients', rolled.body.data.secret)).status, 200, 'new secret');
  clock.advance(2 * 3_600_000 - 1);
  assert.equal((await request('GET', '/v1/clients', key.secret)).status, 200, 'the last millisecond of the overlap');
  clock.advance(1);
  const stale = await request('GET', '/v1/clients', key.secret);
  assert.equal(stale.status, 401);
  assert.equal(stale.body.error.code, 'INVALID_API_KEY');
  assert.equal((await request('GET', '/v1/clients', rolled.body.data.secret)).status, 200);

  const again = await request('POST', `/v1/api-keys/${key.id}/roll`, owner.key, {});
  secrets.push(again.body.data.secret);
  assert.equal((await request('GET', '/v1/clients', rolled.body.data.secret)).status, 401, 'overlap 0: at once');
  assert.equal((await request('GET', '/v1/clients', again.body.data.secret)).status, 200);
  assert.equal(
    (await request('POST', `/v1/api-keys/${key.id}/roll`, owner.key, { overlap_hours: 169 })).status,
    422,
    'at most 168 hours',
  );
});

test('a revoked key is 401 on the next request (the lookup cache does not delay it)', async () => {
  const key = await makeKey(owner.key, { name: 'revoked', scopes: ['clients:read'] });
  assert.equal((await request('GET', '/v1/clients', key.secret)).status, 200, 'cached now');
  const revoked = await request('DELETE', `/v1/api-keys/${key.id}`, owner.key);
  assert.equal(revoked.status, 200);
  assert.equal(revoked.body.data.revoked_at, clock.now().toISOString());
  const next = await request('GET', '/v1/clients', key.secret);
  assert.equal(next.status, 401);
  assert.equal(next.headers['www-authenticate'], 'Bearer realm="bms", error="invalid_token"');
  assert.equal((await request('DELETE', `/v1/api-keys/${key.id}`, owner.key)).status, 200, 'twice is harmless');
  assert.equal(
    (await request('GET', `/v1/api-keys/${key.id}`, owner.key)).body.data.revoked_at,
    revoked.body.data.revoked_at,
  );
  assert.equal(
    (await request('POST', `/v1/api-keys/${key.id}/roll`, owner.key, {})).status,
    409,
    'no roll once revoked',
  );
  const edit = await request('PUT', `/v1/api-keys/${key.id}`, owner.key, { name: 'again' });
  assert.equal(edit.status, 409);
  assert.equal(edit.body.error.code, 'INVALID_STATE');

  // A PUT of scopes holds from the next request too.
  const narrowed = await makeKey(owner.key, { name: 'narrowed', scopes: ['clients:read', 'jobs:read'] });
  assert.equal((await request('GET', '/v1/jobs', narrowed.secret)).status, 200);
  const put = await request('PUT', `/v1/api-keys/${narrowed.id}`, owner.key, { scopes: ['clients:read'] });
  assert.equal(put.status, 200, put.text);
  assert.equal((await request('GET', '/v1/jobs', narrowed.secret)).status, 403);
});

test('revoking needs powers over the key: a weaker key cannot revoke a stronger one; a key may revoke itself', async () => {
  const weak = await makeKey(owner.key, { name: 'weak', scopes: ['api_keys:write', 'api_keys:read', 'clients:read'] });
  const strong = await makeKey(owner.key, {
    name: 'strong',
    scopes: ['api_keys:write', 'api_keys:read', 'clients:read', 'clients:write'],
  });
  const ownerKeyId = (await request('GET', '/v1/api-keys?limit=100', owner.key)).body.data.find(
    (item: { prefix: string }) => item.prefix === owner.key.slice(0, 12),
  ).id;
  for (const target of [strong.id, ownerKeyId]) {
    const refused = await request('DELETE', `/v1/api-keys/${target}`, weak.secret);
    assert.equal(refused.status, 403, refused.text);
    assert.equal(refused.body.error.code, 'INSUFFICIENT_SCOPE');
    assert.equal((await request('GET', `/v1/api-keys/${target}`, owner.key)).body.data.revoked_at, null);
  }
  assert.equal((await request('GET', '/v1/clients', owner.key)).status, 200, 'the all-scopes key still works');
  assert.equal((await request('GET', '/v1/api-keys', strong.secret)).status, 200, 'the stronger key still works');

  // An equal key, and a stronger one, may revoke a weaker or equal key.
  const twin = await makeKey(owner.key, { name: 'twin', scopes: ['api_keys:write', 'api_keys:read', 'clients:read'] });
  const equal = await request('DELETE', `/v1/api-keys/${twin.id}`, weak.secret);
  assert.equal(equal.status, 200, equal.text);
  assert.equal((await request('GET', '/v1/clients', twin.secret)).status, 401);
  const weaker = await makeKey(owner.key, { name: 'weaker', scopes: ['clients:read'] });
  assert.equal((await request('DELETE', `/v1/api-keys/${weaker.id}`, strong.secret)).status, 200);
  assert.equal((await request('GET', '/v1/clients', weaker.secret)).status, 401);

  // A key may always revoke itself.
  const itself = await request('DELETE', `/v1/api-keys/${weak.id}`, weak.secret);
  assert.equal(itself.status, 200, itself.text);
  assert.equal((await request('GET', '/v1/clients', weak.secret)).status, 401);
  assert.equal((await request('DELETE', `/v1/api-keys/${strong.id}`, owner.key)).status, 200);
});

test('PUT changes each field only within the calling key’s powers, before and after', async () => {
  const maker = await makeKey(owner.key, {
    name: 'maker',
    scopes: ['api_keys:write', 'api_keys:read', 'clients:read'],
    expires_at: '2026-12-31T00:00:00.000Z',
    rate_limits: { per_minute: 30, per_day: 1000, burst: 10 },
    allowed_cidrs: ['10.1.0.0/16'],
  });
  const from = '10.1.2.3';
  const put = (id: string, body: unknown) => request('PUT', `/v1/api-keys/${id}`, maker.secret, body, from);
  const made = await request('POST', '/v1/api-keys', maker.secret, { name: 'child', scopes: ['clients:read'] }, from);
  assert.equal(made.status, 201, made.text);
  secrets.push(made.body.data.secret);
  const child = made.body.data;
  const fields = (response: { body: { error: { details: Array<{ field: string }> } } }) =>
    response.body.error.details.map((detail) => detail.field).sort();

  // Within its powers after the change: each field may change.
  const within = await put(child.id, {
    name: 'renamed',
    scopes: ['clients:read', 'api_keys:read'],
    expires_at: '2026-12-30T00:00:00.000Z',
    rate_limits: { per_minute: 20, per_day: 500, burst: 5 },
    allowed_cidrs: ['10.1.2.0/24'],
  });
  assert.equal(within.status, 200, within.text);
  assert.deepEqual(within.body.data.rate_limits, { per_minute: 20, per_day: 500, burst: 5 });
  assert.deepEqual(within.body.data.allowed_cidrs, ['10.1.2.0/24']);

  // Beyond them after the change: scopes 403; expiry, limits and networks one 422 naming each.
  const scopes = await put(child.id, { scopes: ['clients:write'] });
  assert.equal(scopes.status, 403);
  assert.equal(scopes.body.error.code, 'INSUFFICIENT_SCOPE');
  const beyond = await put(child.id, {
    expires_at: '2027-01-01T00:00:00.000Z',
    rate_limits: { per_minute: 31, per_day: 1001, burst: 11 },
    allowed_cidrs: ['10.0.0.0/8'],
  });
  assert.equal(beyond.status, 422, beyond.text);
  assert.deepEqual(fields(beyond), [
    'allowed_cidrs',
    'expires_at',
    'rate_limits.burst',
    'rate_limits.per_day',
    'rate_limits.per_minute',
  ]);
  assert.equal((await put(child.id, { expires_at: null })).status, 422, 'never expiring is beyond an expiring key');
  const unchanged = (await request('GET', `/v1/api-keys/${child.id}`, owner.key)).body.data;
  assert.equal(unchanged.name, 'renamed');
  assert.equal(unchanged.expires_at, '2026-12-30T00:00:00.000Z');

  // Beyond them before the change: not even the name of a stronger key.
  const strong = await makeKey(owner.key, { name: 'stronger', scopes: ['clients:read', 'clients:write'] });
  const rename = await put(strong.id, { name: 'mine now' });
  assert.equal(rename.status, 403);
  const longer = await makeKey(owner.key, { name: 'lasts longer', scopes: ['clients:read'] });
  const narrow = await put(longer.id, { scopes: ['clients:read'], expires_at: '2026-12-01T00:00:00.000Z' });
  assert.equal(narrow.status, 422, 'a key that never expires and has higher limits is beyond the caller before');
  assert.ok(fields(narrow).includes('expires_at'));
  assert.equal((await request('GET', `/v1/api-keys/${longer.id}`, owner.key)).body.data.expires_at, null);
});

test('allowed_cidrs: IPv4 and IPv6 networks; a request from elsewhere is 401 INVALID_API_KEY', async () => {
  const key = await makeKey(owner.key, {
    name: 'office',
    scopes: ['clients:read'],
    allowed_cidrs: ['203.0.113.7', '198.51.100.0/24', '2001:db8::/32'],
  });
  assert.deepEqual(key.allowed_cidrs, ['203.0.113.7/32', '198.51.100.0/24', '2001:db8::/32']);
  for (const inside of ['203.0.113.7', '198.51.100.200', '2001:db8:1::5', '::ffff:198.51.100.9'])
    assert.equal((await request('GET', '/v1/clients', key.secret, undefined, inside)).status, 200, inside);
  for (const outside of ['203.0.113.8', '10.0.0.1', '2001:db9::1']) {
    const refused = await request('GET', '/v1/clients', key.secret, undefined, outside);
    assert.equal(refused.status, 401, outside);
    assert.equal(refused.body.error.code, 'INVALID_API_KEY');
  }
  const bad = await request('POST', '/v1/api-keys', owner.key, {
    name: 'bad',
    scopes: ['clients:read'],
    allowed_cidrs: ['10.0.0.0/8', '300.1.1.1/8'],
  });
  assert.equal(bad.status, 422);
  assert.equal(bad.body.error.details[0].field, 'allowed_cidrs[1]');
  const many = await request('POST', '/v1/api-keys', owner.key, {
    name: 'many',
    scopes: ['clients:read'],
    allowed_cidrs: Array.from({ length: 21 }, (_, index) => `10.0.${index}.0/24`),
  });
  assert.equal(many.status, 422, 'at most 20');
  const opened = await request('PUT', `/v1/api-keys/${key.id}`, owner.key, { allowed_cidrs: [] });
  assert.equal(opened.status, 200);
  assert.equal((await request('GET', '/v1/clients', key.secret, undefined, '10.0.0.1')).status, 200);
});

test('bad input is a clear 422, never a 500, and an Idempotency-Key is refused on create', async () => {
  for (const body of [
    {},
    { name: 'x', scopes: [] },
    { name: 'x', scopes: ['clients:read', 'clients:read'] },
    { name: 'x', scopes: ['nope:read'] },
    { name: 'x', scopes: ['clients:read'], expires_at: '2020-01-01T00:00:00.000Z' },
    { name: 'x', scopes: ['clients:read'], rate_limits: { per_minute: 0 } },
    { name: 'x', scopes: ['clients:read'], secret: 'bms_mine' },
    { name: 'x', scopes: ['clients:read'], expires_at: 'tomorrow' },
    { name: 'x', scopes: ['clients:read'], allowed_cidrs: ['10.0.0.0/33'] },
    { name: ' ', scopes: ['clients:read'] },
  ]) {
    const response = await request('POST', '/v1/api-keys', owner.key, body);
    assert.equal(response.status, 422, `${JSON.stringify(body)}: ${response.text}`);
    assert.equal(response.body.error.code, 'VALIDATION_ERROR');
  }
  const replayable = await context.request('POST', '/v1/api-keys', {
    key: owner.key,
    body: { name: 'x', scopes: ['clients:read'] },
    headers: { 'idempotency-key': 'abc' },
  });
  assert.equal(replayable.status, 422);
  assert.equal(replayable.body.error.details[0].field, 'Idempotency-Key');
  assert.equal((await request('GET', '/v1/api-keys/not-a-uuid', owner.key)).status, 404);
});

test('api_key events carry the key, never a secret, with actor api_key; no secret in any list or log line', async () => {
  const events = await request('GET', '/v1/events?type=api_key.*&limit=100', owner.key);
  const types = new Set(events.body.data.map((event: { type: string }) => event.type));
  assert.deepEqual([...types].sort(), ['api_key.created', 'api_key.revoked', 'api_key.rolled', 'api_key.updated']);
  const ownerKeyId = (await request('GET', '/v1/api-keys?limit=100', owner.key)).body.data.find(
    (item: { prefix: string }) => item.prefix === owner.key.slice(0, 12),
  ).id;
  const byOwner = await request('GET', `/v1/events?actor_type=api_key&actor_id=${ownerKeyId}&limit=100`, owner.key);
  assert.ok(byOwner.body.data.length >= 10);
  assert.ok(
    byOwner.body.data.every(
      (event: { actor: unknown }) =>
        JSON.stringify(event.actor) === JSON.stringify({ type: 'api_key', id: ownerKeyId, app_id: null }),
    ),
  );
  assert.equal((await request('GET', '/v1/events?actor_type=robot', owner.key)).status, 422);
  assert.equal((await request('GET', '/v1/events?actor_id=nope', owner.key)).status, 422);

  const everything = [
    JSON.stringify(events.body),
    JSON.stringify((await request('GET', '/v1/api-keys?limit=100', owner.key)).body),
    context.logs.join(''),
    JSON.stringify(await context.database.db.selectFrom('events').selectAll().execute()),
    JSON.stringify(await context.database.db.selectFrom('api_keys').selectAll().execute()),
  ].join('\n');
  assert.ok(secrets.length >= 10);
  for (const secret of secrets) assert.ok(!everything.includes(secret.slice(4)), 'a secret leaked');
});
