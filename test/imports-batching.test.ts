// Contract section 26, "Matching, never by name" and "Two passes", as the worker reads a chunk's objects at once
// (docs/decisions.md, "Imports at speed"): the holders of a chunk's external ids are read in one query, and the
// rows kept in step with them, so outcomes stay those of rows looked up one by one. A row that fails in the middle
// of a chunk, an external_id repeated inside one chunk, one that a row of an earlier 100-row check made (in the same
// 500-row batch when running), an object made before the import, and a row that moves an object's external_id:
// the dry run and the import give the same outcomes, and the import emits each object's usual events.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ImportWorker } from '../src/workers/import-worker.js';
import { createTestContext, type ApiResponse, type TestContext } from './helpers/context.js';

const quiet = { info() {}, warn() {}, error() {} };
let context: TestContext;
let worker: ImportWorker;
let key: string;

before(async () => {
  context = await createTestContext();
  worker = new ImportWorker(context.app, quiet);
  ({ key } = await context.account('Batching Co'));
});
after(() => context.close());

async function api(method: string, url: string, body?: unknown): Promise<ApiResponse> {
  return context.request(method, url, { key, ...(body !== undefined ? { body } : {}) });
}

/** Imports `csv` as clients (a dry run, then its apply when `apply`); answers the import as it ended. */
async function imported(csv: string, body: Record<string, unknown>): Promise<any> {
  const made = await api('POST', '/v1/imports', { kind: 'client', ...body });
  assert.equal(made.status, 201, made.text);
  const uploaded = await context.request('PUT', `/v1/imports/${made.body.data.id}/file`, {
    key,
    rawBody: csv,
    headers: { 'content-type': 'text/csv' },
  });
  assert.equal(uploaded.status, 202, uploaded.text);
  await worker.runPass();
  return (await api('GET', `/v1/imports/${made.body.data.id}`)).body.data;
}

async function applied(dryRunId: string): Promise<any> {
  const apply = await api('POST', `/v1/imports/${dryRunId}/apply`);
  assert.equal(apply.status, 201, apply.text);
  await worker.runPass();
  return (await api('GET', `/v1/imports/${apply.body.data.id}`)).body.data;
}

/** [line, outcome, external_id, changed_fields] of every report row except the fillers'. */
async function outcomes(id: string): Promise<unknown[][]> {
  const rows: any[] = [];
  let cursor = '';
  for (;;) {
    const page = await api('GET', `/v1/imports/${id}/rows?limit=100${cursor}`);
    assert.equal(page.status, 200, page.text);
    rows.push(...page.body.data);
    if (!page.body.meta.pagination.has_more) break;
    cursor = `&cursor=${page.body.meta.pagination.next_cursor}`;
  }
  return rows
    .filter((row) => !String(row.external_id).startsWith('FILL-'))
    .map((row) => [row.line, row.outcome, row.external_id, row.changed_fields]);
}

async function clientsWith(externalId: string): Promise<any[]> {
  const found = await api('GET', `/v1/clients?external_id=${encodeURIComponent(externalId)}`);
  assert.equal(found.status, 200, found.text);
  return found.body.data;
}

