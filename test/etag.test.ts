// Optimistic concurrency on every resource: an ETag on each single-object response; PUT and DELETE with
// If-Match go ahead only while the object is unchanged (else 412, nothing changed), even when two
// clients race with the same ETag.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { createTestContext, type TestContext } from './helpers/context.js';

let context: TestContext;
let key: string;
let clientId: string;

const RESOURCES: Array<{
  path: string;
  body: () => Record<string, unknown>;
  edit: (value: string) => Record<string, unknown>;
  deletable: boolean;
}> = [
  { path: '/v1/clients', body: () => ({ name: 'Etag client' }), edit: (value) => ({ phone: value }), deletable: true },
  {
    path: '/v1/service-requests',
    body: () => ({ client_id: clientId, title: 'Leak' }),
    edit: (value) => ({ title: value }),
    deletable: false,
  },
  { path: '/v1/quotes', body: () => ({ client_id: clientId }), edit: (value) => ({ title: value }), deletable: true },
  {
    path: '/v1/jobs',
    body: () => ({ client_id: clientId, title: 'Job' }),
    edit: (value) => ({ title: value }),
    deletable: true,
  },
  { path: '/v1/invoices', body: () => ({ client_id: clientId }), edit: (value) => ({ notes: value }), deletable: true },
];

before(async () => {
  context = await createTestContext();
  ({ key } = await context.account());
  clientId = (await context.request('POST', '/v1/clients', { key, body: { name: 'Owner' } })).body.data.id;
});
after(() => context.close());

for (const resource of RESOURCES) {
  describe(resource.path, () => {
    test('ETag on create, get and update; If-Match current: 200; stale: 412 and nothing changes', async () => {
      const created = await context.request('POST', resource.path, { key, body: resource.body() });
      const id = created.body.data.id;
      const etag = String(created.headers.etag);
      assert.match(etag, /^"[A-Za-z0-9_-]{27}"$/);
      const fetched = await context.request('GET', `${resource.path}/${id}`, { key });
      assert.equal(fetched.headers.etag, etag, 'the same object has the same ETag');

      const updated = await context.request('PUT', `${resource.path}/${id}`, {
        key,
        body: resource.edit('first'),
        headers: { 'if-match': etag },
      });
      assert.equal(updated.status, 200, updated.text);
      assert.notEqual(updated.headers.etag, etag, 'a changed object has a new ETag');

      const stale = await context.request('PUT', `${resource.path}/${id}`, {
        key,
        body: resource.edit('second'),
        headers: { 'if-match': etag },
      });
      assert.deepEqual([stale.status, stale.body.error.code], [412, 'PRECONDITION_FAILED']);
      assert.deepEqual((await context.request('GET', `${resource.path}/${id}`, { key })).body.data, updated.body.data);

      const anyVersion = await context.request('PUT', `${resource.path}/${id}`, {
        key,
        body: resource.edit('third'),
        headers: { 'if-match': '*' },
      });
      assert.equal(anyVersion.status, 200);
      const listOfTags = await context.request('PUT', `${resource.path}/${id}`, {
        key,
        body: resource.edit('fourth'),
        headers: { 'if-match': `"nope", ${anyVersion.headers.etag}` },
      });
      assert.equal(listOfTags.status, 200, 'any of a list of ETags');
    });

    test('two clients racing with the same ETag: exactly one wins', async () => {
      const created = await context.request('POST', resource.path, { key, body: resource.body() });
      const headers = { 'if-match': String(created.headers.etag) };
      const [first, second] = await Promise.all([
        context.request('PUT', `${resource.path}/${created.body.data.id}`, {
          key,
          body: resource.edit('mine'),
          headers,
        }),
        context.request('PUT', `${resource.path}/${created.body.data.id}`, {
          key,
          body: resource.edit('yours'),
          headers,
        }),
      ]);
      assert.deepEqual([first.status, second.status].sort(), [200, 412]);
    });

    if (resource.deletable) {
      test('DELETE with a stale If-Match is 412 and the object stays', async () => {
        const created = await context.request('POST', resource.path, { key, body: resource.body() });
        const id = created.body.data.id;
        await context.request('PUT', `${resource.path}/${id}`, { key, body: resource.edit('changed') });
        const stale = await context.request('DELETE', `${resource.path}/${id}`, {
          key,
          headers: { 'if-match': String(created.headers.etag) },
        });
        assert.equal(stale.status, 412);
        const current = await context.request('GET', `${resource.path}/${id}`, { key });
        assert.equal(current.status, 200);
        const fresh = await context.request('DELETE', `${resource.path}/${id}`, {
          key,
          headers: { 'if-match': String(current.headers.etag) },
        });
        assert.equal(fresh.status, 200);
      });
    }
  });
}

test('the ETag is the SHA-1 (base64url) of the object as the body carries it, on create, get and update', async () => {
  const created = await context.request('POST', '/v1/clients', {
    key,
    body: { name: 'Bytes', address: { city: 'Springfield', country: 'US' }, metadata: { b: '2', a: '1' } },
  });
  const id = created.body.data.id;
  const updated = await context.request('PUT', `/v1/clients/${id}`, { key, body: { notes: 'née "Smith"\n' } });
  for (const answer of [created, await context.request('GET', `/v1/clients/${id}`, { key }), updated]) {
    const data = answer.text.slice('{"data":'.length, answer.text.lastIndexOf(',"meta":{'));
    assert.equal(answer.headers.etag, `"${createHash('sha1').update(data).digest('base64url')}"`);
  }
});

test("a visit schedule's DELETE (a route beside the standard ones) takes the ETag its GET gave; a stale one is 412", async () => {
  const job = await context.request('POST', '/v1/jobs', { key, body: { client_id: clientId, title: 'Mowing' } });
  const created = await context.request('POST', '/v1/visit-schedules', {
    key,
    body: {
      job_id: job.body.data.id,
      recurrence: {
        rrule: 'FREQ=WEEKLY;BYDAY=TU',
        start_date: '2026-12-01',
        time: '09:00',
        timezone: 'America/Denver',
      },
      duration_minutes: 60,
    },
  });
  assert.equal(created.status, 201, created.text);
  const path = `/v1/visit-schedules/${created.body.data.id}`;
  const fetched = await context.request('GET', path, { key });
  assert.equal(fetched.headers.etag, created.headers.etag);
  const stale = await context.request('DELETE', path, { key, headers: { 'if-match': '"stale"' } });
  assert.equal(stale.status, 412);
  const ended = await context.request('DELETE', path, { key, headers: { 'if-match': String(fetched.headers.etag) } });
  assert.equal(ended.status, 200, ended.text);
});

test('without If-Match nothing is checked', async () => {
  const created = await context.request('POST', '/v1/clients', { key, body: { name: 'Free' } });
  assert.equal(
    (await context.request('PUT', `/v1/clients/${created.body.data.id}`, { key, body: { phone: '1' } })).status,
    200,
  );
  assert.equal(
    (await context.request('PUT', `/v1/clients/${created.body.data.id}`, { key, body: { phone: '2' } })).status,
    200,
  );
});
