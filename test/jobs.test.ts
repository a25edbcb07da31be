// Jobs: the contract's status table (section 6), written out here, and the rules of the resource.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createTestContext, type TestContext } from './helpers/context.js';
import { describeStateTable } from './helpers/state-table.js';

let context: TestContext;
let key: string;
let clientId: string;

before(async () => {
  context = await createTestContext();
  ({ key } = await context.account());
  clientId = (await context.request('POST', '/v1/clients', { key, body: { name: 'Jobs', email: 'jobs@example.com' } })).body.data.id;
});
after(() => context.close());

describeStateTable(
  {
    path: '/v1/jobs',
    table: 'jobs',
    // Contract 6: scheduled -> in_progress | completed | canceled; in_progress -> scheduled | completed |
    // canceled; completed -> in_progress (reopen); canceled -> scheduled (reopen).
    transitions: {
      scheduled: ['in_progress', 'completed', 'canceled'],
      in_progress: ['scheduled', 'completed', 'canceled'],
      completed: ['in_progress'],
      canceled: ['scheduled'],
    },
    editable: ['scheduled', 'in_progress', 'completed', 'canceled'],
    // Delete is refused only while an invoice refers to the job (workflow.test.ts), never for its status.
    deletable: ['scheduled', 'in_progress', 'completed', 'canceled'],
    body: (client_id) => ({ client_id, title: 'Fix' }),
    edit: { title: 'Edited' },
  },
  () => context,
  () => ({ key, clientId }),
);

test('completed_at is set on completion and cleared on reopening', async () => {
  const id = (await context.request('POST', '/v1/jobs', { key, body: { client_id: clientId, title: 'Job' } })).body.data.id;
  const completed = (await context.request('PUT', `/v1/jobs/${id}`, { key, body: { status: 'completed' } })).body.data;
  assert.ok(completed.completed_at);
  const reopened = (await context.request('PUT', `/v1/jobs/${id}`, { key, body: { status: 'in_progress' } })).body.data;
  assert.equal(reopened.completed_at, null);
});

test('scheduled_end is not before scheduled_start, on create and on update', async () => {
  const backwards = await context.request('POST', '/v1/jobs', { key, body: { client_id: clientId, title: 'Job', scheduled_start: '2026-12-02T10:00:00.000Z', scheduled_end: '2026-12-02T09:00:00.000Z' } });
  assert.equal(backwards.status, 422);
  assert.equal(backwards.body.error.details[0].field, 'scheduled_end');
  const job = (await context.request('POST', '/v1/jobs', { key, body: { client_id: clientId, title: 'Job', scheduled_start: '2026-12-02T10:00:00+02:00' } })).body.data;
  assert.equal(job.scheduled_start, '2026-12-02T08:00:00.000Z', 'stored and returned in UTC');
  const update = await context.request('PUT', `/v1/jobs/${job.id}`, { key, body: { scheduled_end: '2026-12-02T07:59:59.999Z' } });
  assert.equal(update.status, 422);
});

test('a job is numbered J-000001 upward at creation', async () => {
  const job = (await context.request('POST', '/v1/jobs', { key, body: { client_id: clientId, title: 'Numbered' } })).body.data;
  assert.match(job.number, /^J-\d{6}$/);
});