test('a failed row mid-chunk, an external_id repeated in one chunk and one made a check earlier: same outcomes', async () => {
  const before = await api('POST', '/v1/clients', {
    name: 'Made Before',
    email: 'before@example.com',
    external_id: 'PRE-1',
  });
  assert.equal(before.status, 201, before.text);
  const fillers = Array.from({ length: 150 }, (_, index) => `Filler ${index},,FILL-${index}`);
  const csv = [
    'name,email,external_id',
    'Dup One,dup1@example.com,DUP-1', // 2: created
    'Broken,not-an-email,BROKEN-1', // 3: failed (its e-mail)
    'Dup One,dup1.changed@example.com,DUP-1', // 4: updated, after the failure in the same chunk
    'Dup One,dup1.changed@example.com,DUP-1', // 5: unchanged
    'Made Before,before.changed@example.com,PRE-1', // 6: updated, an object made before the import
    'Early,early@example.com,EARLY-1', // 7: created
    ...fillers, // 8–157
    'Early,early.late@example.com,EARLY-1', // 158: updated, past the first 100-row check
  ].join('\r\n');
  const expected = [
    [2, 'created', 'DUP-1', []],
    [3, 'failed', 'BROKEN-1', []],
    [4, 'updated', 'DUP-1', ['email']],
    [5, 'unchanged', 'DUP-1', []],
    [6, 'updated', 'PRE-1', ['email']],
    [7, 'created', 'EARLY-1', []],
    [158, 'updated', 'EARLY-1', ['email']],
  ];
  const dryRun = await imported(csv, { dry_run: true, options: { on_error: 'skip' } });
  assert.equal(dryRun.status, 'completed', JSON.stringify(dryRun.error));
  assert.deepEqual(dryRun.counts, { created: 152, updated: 3, unchanged: 1, skipped: 0, failed: 1 });
  assert.deepEqual(await outcomes(dryRun.id), expected);
  assert.deepEqual(await clientsWith('DUP-1'), []);

  const real = await applied(dryRun.id);
  assert.equal(real.status, 'completed', JSON.stringify(real.error));
  assert.deepEqual(real.counts, { created: 152, updated: 3, unchanged: 1, skipped: 0, failed: 1 });
  assert.deepEqual(await outcomes(real.id), expected);
  assert.deepEqual(
    (await clientsWith('DUP-1')).map((client) => client.email),
    ['dup1.changed@example.com'],
  );
  assert.deepEqual(
    (await clientsWith('PRE-1')).map((client) => [client.id, client.email]),
    [[before.body.data.id, 'before.changed@example.com']],
  );
  assert.deepEqual(
    (await clientsWith('EARLY-1')).map((client) => client.email),
    ['early.late@example.com'],
  );
  assert.deepEqual(await clientsWith('BROKEN-1'), []);

  // Each object's usual events: a create each, an update for each row that changed something (none unchanged).
  const events: any[] = [];
  let cursor = '';
  for (;;) {
    const page = await api('GET', `/v1/events?origin_id=${real.id}&limit=100${cursor}`);
    assert.equal(page.status, 200, page.text);
    events.push(...page.body.data);
    if (!page.body.meta.pagination.has_more) break;
    cursor = `&cursor=${page.body.meta.pagination.next_cursor}`;
  }
  const count = (type: string) => events.filter((event) => event.type === type).length;
  assert.equal(count('client.created'), 152);
  assert.equal(count('client.updated'), 3);
  assert.equal(events.length, 155);
});

test('a row moving an object’s external_id: later rows match the new one, and the old one makes a client', async () => {
  const moved = await api('POST', '/v1/clients', { name: 'Moved', email: 'moved@example.com', external_id: 'OLD-1' });
  assert.equal(moved.status, 201, moved.text);
  const id = moved.body.data.id;
  const csv = [
    'name,email,external_id,id',
    `Moved,moved@example.com,NEW-1,${id}`, // 2: updated, its external_id moved
    'Old Name,old@example.com,OLD-1,', // 3: created: OLD-1 is no one's now
    'Moved,moved.again@example.com,NEW-1,', // 4: updated, found by its new external_id
  ].join('\r\n');
  const expected = [
    [2, 'updated', 'NEW-1', ['external_id']],
    [3, 'created', 'OLD-1', []],
    [4, 'updated', 'NEW-1', ['email']],
  ];
  const dryRun = await imported(csv, { dry_run: true });
  assert.equal(dryRun.status, 'completed', JSON.stringify(dryRun.error));
  assert.deepEqual(await outcomes(dryRun.id), expected);
  const real = await applied(dryRun.id);
  assert.equal(real.status, 'completed', JSON.stringify(real.error));
  assert.deepEqual(real.counts, { created: 1, updated: 2, unchanged: 0, skipped: 0, failed: 0 });
  assert.deepEqual(await outcomes(real.id), expected);
  assert.deepEqual(
    (await clientsWith('NEW-1')).map((client) => [client.id, client.email]),
    [[id, 'moved.again@example.com']],
  );
  const old = await clientsWith('OLD-1');
  assert.equal(old.length, 1);
  assert.notEqual(old[0].id, id);
  assert.equal(old[0].name, 'Old Name');
});
