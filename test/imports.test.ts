// Contract section 26, "Imports", with section 32's readings: a CSV of clients (a formula cell, a row naming another
// account's id, a duplicate external_id that updates instead of creating), dry run then apply with the same
// outcomes, `on_error: abort` writing nothing, errors.csv, an invoice spread over three line rows, decimal amounts,
// the file's 409 once the worker has it, a file that is not UTF-8, cancel, scopes, and the rows' events' origin.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { TestClock } from '../src/core/test-clock.js';
import { ImportWorker } from '../src/workers/import-worker.js';
import { createTestContext, type ApiResponse, type TestContext } from './helpers/context.js';

const quiet = { info() {}, warn() {}, error() {} };
let context: TestContext;
let key: string;
let otherClientId: string;

before(async () => {
  context = await createTestContext({ clock: new TestClock(), env: { BMS_TEST_CLOCK: 'true' } });
  const worker = new ImportWorker(context.app, quiet);
  context.app.workerPasses.set('imports', () => worker.runPass());
  ({ key } = await context.account('Importing Co'));
  const other = await context.account('Someone Else');
  const made = await context.request('POST', '/v1/clients', { key: other.key, body: { name: 'Not yours' } });
  otherClientId = made.body.data.id;
});
after(() => context.close());

async function api(method: string, url: string, body?: unknown, apiKey = key): Promise<ApiResponse> {
  return context.request(method, url, { key: apiKey, ...(body !== undefined ? { body } : {}) });
}

async function upload(id: string, csv: string | Buffer, apiKey = key): Promise<ApiResponse> {
  return context.request('PUT', `/v1/imports/${id}/file`, {
    key: apiKey,
    rawBody: csv,
    headers: { 'content-type': 'text/csv' },
  });
}

async function runWorker(): Promise<number> {
  const ran = await context.request('POST', '/test/workers/run', { body: { worker: 'imports' } });
  assert.equal(ran.status, 200, ran.text);
  return ran.body.data.processed;
}

/** Makes an import, uploads the file, runs the worker; answers the import as it ended. */
async function importCsv(body: Record<string, unknown>, csv: string) {
  const made = await api('POST', '/v1/imports', body);
  assert.equal(made.status, 201, made.text);
  assert.equal(made.headers.location, `/v1/imports/${made.body.data.id}`);
  assert.equal(made.body.data.status, 'awaiting_file');
  const uploaded = await upload(made.body.data.id, csv);
  assert.equal(uploaded.status, 202, uploaded.text);
  assert.equal(uploaded.body.data.status, 'queued');
  await runWorker();
  const ended = await api('GET', `/v1/imports/${made.body.data.id}`);
  assert.equal(ended.status, 200, ended.text);
  return ended.body.data;
}

async function reportOf(id: string, query = ''): Promise<any[]> {
  const rows = await api('GET', `/v1/imports/${id}/rows?limit=100${query}`);
  assert.equal(rows.status, 200, rows.text);
  return rows.body.data;
}

async function clientsNamed(q: string): Promise<any[]> {
  const found = await api('GET', `/v1/clients?q=${encodeURIComponent(q)}&limit=100`);
  assert.equal(found.status, 200, found.text);
  return found.body.data;
}

/** The clients file of the test: a formula cell, another account's id, a duplicate external_id. */
function clientsCsv(): string {
  return [
    'name,email,external_id,notes,id',
    `Ada Formula,ada@example.com,CRM-1,"'=HYPERLINK(""http://evil.example"")",`,
    `Stolen Row,stolen@example.com,,,${otherClientId}`,
    'Ada Formula,ada.new@example.com,CRM-1,"\'=HYPERLINK(""http://evil.example"")",',
    "Quote Keeper,keeper@example.com,CRM-2,''=not a formula,",
  ].join('\r\n');
}

