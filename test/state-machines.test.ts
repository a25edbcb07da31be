// Every allowed and every forbidden transition of every state table, generated from the tables in the
// code, plus the delete and field-edit rules in each status.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { INVOICE_EDITABLE, INVOICE_TRANSITIONS } from '../src/modules/invoices/invoices.service.js';
import { JOB_TRANSITIONS } from '../src/modules/jobs/jobs.service.js';
import { QUOTE_EDITABLE, QUOTE_TRANSITIONS } from '../src/modules/quotes/quotes.service.js';
import { REQUEST_TRANSITIONS } from '../src/modules/service-requests/service-requests.service.js';
import type { TransitionTable } from '../src/modules/documents/state-machine.js';
import { createTestContext, type TestContext } from './helpers/context.js';

interface Machine {
  path: string;
  table: 'service_requests' | 'quotes' | 'jobs' | 'invoices';
  transitions: TransitionTable<string>;
  body(clientId: string): Record<string, unknown>;
  edit: Record<string, unknown>;
  editable(status: string): boolean;
  /** undefined: the resource has no delete. */
  deletable?: (status: string) => boolean;
}

const LINES = [{ description: 'Work', quantity: 1, unit_amount: 1000 }];
const MACHINES: Machine[] = [
  { path: '/v1/service-requests', table: 'service_requests', transitions: REQUEST_TRANSITIONS, body: (client_id) => ({ client_id, title: 'Leak' }), edit: { title: 'Edited' }, editable: () => true },
  { path: '/v1/quotes', table: 'quotes', transitions: QUOTE_TRANSITIONS, body: (client_id) => ({ client_id, line_items: LINES }), edit: { title: 'Edited' }, editable: (status) => (QUOTE_EDITABLE as readonly string[]).includes(status), deletable: (status) => status !== 'converted' },
  { path: '/v1/jobs', table: 'jobs', transitions: JOB_TRANSITIONS, body: (client_id) => ({ client_id, title: 'Fix' }), edit: { title: 'Edited' }, editable: () => true, deletable: () => true },
  { path: '/v1/invoices', table: 'invoices', transitions: INVOICE_TRANSITIONS, body: (client_id) => ({ client_id, line_items: LINES }), edit: { notes: 'Edited' }, editable: (status) => (INVOICE_EDITABLE as readonly string[]).includes(status), deletable: (status) => status === 'draft' },
];

let context: TestContext;
let key: string;
let clientId: string;

before(async () => {
  context = await createTestContext();
  ({ key } = await context.account());
  clientId = (await context.request('POST', '/v1/clients', { key, body: { name: 'States', email: 'states@example.com' } })).body.data.id;
});
after(() => context.close());

/** A new object forced into `status` directly in the database: the state under test, however reached. */
async function objectIn(machine: Machine, status: string): Promise<string> {
  const created = await context.request('POST', machine.path, { key, body: machine.body(clientId) });
  assert.equal(created.status, 201, created.text);
  await context.database.db.updateTable(machine.table).set({ status }).where('id', '=', created.body.data.id).execute();
  return created.body.data.id;
}

for (const machine of MACHINES) {
  const statuses = Object.keys(machine.transitions);
  describe(`${machine.path} state table`, () => {
    for (const from of statuses) {
      for (const to of statuses) {
        const allowed = from === to || machine.transitions[from]!.includes(to);
        test(`${from} -> ${to}: ${allowed ? 'allowed' : '409 INVALID_STATE'}`, async () => {
          const id = await objectIn(machine, from);
          const response = await context.request('PUT', `${machine.path}/${id}`, { key, body: { status: to } });
          const stored = await context.request('GET', `${machine.path}/${id}`, { key });
          if (allowed) {
            assert.equal(response.status, 200, response.text);
            assert.equal(response.body.data.status, to);
            assert.equal(stored.body.data.status, to);
          } else {
            assert.equal(response.status, 409, response.text);
            assert.equal(response.body.error.code, 'INVALID_STATE');
            assert.match(response.body.error.message, new RegExp(`'${from}'.*'${to}'`));
            assert.equal(stored.body.data.status, from, 'the status is unchanged');
          }
        });
      }

      const editable = machine.editable(from);
      test(`fields in ${from}: ${editable ? 'editable' : '409 INVALID_STATE'}`, async () => {
        const id = await objectIn(machine, from);
        const response = await context.request('PUT', `${machine.path}/${id}`, { key, body: machine.edit });
        assert.equal(response.status, editable ? 200 : 409, response.text);
        const stored = (await context.request('GET', `${machine.path}/${id}`, { key })).body.data;
        const [field, value] = Object.entries(machine.edit)[0]!;
        assert.equal(stored[field] === value, editable);
      });

      if (machine.deletable) {
        const deletable = machine.deletable(from);
        test(`delete in ${from}: ${deletable ? 'allowed' : '409 INVALID_STATE'}`, async () => {
          const id = await objectIn(machine, from);
          const response = await context.request('DELETE', `${machine.path}/${id}`, { key });
          assert.equal(response.status, deletable ? 200 : 409, response.text);
          if (!deletable) assert.equal(response.body.error.code, 'INVALID_STATE');
          assert.equal((await context.request('GET', `${machine.path}/${id}`, { key })).status, deletable ? 404 : 200);
        });
      }
    }

    test('status is never accepted on create', async () => {
      const response = await context.request('POST', machine.path, { key, body: { ...machine.body(clientId), status: statuses[1] } });
      assert.equal(response.status, 422);
      assert.equal(response.body.error.details[0].field, 'status');
    });

    test('an unknown status is a 422, not a 409', async () => {
      const id = await objectIn(machine, statuses[0]!);
      const response = await context.request('PUT', `${machine.path}/${id}`, { key, body: { status: 'exploded' } });
      assert.equal(response.status, 422);
    });
  });
}

