// external_id (contract section 14) on clients, quotes, jobs and invoices: a string of 1–255 or null, unique
// per account and kind (a second one is 409 CONFLICT naming the holder, also when two requests race),
// filtered by `external_id=`, and free again once cleared. Team members: team-members.test.ts.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestContext, type TestContext } from './helpers/context.js';

let context: TestContext;
let key: string;
let clientId: string;
before(async () => {
  context = await createTestContext();
  ({ key } = await context.account());
  clientId = (await context.request('POST', '/v1/clients', { key, body: { name: 'Synced client' } })).body.data.id;
});
after(() => context.close());
const api = (method: string, url: string, body?: unknown, as = key) => context.request(method, url, { key: as, body });

const LINES = [{ description: 'Work', quantity: 1, unit_amount: 1000 }];
/** [collection, a valid body without external_id]. */
const KINDS: Array<[string, () => Record<string, unknown>]> = [
  ['/v1/clients', () => ({ name: 'Client' })],
  ['/v1/quotes', () => ({ client_id: clientId, line_items: LINES })],
  ['/v1/jobs', () => ({ client_id: clientId, title: 'Job' })],
  ['/v1/invoices', () => ({ client_id: clientId, line_items: LINES })],
];

for (const [path, body] of KINDS) {
  describe(path, () => {
    test('unique per account: a second one is a 409 naming the holder, on create and on update', async () => {
      const holder = await api('POST', path, { ...body(), external_id: `${path}-1` });
      assert.equal(holder.status, 201, holder.text);
      assert.equal(holder.body.data.external_id, `${path}-1`);
      const second = await api('POST', path, { ...body(), external_id: `${path}-1` });
      assert.equal(second.status, 409, second.text);
      assert.equal(second.body.error.code, 'CONFLICT');
      assert.match(second.body.error.message, new RegExp(holder.body.data.id));
      assert.equal(second.body.error.details[0].field, 'external_id');

      const other = (await api('POST', path, body())).body.data;
      assert.equal(other.external_id, null);
      const taken = await api('PUT', `${path}/${other.id}`, { external_id: `${path}-1` });
      assert.equal(taken.status, 409, taken.text);
      assert.match(taken.body.error.message, new RegExp(holder.body.data.id));
      assert.equal((await api('GET', `${path}/${other.id}`)).body.data.external_id, null, 'nothing changed');
      // Keeping one's own is no conflict; clearing it frees it for another.
      assert.equal((await api('PUT', `${path}/${holder.body.data.id}`, { external_id: `${path}-1` })).status, 200);
      assert.equal((await api('PUT', `${path}/${holder.body.data.id}`, { external_id: null })).status, 200);
      const moved = await api('PUT', `${path}/${other.id}`, { external_id: `${path}-1` });
      assert.equal(moved.status, 200, moved.text);
      assert.equal(moved.body.data.external_id, `${path}-1`);
    });

    test('filter external_id= finds the one object; another account may use the same id', async () => {
      const made = (await api('POST', path, { ...body(), external_id: `${path}-find` })).body.data;
      const found = await api('GET', `${path}?external_id=${encodeURIComponent(`${path}-find`)}`);
      assert.equal(found.status, 200, found.text);
      assert.deepEqual(
        found.body.data.map((row: { id: string }) => row.id),
        [made.id],
      );
      assert.deepEqual((await api('GET', `${path}?external_id=none`)).body.data, []);
      const stranger = await context.account('Stranger');
      const strangerBody =
        path === '/v1/clients'
          ? body()
          : {
              ...body(),
              client_id: (await api('POST', '/v1/clients', { name: 'Theirs' }, stranger.key)).body.data.id,
            };
      const theirs = await api('POST', path, { ...strangerBody, external_id: `${path}-find` }, stranger.key);
      assert.equal(theirs.status, 201, theirs.text);
    });

    test('1–255 characters or null: anything else is a 422 on external_id', async () => {
      for (const external_id of ['', 'x'.repeat(256), 42]) {
        const refused = await api('POST', path, { ...body(), external_id });
        assert.equal(refused.status, 422, refused.text);
        assert.equal(refused.body.error.details[0].field, 'external_id');
      }
      assert.equal((await api('POST', path, { ...body(), external_id: 'x'.repeat(255) })).status, 201);
    });

    test('concurrent creates with one external_id: exactly one is made, the others are 409', async () => {
      const answers = await Promise.all(
        [1, 2, 3].map(() => api('POST', path, { ...body(), external_id: `${path}-race` })),
      );
      assert.deepEqual(answers.map((answer) => answer.status).sort(), [201, 409, 409]);
      const holder = answers.find((answer) => answer.status === 201)!.body.data.id;
      for (const loser of answers.filter((answer) => answer.status === 409))
        assert.match(loser.body.error.message, new RegExp(holder));
      assert.equal((await api('GET', `${path}?external_id=${encodeURIComponent(`${path}-race`)}`)).body.data.length, 1);
    });

    test('the same race between requests with Idempotency-Keys (each in a transaction of its own): 409s naming the holder', async () => {
      const externalId = `${path}-keyed-race`;
      const answers = await Promise.all(
        [1, 2, 3].map((n) =>
          context.request('POST', path, {
            key,
            body: { ...body(), external_id: externalId },
            headers: { 'idempotency-key': `${path}-keyed-${n}` },
          }),
        ),
      );
      assert.deepEqual(
        answers.map((answer) => answer.status).sort(),
        [201, 409, 409],
        answers.map((a) => a.text).join('\n'),
      );
      const holder = answers.find((answer) => answer.status === 201)!.body.data.id;
      for (const loser of answers.filter((answer) => answer.status === 409))
        assert.match(loser.body.error.message, new RegExp(holder));
      assert.equal((await api('GET', `${path}?external_id=${encodeURIComponent(externalId)}`)).body.data.length, 1);
    });
  });
}

test('a client search or e-mail filter combines with external_id', async () => {
  const client = (
    await api('POST', '/v1/clients', { name: 'Cooper Gardens', email: 'g@example.com', external_id: 'crm-9' })
  ).body.data;
  for (const query of ['q=cooper', 'q=co', 'email=G@example.com'])
    assert.deepEqual(
      (await api('GET', `/v1/clients?external_id=crm-9&${query}`)).body.data.map((row: { id: string }) => row.id),
      [client.id],
      query,
    );
  assert.deepEqual((await api('GET', '/v1/clients?external_id=crm-9&q=nobody')).body.data, []);
});