describe('a clients file: dry run, then apply', () => {
  let dryRunId: string;

  test('the dry run reports each row’s outcome and writes nothing', async () => {
    const dryRun = await importCsv({ kind: 'client', dry_run: true, options: { on_error: 'skip' } }, clientsCsv());
    dryRunId = dryRun.id;
    assert.equal(dryRun.status, 'completed', JSON.stringify(dryRun.error));
    assert.equal(dryRun.rows, 4);
    assert.deepEqual(dryRun.counts, { created: 2, updated: 1, unchanged: 0, skipped: 0, failed: 1 });
    const report = await reportOf(dryRun.id);
    assert.deepEqual(
      report.map((row) => [row.line, row.outcome, row.external_id]),
      [
        [2, 'created', 'CRM-1'],
        [3, 'failed', null],
        [4, 'updated', 'CRM-1'],
        [5, 'created', 'CRM-2'],
      ],
    );
    assert.deepEqual(
      report[1].errors.map((error: any) => [error.field, error.code]),
      [['id', 'NOT_FOUND']],
    );
    assert.deepEqual(report[2].changed_fields, ['email']);
    assert.deepEqual(await clientsNamed('Ada Formula'), []);
    assert.deepEqual(await clientsNamed('Quote Keeper'), []);
  });

  test('apply gives the same outcomes, writes them, and never creates the row naming another account’s id', async () => {
    const applied = await api('POST', `/v1/imports/${dryRunId}/apply`);
    assert.equal(applied.status, 201, applied.text);
    assert.equal(applied.body.data.dry_run, false);
    assert.equal(applied.body.data.status, 'queued');
    await runWorker();
    const ended = (await api('GET', `/v1/imports/${applied.body.data.id}`)).body.data;
    assert.equal(ended.status, 'completed');
    assert.deepEqual(ended.counts, { created: 2, updated: 1, unchanged: 0, skipped: 0, failed: 1 });
    const report = await reportOf(ended.id);
    assert.deepEqual(
      report.map((row) => [row.line, row.outcome]),
      [
        [2, 'created'],
        [3, 'failed'],
        [4, 'updated'],
        [5, 'created'],
      ],
    );
    // The duplicate external_id updated the client its first row made: one client, the second row's e-mail.
    const ada = await clientsNamed('Ada Formula');
    assert.equal(ada.length, 1);
    assert.equal(ada[0].id, report[0].object_id);
    assert.equal(ada[0].id, report[2].object_id);
    assert.equal(ada[0].email, 'ada.new@example.com');
    assert.equal(ada[0].external_id, 'CRM-1');
    // §32: an import drops one leading ' where a formula character or ' follows.
    assert.equal(ada[0].notes, '=HYPERLINK("http://evil.example")');
    assert.equal((await clientsNamed('Quote Keeper'))[0].notes, "'=not a formula");
    assert.deepEqual(await clientsNamed('Stolen Row'), []);
    // The other account's client is untouched.
    assert.equal(report[1].object_id, null);

    // The rows' events carry the import as their origin.
    const events = await api('GET', `/v1/events?origin_id=${ended.id}&limit=100`);
    assert.equal(events.status, 200, events.text);
    assert.deepEqual(events.body.data.map((event: any) => event.type).sort(), [
      'client.created',
      'client.created',
      'client.updated',
    ]);
    for (const event of events.body.data) assert.deepEqual(event.origin, { type: 'import', id: ended.id });
    const own = await api('GET', `/v1/events?type=import.completed&limit=100`);
    assert.ok(own.body.data.some((event: any) => event.data.object.id === ended.id));

    // The same file again creates nothing: CRM-1's two rows update it in turn, CRM-2's row is unchanged.
    const again = await api('POST', `/v1/imports/${dryRunId}/apply`);
    await runWorker();
    const repeated = (await api('GET', `/v1/imports/${again.body.data.id}`)).body.data;
    assert.deepEqual(repeated.counts, { created: 0, updated: 2, unchanged: 1, skipped: 0, failed: 1 });
    assert.equal((await clientsNamed('Ada Formula')).length, 1);
  });

  test('errors.csv gives the failed rows back as sent, with an errors column', async () => {
    const csv = await context.request('GET', `/v1/imports/${dryRunId}/errors.csv`, { key });
    assert.equal(csv.status, 200, csv.text);
    assert.match(String(csv.headers['content-type']), /^text\/csv/);
    assert.equal(
      csv.text,
      `\uFEFFname,email,external_id,notes,id,errors\r\nStolen Row,stolen@example.com,,,${otherClientId},id: id names no client of this account\r\n`,
    );
  });

  test('the report filters by outcome', async () => {
    const failed = await reportOf(dryRunId, '&outcome=failed');
    assert.deepEqual(
      failed.map((row) => row.line),
      [3],
    );
  });
});

test('on_error abort (the default): a failed row fails the import and nothing is written', async () => {
  const ended = await importCsv(
    { kind: 'client' },
    ['name,email', 'Abort One,one@example.com', 'Abort Two,not-an-email'].join('\n'),
  );
  assert.equal(ended.status, 'failed');
  assert.equal(ended.error.code, 'rows_failed');
  assert.deepEqual(ended.counts, { created: 0, updated: 0, unchanged: 0, skipped: 1, failed: 1 });
  const report = await reportOf(ended.id);
  assert.deepEqual(
    report.map((row) => [row.line, row.outcome]),
    [
      [2, 'skipped'],
      [3, 'failed'],
    ],
  );
  assert.deepEqual(
    report[1].errors.map((error: any) => [error.field, error.code]),
    [['email', 'VALIDATION_ERROR']],
  );
  assert.deepEqual(await clientsNamed('Abort One'), []);
});