test('service requests have no delete: 405 with Allow', async () => {
  const id = await objectIn(MACHINES[0]!, 'new');
  const response = await context.request('DELETE', `/v1/service-requests/${id}`, { key });
  assert.equal(response.status, 405);
  assert.equal(response.headers.allow, 'GET, HEAD, PUT');
});

describe('what each transition records', () => {
  test('quote: approved_at, declined_at; revising keeps the number', async () => {
    const id = (await context.request('POST', '/v1/quotes', { key, body: { client_id: clientId, line_items: LINES } })).body.data.id;
    const sent = (await context.request('PUT', `/v1/quotes/${id}`, { key, body: { status: 'sent' } })).body.data;
    assert.match(sent.number, /^Q-\d{6}$/);
    assert.ok(sent.sent_at);
    const revised = (await context.request('PUT', `/v1/quotes/${id}`, { key, body: { status: 'draft' } })).body.data;
    assert.equal(revised.number, sent.number);
    const resent = (await context.request('PUT', `/v1/quotes/${id}`, { key, body: { status: 'sent' } })).body.data;
    assert.equal(resent.number, sent.number, 'a number is never replaced');
    const declined = (await context.request('PUT', `/v1/quotes/${id}`, { key, body: { status: 'declined' } })).body.data;
    assert.ok(declined.declined_at);
    await context.request('PUT', `/v1/quotes/${id}`, { key, body: { status: 'draft' } });
    await context.request('PUT', `/v1/quotes/${id}`, { key, body: { status: 'sent' } });
    const approved = (await context.request('PUT', `/v1/quotes/${id}`, { key, body: { status: 'approved' } })).body.data;
    assert.ok(approved.approved_at);
  });

  test('a quote or invoice without lines cannot be marked sent (422 line_items)', async () => {
    for (const path of ['/v1/quotes', '/v1/invoices']) {
      const id = (await context.request('POST', path, { key, body: { client_id: clientId } })).body.data.id;
      const response = await context.request('PUT', `${path}/${id}`, { key, body: { status: 'sent' } });
      assert.equal(response.status, 422, response.text);
      assert.equal(response.body.error.details[0].field, 'line_items');
      assert.equal((await context.request('GET', `${path}/${id}`, { key })).body.data.status, 'draft');
      const withLines = await context.request('PUT', `${path}/${id}`, { key, body: { status: 'sent', line_items: LINES } });
      assert.equal(withLines.status, 200, 'lines given in the same request count');
    }
  });

  test('job: completed_at is set on completion and cleared on reopening', async () => {
    const id = (await context.request('POST', '/v1/jobs', { key, body: { client_id: clientId, title: 'Job' } })).body.data.id;
    const completed = (await context.request('PUT', `/v1/jobs/${id}`, { key, body: { status: 'completed' } })).body.data;
    assert.ok(completed.completed_at);
    const reopened = (await context.request('PUT', `/v1/jobs/${id}`, { key, body: { status: 'in_progress' } })).body.data;
    assert.equal(reopened.completed_at, null);
  });

  test('invoice: sent sets number, issue and due dates; paid sets amounts; void zeroes what is due', async () => {
    const id = (await context.request('POST', '/v1/invoices', { key, body: { client_id: clientId, line_items: LINES } })).body.data.id;
    const sent = (await context.request('PUT', `/v1/invoices/${id}`, { key, body: { status: 'sent' } })).body.data;
    assert.match(sent.number, /^INV-\d{6}$/);
    const today = new Date().toISOString().slice(0, 10);
    assert.equal(sent.issue_date, today);
    const due = new Date(`${today}T00:00:00Z`);
    due.setUTCDate(due.getUTCDate() + 30);
    assert.equal(sent.due_date, due.toISOString().slice(0, 10));
    assert.deepEqual([sent.amount_paid, sent.amount_due], [0, 1000]);
    const paid = (await context.request('PUT', `/v1/invoices/${id}`, { key, body: { status: 'paid' } })).body.data;
    assert.deepEqual([paid.amount_paid, paid.amount_due, Boolean(paid.paid_at)], [1000, 0, true]);

    const other = (await context.request('POST', '/v1/invoices', { key, body: { client_id: clientId, line_items: LINES, issue_date: '2026-01-10' } })).body.data;
    assert.equal(other.due_date, '2026-02-09', 'issue_date + 30 days');
    await context.request('PUT', `/v1/invoices/${other.id}`, { key, body: { status: 'sent' } });
    const voided = (await context.request('PUT', `/v1/invoices/${other.id}`, { key, body: { status: 'void' } })).body.data;
    assert.deepEqual([voided.amount_due, Boolean(voided.voided_at), voided.issue_date], [0, true, '2026-01-10']);
  });
});