test('an invoice spread over three line rows is one invoice with three lines; decimal amounts', async () => {
  const client = await api('POST', '/v1/clients', { name: 'Line Client', external_id: 'C-LINES' });
  assert.equal(client.status, 201, client.text);
  const csv = [
    'external_id,client_external_id,currency,line.description,line.quantity,line.unit_amount',
    'INV-9,C-LINES,USD,Gutter cleaning,2,125.00',
    'INV-9,C-LINES,USD,Downspout repair,1,49.99',
    'INV-9,C-LINES,USD,Disposal fee,1,15',
  ].join('\r\n');
  const ended = await importCsv({ kind: 'invoice', options: { amounts: 'decimal' } }, csv);
  assert.equal(ended.status, 'completed', JSON.stringify(ended.error));
  assert.equal(ended.rows, 3);
  assert.deepEqual(ended.counts, { created: 1, updated: 0, unchanged: 0, skipped: 0, failed: 0 });
  const [row] = await reportOf(ended.id);
  assert.equal(row.line, 2);
  const invoice = (await api('GET', `/v1/invoices/${row.object_id}`)).body.data;
  assert.equal(invoice.client_id, client.body.data.id);
  assert.equal(invoice.status, 'draft');
  assert.deepEqual(
    invoice.line_items.map((line: any) => [line.description, line.quantity, line.unit_amount]),
    [
      ['Gutter cleaning', 2, 12_500],
      ['Downspout repair', 1, 4_999],
      ['Disposal fee', 1, 1_500],
    ],
  );
  assert.equal(invoice.total_amount, 31_499);
});

test('an invoice row differing from its first row, and an unknown client, are row errors', async () => {
  const csv = [
    'external_id,client_external_id,line.description,line.quantity,line.unit_amount',
    'INV-10,C-LINES,Work,1,100',
    'INV-10,C-OTHER,More work,1,100',
    'INV-11,C-NOBODY,Work,1,100',
  ].join('\r\n');
  const ended = await importCsv({ kind: 'invoice', options: { on_error: 'skip' } }, csv);
  assert.equal(ended.status, 'completed');
  const report = await reportOf(ended.id);
  assert.deepEqual(
    report.map((row) => [row.line, row.outcome, row.errors.map((error: any) => error.field)]),
    [
      [2, 'failed', ['client_external_id']],
      [4, 'failed', ['client_external_id']],
    ],
  );
});

test('the file: 409 once the worker has it; not UTF-8: failed, nothing written', async () => {
  const made = await api('POST', '/v1/imports', { kind: 'client' });
  assert.equal((await upload(made.body.data.id, 'name\nFirst file')).status, 202);
  assert.equal((await upload(made.body.data.id, 'name\nSecond file')).status, 202);
  await runWorker();
  assert.equal((await clientsNamed('Second file')).length, 1);
  assert.deepEqual(await clientsNamed('First file'), []);
  const late = await upload(made.body.data.id, 'name\nThird file');
  assert.equal(late.status, 409, late.text);
  assert.equal(late.body.error.code, 'INVALID_STATE');

  const latin = await api('POST', '/v1/imports', { kind: 'client' });
  const refused = await upload(latin.body.data.id, Buffer.from('name\nJos\xe9\n', 'latin1'));
  assert.equal(refused.status, 202, refused.text);
  assert.equal(refused.body.data.status, 'failed');
  assert.equal(refused.body.data.error.code, 'not_utf8');
});

test('cancel: an import awaiting its file ends canceled; a second cancel is 409', async () => {
  const made = await api('POST', '/v1/imports', { kind: 'product' });
  const canceled = await api('POST', `/v1/imports/${made.body.data.id}/cancel`);
  assert.equal(canceled.status, 200, canceled.text);
  assert.equal(canceled.body.data.status, 'canceled');
  const again = await api('POST', `/v1/imports/${made.body.data.id}/cancel`);
  assert.equal(again.status, 409);
  assert.equal(again.body.error.code, 'INVALID_STATE');
});

test('scopes: imports:write and the kind’s write scope; a mapping naming no field is 422', async () => {
  const { accountId } = await context.account('Scoped');
  const narrow = await context.key(accountId, ['imports:write', 'imports:read', 'clients:read']);
  const refused = await api('POST', '/v1/imports', { kind: 'client' }, narrow.key);
  assert.equal(refused.status, 403, refused.text);
  assert.match(String(refused.headers['www-authenticate']), /scope="clients:write"/);
  const wrong = await api('POST', '/v1/imports', { kind: 'client', mapping: { Colour: 'favourite_colour' } });
  assert.equal(wrong.status, 422, wrong.text);
  assert.equal(wrong.body.error.details[0].field, 'mapping.Colour');
});

test('a mapping renames columns and ignores others; products with a code', async () => {
  const ended = await importCsv(
    { kind: 'product', mapping: { Title: 'name', Internal: null } },
    ['Title,type,code,unit_amount,Internal,Unknown', 'Drain snake,service,DS-1,9900,x,y'].join('\n'),
  );
  assert.equal(ended.status, 'completed', JSON.stringify(ended.error));
  assert.deepEqual(ended.ignored_columns, ['Internal', 'Unknown']);
  const [row] = await reportOf(ended.id);
  const product = (await api('GET', `/v1/products/${row.object_id}`)).body.data;
  assert.deepEqual([product.name, product.code, product.unit_amount], ['Drain snake', 'DS-1', 9900]);
});
