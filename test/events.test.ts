// Events (contract section 9): every type of the closed list, each produced by the action that should
// produce it (one row per type, written out here), with data.object exactly as GET returns it after the
// change and previous_attributes on updates; no event for a change that rolled back; the list filters;
// retention.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { OutboxWorker } from '../src/workers/outbox-worker.js';
import { fileTransport, smtpTransport } from '../src/mail/transports.js';
import { WebhookWorker } from '../src/workers/webhook-worker.js';
import { ImportWorker } from '../src/workers/import-worker.js';
import { freePort } from './helpers/processes.js';
import { sendDueReminder } from '../src/modules/invoices/index.js';
import { SYSTEM_ACTOR } from '../src/kernel/context.js';
import { startReceiver } from './helpers/receiver.js';
import { clientSuite } from './helpers/state-table.js';
import { createHash, randomUUID } from 'node:crypto';
import { createTestContext, ManualClock } from './helpers/context.js';

const suite = clientSuite('Events');
const LINES = [{ description: 'Work', quantity: 1, unit_amount: 10_000 }];
const quiet = { info() {}, warn() {}, error() {} };

const api = async (method: string, path: string, body?: unknown) => {
  const response = await suite.context.request(method, path, { key: suite.key, body });
  assert.ok(response.status < 300, `${method} ${path}: ${response.status} ${response.text}`);
  return response.body?.data;
};
const get = (path: string) => api('GET', path);
/** An import's CSV file (contract §26): the API's one body that is not JSON. */
const uploadCsv = async (id: string, csv: string | Buffer) => {
  const response = await suite.context.request('PUT', `/v1/imports/${id}/file`, {
    key: suite.key,
    rawBody: csv,
    headers: { 'content-type': 'text/csv' },
  });
  assert.equal(response.status, 202, response.text);
};

/** The events of one type about one object, oldest first. */
async function eventsOf(type: string, resourceId: string) {
  const response = await suite.context.request('GET', `/v1/events?type=${type}&resource_id=${resourceId}&limit=100`, {
    key: suite.key,
  });
  assert.equal(response.status, 200, response.text);
  return (
    response.body.data as Array<{
      id: string;
      type: string;
      data: { object: Record<string, unknown>; previous_attributes?: Record<string, unknown> };
    }>
  ).reverse();
}

const sentInvoice = async () => {
  const invoice = await api('POST', '/v1/invoices', { client_id: suite.clientId, line_items: LINES });
  await api('PUT', `/v1/invoices/${invoice.id}`, { status: 'sent' });
  return invoice.id as string;
};
/**
 * An invoice sent two days ago (its sent_at written back), due in 59 days, given its reminder step (60 days before
 * the due date: yesterday at 09:00) by the reminder operation; the account's schedule is on only for that step.
 */
const remindedInvoice = async () => {
  const day = 24 * 3600 * 1000;
  const due = new Date(Date.now() + 59 * day).toISOString().slice(0, 10);
  const invoice = await api('POST', '/v1/invoices', { client_id: suite.clientId, line_items: LINES, due_date: due });
  await api('PUT', `/v1/invoices/${invoice.id}`, { status: 'sent' });
  await suite.context.database.db
    .updateTable('invoices')
    .set({ sent_at: new Date(Date.now() - 2 * day).toISOString() })
    .where('id', '=', invoice.id)
    .execute();
  await api('PUT', '/v1/account', { reminders: { enabled: true, steps: [{ days: -60, late_fee: null }] } });
  const ctx = {
    db: suite.context.database.db,
    clock: suite.context.clock,
    links: suite.context.app.links,
    accountId: suite.accountId,
    actor: SYSTEM_ACTOR,
  };
  assert.equal(await sendDueReminder(ctx, invoice.id), true);
  await api('PUT', '/v1/account', { reminders: { enabled: false } });
  return { invoiceId: invoice.id as string };
};
const approvedQuote = async () => {
  const quote = await api('POST', '/v1/quotes', { client_id: suite.clientId, line_items: LINES });
  await api('PUT', `/v1/quotes/${quote.id}`, { status: 'sent' });
  await api('PUT', `/v1/quotes/${quote.id}`, { status: 'approved' });
  return quote.id as string;
};

/** A visit of a new job of the suite's client, in 2030 (never late whatever the clock). */
const newVisit = async (body: Record<string, unknown> = {}) => {
  const job = await api('POST', '/v1/jobs', { client_id: suite.clientId, title: 'Visit job' });
  return api('POST', '/v1/visits', { job_id: job.id, ...body });
};
const timedVisit = () => newVisit({ start_at: '2030-01-07T09:00:00Z', duration_minutes: 60 });
/** A visit moved by `PUT {status}` through `steps`; answers its id. */
const movedVisit = async (...steps: string[]) => {
  const visit = await timedVisit();
  for (const status of steps) await api('PUT', `/v1/visits/${visit.id}`, { status });
  return visit.id as string;
};

const APP_BODY = {
  name: 'Events app',
  redirect_uris: ['https://events-app.example.test/callback'],
  install_url: 'https://events-app.example.test/install',
  scopes: ['clients:read'],
};

/**
 * An install of a new app in the suite's account, made as a browser and the app would (contract §25): the
 * install link opened, the consent page approved, the code redeemed. Answers the app, its secret and the tokens.
 */
async function installedApp(app?: { id: string; client_secret: string }) {
  const made = app ?? (await api('POST', '/v1/apps', APP_BODY));
  const link = await api('POST', '/v1/app-install-links', { app_id: made.id });
  const opened = await suite.context.request('GET', new URL(link.url).pathname);
  const cookie = String(opened.headers['set-cookie']).split(';')[0]!;
  const verifier = 'v'.repeat(43);
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: made.id,
    redirect_uri: APP_BODY.redirect_uris[0]!,
    code_challenge: challenge,
    code_challenge_method: 'S256',
  });
  const page = await suite.context.request('GET', `/oauth/authorize?${query}`, { headers: { cookie } });
  const field = (name: string) => new RegExp(`name="${name}" value="([^"]+)"`).exec(page.text)![1]!;
  const form = (fields: Record<string, string>) => ({
    rawBody: new URLSearchParams(fields).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  const approved = await suite.context.request('POST', '/oauth/authorize', {
    ...form({ grant: field('grant'), csrf: field('csrf'), decision: 'approve' }),
    headers: { ...form({}).headers, cookie },
  });
  const code = new URL(String(approved.headers.location)).searchParams.get('code')!;
  const tokens = await suite.context.request(
    'POST',
    '/oauth/token',
    form({
      grant_type: 'authorization_code',
      code,
      code_verifier: verifier,
      client_id: made.id,
      client_secret: made.client_secret,
    }),
  );
  assert.equal(tokens.status, 200, tokens.text);
  return {
    app: made as { id: string; client_secret: string },
    ...(tokens.body as { install_id: string; access_token: string }),
  };
}

/** A text file uploaded onto a new client (contract section 30: the raw form of an upload). */
async function attachment(): Promise<{ id: string }> {
  const client = await api('POST', '/v1/clients', { name: 'With a file' });
  const response = await suite.context.request(
    'POST',
    `/v1/attachments?parent_type=client&parent_id=${client.id}&filename=notes.txt`,
    { key: suite.key, rawBody: Buffer.from('Gate code 4512'), headers: { 'content-type': 'text/plain' } },
  );
  assert.equal(response.status, 201, response.text);
  return response.body.data;
}

interface Row {
  /** Does what should produce the event; returns the id of the object it is about. */
  act(): Promise<string>;
  /** Where GET shows the object after the change (none for *.deleted and objects without a GET). */
  path?: (id: string) => string;
  /** The fields previous_attributes must name (updates and status changes). */
  changed?: string[];
}

/** One row per type of the closed list (contract section 9). */
const CATALOGUE: Record<string, Row> = {
  'client.created': {
    act: async () => (await api('POST', '/v1/clients', { name: 'New' })).id,
    path: (id) => `/v1/clients/${id}`,
  },
  'client.updated': {
    act: async () =>
      (await api('PUT', `/v1/clients/${(await api('POST', '/v1/clients', { name: 'Old' })).id}`, { name: 'Renamed' }))
        .id,
    path: (id) => `/v1/clients/${id}`,
    changed: ['name'],
  },
  'client.deleted': {
    act: async () => (await api('DELETE', `/v1/clients/${(await api('POST', '/v1/clients', { name: 'Gone' })).id}`)).id,
  },
  'property.created': {
    act: async () =>
      (await api('POST', '/v1/properties', { client_id: suite.clientId, address: { line1: '1 Elm', country: 'US' } }))
        .id,
    path: (id) => `/v1/properties/${id}`,
  },
  'property.updated': {
    act: async () =>
      (
        await api(
          'PUT',
          `/v1/properties/${(await api('POST', '/v1/properties', { client_id: suite.clientId, address: { line1: '1 Elm', country: 'US' } })).id}`,
          { archived: true },
        )
      ).id,
    path: (id) => `/v1/properties/${id}`,
    changed: ['archived'],
  },
  'property.deleted': {
    act: async () =>
      (
        await api(
          'DELETE',
          `/v1/properties/${(await api('POST', '/v1/properties', { client_id: suite.clientId, address: { line1: '1 Elm', country: 'US' } })).id}`,
        )
      ).id,
  },
  'service_request.created': {
    act: async () => (await api('POST', '/v1/service-requests', { client_id: suite.clientId, title: 'Leak' })).id,
    path: (id) => `/v1/service-requests/${id}`,
  },
  'service_request.updated': {
    act: async () =>
      (
        await api(
          'PUT',
          `/v1/service-requests/${(await api('POST', '/v1/service-requests', { client_id: suite.clientId, title: 'Leak' })).id}`,
          { status: 'assessed' },
        )
      ).id,
    path: (id) => `/v1/service-requests/${id}`,
    changed: ['status'],
  },
  'service_request.converted': {
    act: async () => {
      const request = await api('POST', '/v1/service-requests', { client_id: suite.clientId, title: 'Leak' });
      await api('POST', '/v1/quotes', { client_id: suite.clientId, request_id: request.id });
      return request.id;
    },
    path: (id) => `/v1/service-requests/${id}`,
    changed: ['status', 'converted_at'],
  },
  'quote.created': {
    act: async () => (await api('POST', '/v1/quotes', { client_id: suite.clientId })).id,
    path: (id) => `/v1/quotes/${id}`,
  },
  'quote.updated': {
    act: async () =>
      (
        await api('PUT', `/v1/quotes/${(await api('POST', '/v1/quotes', { client_id: suite.clientId })).id}`, {
          title: 'Better',
        })
      ).id,
    path: (id) => `/v1/quotes/${id}`,
    changed: ['title'],
  },
  'quote.sent': {
    act: async () =>
      (
        await api(
          'POST',
          `/v1/quotes/${(await api('POST', '/v1/quotes', { client_id: suite.clientId, line_items: LINES })).id}/send`,
        )
      ).id,
    path: (id) => `/v1/quotes/${id}`,
    changed: ['status', 'number', 'sent_at', 'delivery_status', 'hosted_url'],
  },
  'quote.approved': { act: approvedQuote, path: (id) => `/v1/quotes/${id}`, changed: ['status', 'approved_at'] },
  'quote.declined': {
    act: async () => {
      const quote = await api('POST', '/v1/quotes', { client_id: suite.clientId, line_items: LINES });
      await api('PUT', `/v1/quotes/${quote.id}`, { status: 'sent' });
      return (await api('PUT', `/v1/quotes/${quote.id}`, { status: 'declined' })).id;
    },
    path: (id) => `/v1/quotes/${id}`,
    changed: ['status', 'declined_at'],
  },
  'quote.converted': {
    act: async () => {
      const id = await approvedQuote();
      await api('POST', '/v1/jobs', { quote_id: id });
      return id;
    },
    path: (id) => `/v1/quotes/${id}`,
    changed: ['status', 'converted_at'],
  },
  'quote.deleted': {
    act: async () =>
      (await api('DELETE', `/v1/quotes/${(await api('POST', '/v1/quotes', { client_id: suite.clientId })).id}`)).id,
  },
  // Contract section 23: the deposit paid in full (deposit_due_amount reaches 0).
  'quote.deposit_paid': {
    act: async () => {
      const quote = await api('POST', '/v1/quotes', {
        client_id: suite.clientId,
        line_items: LINES,
        deposit: { type: 'amount', value: 2_500 },
      });
      await api('PUT', `/v1/quotes/${quote.id}`, { status: 'sent' });
      await api('PUT', `/v1/quotes/${quote.id}`, { status: 'approved' });
      await api('POST', '/v1/payments', { quote_id: quote.id, amount: 2_500, method: 'cash' });
      return quote.id as string;
    },
    path: (id) => `/v1/quotes/${id}`,
  },
  'job.created': {
    act: async () => (await api('POST', '/v1/jobs', { client_id: suite.clientId, title: 'Fix' })).id,
    path: (id) => `/v1/jobs/${id}`,
  },
  'job.updated': {
    act: async () =>
      (
        await api(
          'PUT',
          `/v1/jobs/${(await api('POST', '/v1/jobs', { client_id: suite.clientId, title: 'Fix' })).id}`,
          { status: 'in_progress' },
        )
      ).id,
    path: (id) => `/v1/jobs/${id}`,
    changed: ['status'],
  },
  'job.completed': {
    act: async () =>
      (
        await api(
          'PUT',
          `/v1/jobs/${(await api('POST', '/v1/jobs', { client_id: suite.clientId, title: 'Fix' })).id}`,
          { status: 'completed' },
        )
      ).id,
    path: (id) => `/v1/jobs/${id}`,
    changed: ['status', 'completed_at'],
  },
  'job.canceled': {
    act: async () =>
      (
        await api(
          'PUT',
          `/v1/jobs/${(await api('POST', '/v1/jobs', { client_id: suite.clientId, title: 'Fix' })).id}`,
          { status: 'canceled' },
        )
      ).id,
    path: (id) => `/v1/jobs/${id}`,
    changed: ['status'],
  },
  'job.deleted': {
    act: async () =>
      (
        await api(
          'DELETE',
          `/v1/jobs/${(await api('POST', '/v1/jobs', { client_id: suite.clientId, title: 'Fix' })).id}`,
        )
      ).id,
  },
  'invoice.created': {
    act: async () => (await api('POST', '/v1/invoices', { client_id: suite.clientId })).id,
    path: (id) => `/v1/invoices/${id}`,
  },
  'invoice.updated': {
    act: async () =>
      (
        await api('PUT', `/v1/invoices/${(await api('POST', '/v1/invoices', { client_id: suite.clientId })).id}`, {
          notes: 'Thanks',
        })
      ).id,
    path: (id) => `/v1/invoices/${id}`,
    changed: ['notes'],
  },
  'invoice.sent': {
    act: async () =>
      (
        await api(
          'POST',
          `/v1/invoices/${(await api('POST', '/v1/invoices', { client_id: suite.clientId, line_items: LINES })).id}/send`,
        )
      ).id,
    path: (id) => `/v1/invoices/${id}`,
    changed: ['status', 'number', 'issue_date', 'due_date', 'sent_at', 'delivery_status', 'hosted_url'],
  },
  'invoice.paid': {
    act: async () => {
      const id = await sentInvoice();
      await api('POST', '/v1/payments', { invoice_id: id, amount: 10_000, method: 'card' });
      return id;
    },
    path: (id) => `/v1/invoices/${id}`,
    changed: [
      'status',
      'paid_at',
      'amount_paid',
      'amount_due',
      'payments',
      'payments_count',
      'applications',
      'applications_count',
    ],
  },
  'invoice.voided': {
    act: async () => (await api('PUT', `/v1/invoices/${await sentInvoice()}`, { status: 'void' })).id,
    path: (id) => `/v1/invoices/${id}`,
    changed: ['status', 'voided_at', 'amount_due', 'hosted_url'],
  },
  'invoice.deleted': {
    act: async () =>
      (await api('DELETE', `/v1/invoices/${(await api('POST', '/v1/invoices', { client_id: suite.clientId })).id}`)).id,
  },
  'payment.created': {
    act: async () =>
      (await api('POST', '/v1/payments', { invoice_id: await sentInvoice(), amount: 2_500, method: 'cash' })).id,
    path: (id) => `/v1/payments/${id}`,
  },
  'payment.refunded': {
    act: async () => {
      const payment = await api('POST', '/v1/payments', {
        invoice_id: await sentInvoice(),
        amount: 2_500,
        method: 'cash',
      });
      return (await api('POST', `/v1/payments/${payment.id}/refund`, { amount: 500 })).id;
    },
    path: (id) => `/v1/payments/${id}`,
    changed: ['amount_refunded', 'refunds', 'refunds_count', 'amount_applied', 'applications'],
  },
  // Contract section 22: credit notes.
  'credit_note.created': {
    act: async () => (await api('POST', '/v1/credit-notes', { client_id: suite.clientId, amount: 500 })).id,
    path: (id) => `/v1/credit-notes/${id}`,
  },
  'credit_note.updated': {
    act: async () => {
      const note = await api('POST', '/v1/credit-notes', { client_id: suite.clientId, amount: 500 });
      return (await api('PUT', `/v1/credit-notes/${note.id}`, { reason: 'Goodwill' })).id;
    },
    path: (id) => `/v1/credit-notes/${id}`,
    changed: ['reason', 'line_items'],
  },
  'credit_note.issued': {
    act: async () => {
      const note = await api('POST', '/v1/credit-notes', { client_id: suite.clientId, amount: 500 });
      return (await api('PUT', `/v1/credit-notes/${note.id}`, { status: 'issued' })).id;
    },
    path: (id) => `/v1/credit-notes/${id}`,
    changed: ['status', 'number', 'issue_date', 'issued_at', 'amount_remaining', 'hosted_url'],
  },
  'credit_note.applied': {
    act: async () => {
      const note = await api('POST', '/v1/credit-notes', { client_id: suite.clientId, amount: 500 });
      await api('PUT', `/v1/credit-notes/${note.id}`, { status: 'issued' });
      return (
        await api('POST', `/v1/credit-notes/${note.id}/apply`, {
          applications: [{ invoice_id: await sentInvoice(), amount: 500 }],
        })
      ).id;
    },
    path: (id) => `/v1/credit-notes/${id}`,
    changed: ['amount_applied', 'amount_remaining', 'applications', 'applications_count'],
  },
  'credit_note.unapplied': {
    act: async () => {
      const note = await api('POST', '/v1/credit-notes', { client_id: suite.clientId, amount: 500 });
      await api('PUT', `/v1/credit-notes/${note.id}`, { status: 'issued' });
      const applied = await api('POST', `/v1/credit-notes/${note.id}/apply`, {
        applications: [{ invoice_id: await sentInvoice(), amount: 500 }],
      });
      return (await api('POST', `/v1/credit-notes/${note.id}/unapply`, { application_id: applied.applications[0].id }))
        .id;
    },
    path: (id) => `/v1/credit-notes/${id}`,
    changed: ['amount_applied', 'amount_remaining', 'applications', 'applications_count'],
  },
  'credit_note.refunded': {
    act: async () => {
      const note = await api('POST', '/v1/credit-notes', { client_id: suite.clientId, amount: 500 });
      await api('PUT', `/v1/credit-notes/${note.id}`, { status: 'issued' });
      return (await api('POST', `/v1/credit-notes/${note.id}/refund`, { amount: 200, method: 'cash' })).id;
    },
    path: (id) => `/v1/credit-notes/${id}`,
    changed: ['amount_refunded', 'amount_remaining', 'refunds', 'refunds_count'],
  },
  'credit_note.sent': {
    act: async () => {
      const note = await api('POST', '/v1/credit-notes', { client_id: suite.clientId, amount: 500 });
      await api('POST', `/v1/credit-notes/${note.id}/send`, {});
      return (await api('POST', `/v1/credit-notes/${note.id}/send`, {})).id;
    },
    path: (id) => `/v1/credit-notes/${id}`,
    // A re-send changes no field of the note (its delivery_status stays queued until the worker runs).
    changed: [],
  },
  'credit_note.voided': {
    act: async () => {
      const note = await api('POST', '/v1/credit-notes', { client_id: suite.clientId, amount: 500 });
      await api('PUT', `/v1/credit-notes/${note.id}`, { status: 'issued' });
      return (await api('PUT', `/v1/credit-notes/${note.id}`, { status: 'void' })).id;
    },
    path: (id) => `/v1/credit-notes/${id}`,
    changed: ['status', 'voided_at', 'amount_remaining', 'hosted_url'],
  },
  'credit_note.deleted': {
    act: async () =>
      (
        await api(
          'DELETE',
          `/v1/credit-notes/${(await api('POST', '/v1/credit-notes', { client_id: suite.clientId, amount: 500 })).id}`,
        )
      ).id,
  },
  // Contract section 22: a payment's unapplied money applied to another invoice, and that application reversed.
  'payment.applied': {
    act: async () => {
      const payment = await api('POST', '/v1/payments', {
        invoice_id: await sentInvoice(),
        amount: 12_000,
        method: 'cash',
        overpayment: 'credit',
      });
      return (
        await api('POST', `/v1/payments/${payment.id}/apply`, {
          applications: [{ invoice_id: await sentInvoice(), amount: 1_000 }],
        })
      ).id;
    },
    path: (id) => `/v1/payments/${id}`,
    changed: ['amount_applied', 'amount_unapplied', 'applications', 'applications_count'],
  },
  'payment.unapplied': {
    act: async () => {
      const payment = await api('POST', '/v1/payments', {
        invoice_id: await sentInvoice(),
        amount: 1_000,
        method: 'cash',
      });
      return (await api('POST', `/v1/payments/${payment.id}/unapply`, { application_id: payment.applications[0].id }))
        .id;
    },
    path: (id) => `/v1/payments/${id}`,
    changed: ['amount_applied', 'amount_unapplied', 'applications', 'applications_count'],
  },
  'delivery.succeeded': {
    async act() {
      const invoice = await api(
        'POST',
        `/v1/invoices/${(await api('POST', '/v1/invoices', { client_id: suite.clientId, line_items: LINES })).id}/send`,
      );
      const worker = new OutboxWorker(
        suite.context.database,
        fileTransport(`${suite.context.directory}/outbox`),
        suite.context.clock,
        { pollMs: 10, leaseMs: 10_000, retryBaseMs: 1, maxAttempts: 1, fromAddress: 'billing@example.com' },
        quiet,
        suite.context.app.pdf,
      );
      while (await worker.deliverNext());
      return (
        await suite.context.database.db
          .selectFrom('outbox_messages')
          .select('id')
          .where('document_id', '=', invoice.id)
          .executeTakeFirstOrThrow()
      ).id;
    },
  },
  'delivery.failed': {
    async act() {
      const quote = await api(
        'POST',
        `/v1/quotes/${(await api('POST', '/v1/quotes', { client_id: suite.clientId, line_items: LINES })).id}/send`,
      );
      const dead = smtpTransport(`smtp://user:hunter2@127.0.0.1:${await freePort()}`);
      const worker = new OutboxWorker(
        suite.context.database,
        dead,
        suite.context.clock,
        { pollMs: 10, leaseMs: 10_000, retryBaseMs: 1, maxAttempts: 1, fromAddress: 'billing@example.com' },
        quiet,
        suite.context.app.pdf,
      );
      while (await worker.deliverNext());
      dead.close();
      return (
        await suite.context.database.db
          .selectFrom('outbox_messages')
          .select('id')
          .where('document_id', '=', quote.id)
          .executeTakeFirstOrThrow()
      ).id;
    },
  },
  'invoice.reminder_sent': {
    act: async () => (await remindedInvoice()).invoiceId,
    path: (id) => `/v1/invoices/${id}`,
    changed: ['reminders', 'next_reminder_at'],
  },
  'delivery.canceled': {
    async act() {
      const { invoiceId } = await remindedInvoice();
      await api('PUT', `/v1/invoices/${invoiceId}`, { status: 'paid' });
      const worker = new OutboxWorker(
        suite.context.database,
        fileTransport(`${suite.context.directory}/outbox`),
        suite.context.clock,
        { pollMs: 10, leaseMs: 10_000, retryBaseMs: 1, maxAttempts: 1, fromAddress: 'billing@example.com' },
        quiet,
        suite.context.app.pdf,
      );
      while (await worker.deliverNext());
      return (
        await suite.context.database.db
          .selectFrom('outbox_messages')
          .select('id')
          .where('document_id', '=', invoiceId)
          .where('kind', '=', 'reminder')
          .executeTakeFirstOrThrow()
      ).id;
    },
  },
  'webhook_endpoint.disabled': {
    async act() {
      const receiver = await startReceiver({ status: 410 });
      const endpoint = await api('POST', '/v1/webhook-endpoints', {
        url: receiver.url,
        enabled_events: ['client.created'],
      });
      await api('POST', '/v1/clients', { name: 'Heard by a gone endpoint' });
      const worker = new WebhookWorker(
        suite.context.database,
        suite.context.clock,
        suite.context.config.webhooks,
        quiet,
      );
      worker.start();
      await receiver.waitFor(1);
      await worker.stop();
      await receiver.close();
      return endpoint.id;
    },
    path: (id) => `/v1/webhook-endpoints/${id}`,
    changed: ['status', 'disabled_reason'],
  },
  'team_member.created': {
    act: async () => (await api('POST', '/v1/team-members', { name: 'New member' })).id,
    path: (id) => `/v1/team-members/${id}`,
  },
  'team_member.updated': {
    act: async () =>
      (
        await api('PUT', `/v1/team-members/${(await api('POST', '/v1/team-members', { name: 'Member' })).id}`, {
          role: 'dispatcher',
        })
      ).id,
    path: (id) => `/v1/team-members/${id}`,
    changed: ['role'],
  },
  'team_member.deleted': {
    act: async () =>
      (await api('DELETE', `/v1/team-members/${(await api('POST', '/v1/team-members', { name: 'Gone' })).id}`)).id,
  },
  'webhook_endpoint.test': {
    async act() {
      const endpoint = await api('POST', '/v1/webhook-endpoints', {
        url: 'http://127.0.0.1:9/hooks',
        enabled_events: ['invoice.paid'],
      });
      await api('POST', `/v1/webhook-endpoints/${endpoint.id}/test`);
      return endpoint.id;
    },
    path: (id) => `/v1/webhook-endpoints/${id}`,
  },
  // Contract section 20: keys through the API; no event carries a secret.
  'api_key.created': {
    act: async () => (await api('POST', '/v1/api-keys', { name: 'Made by a key', scopes: ['clients:read'] })).id,
    path: (id) => `/v1/api-keys/${id}`,
  },
  'api_key.updated': {
    async act() {
      const key = await api('POST', '/v1/api-keys', { name: 'Renamed', scopes: ['clients:read'] });
      await api('PUT', `/v1/api-keys/${key.id}`, { name: 'Renamed at last', allowed_cidrs: ['10.0.0.0/8'] });
      return key.id;
    },
    path: (id) => `/v1/api-keys/${id}`,
    changed: ['name', 'allowed_cidrs'],
  },
  'api_key.rolled': {
    async act() {
      const key = await api('POST', '/v1/api-keys', { name: 'Rolled', scopes: ['clients:read'] });
      await api('POST', `/v1/api-keys/${key.id}/roll`, { overlap_hours: 1 });
      return key.id;
    },
    path: (id) => `/v1/api-keys/${id}`,
    changed: ['prefix', 'previous_secret_expires_at'],
  },
  'api_key.revoked': {
    async act() {
      const key = await api('POST', '/v1/api-keys', { name: 'Revoked', scopes: ['clients:read'] });
      await api('DELETE', `/v1/api-keys/${key.id}`);
      return key.id;
    },
    path: (id) => `/v1/api-keys/${id}`,
    changed: ['revoked_at'],
  },
  // Contract section 17: one event per change of a visit.
  'visit.created': {
    act: async () => (await timedVisit()).id,
    path: (id) => `/v1/visits/${id}`,
  },
  'visit.scheduled': {
    async act() {
      const visit = await newVisit();
      await api('PUT', `/v1/visits/${visit.id}`, { start_at: '2030-01-08T09:00:00Z', duration_minutes: 60 });
      return visit.id;
    },
    path: (id) => `/v1/visits/${id}`,
    changed: ['status', 'start_at', 'end_at', 'local_start', 'local_end', 'duration_minutes'],
  },
  'visit.rescheduled': {
    async act() {
      const visit = await timedVisit();
      await api('PUT', `/v1/visits/${visit.id}`, { start_at: '2030-01-09T09:00:00Z', duration_minutes: 60 });
      return visit.id;
    },
    path: (id) => `/v1/visits/${id}`,
    changed: ['start_at', 'end_at', 'local_start', 'local_end'],
  },
  'visit.reassigned': {
    async act() {
      const visit = await timedVisit();
      const member = await api('POST', '/v1/team-members', { name: 'Assigned' });
      await api('POST', `/v1/visits/${visit.id}/assignees`, { team_member_id: member.id });
      return visit.id;
    },
    path: (id) => `/v1/visits/${id}`,
    changed: ['assignee_ids'],
  },
  'visit.en_route': {
    act: () => movedVisit('en_route'),
    path: (id) => `/v1/visits/${id}`,
    changed: ['status', 'en_route_at'],
  },
  'visit.started': {
    act: () => movedVisit('in_progress'),
    path: (id) => `/v1/visits/${id}`,
    changed: ['status', 'started_at'],
  },
  'visit.completed': {
    act: () => movedVisit('completed'),
    path: (id) => `/v1/visits/${id}`,
    changed: ['status', 'completed_at'],
  },
  'visit.canceled': {
    act: () => movedVisit('canceled'),
    path: (id) => `/v1/visits/${id}`,
    changed: ['status', 'canceled_at'],
  },
  'visit.reopened': {
    act: () => movedVisit('canceled', 'scheduled'),
    path: (id) => `/v1/visits/${id}`,
    changed: ['status', 'canceled_at'],
  },
  'visit.updated': {
    async act() {
      const visit = await timedVisit();
      await api('PUT', `/v1/visits/${visit.id}`, { title: 'Renamed visit' });
      return visit.id;
    },
    path: (id) => `/v1/visits/${id}`,
    changed: ['title'],
  },
  'visit.deleted': {
    act: async () => (await api('DELETE', `/v1/visits/${(await timedVisit()).id}`)).id,
  },
  // Contract section 18: visit schedules (a weekly rule on Mondays at 09:00 UTC).
  'visit_schedule.created': {
    act: async () => (await visitSchedule()).id,
    path: (id) => `/v1/visit-schedules/${id}`,
  },
  'visit_schedule.updated': {
    act: async () => (await api('PUT', `/v1/visit-schedules/${(await visitSchedule()).id}`, { horizon_days: 21 })).id,
    path: (id) => `/v1/visit-schedules/${id}`,
    changed: ['horizon_days', 'materialized_through'],
  },
  'visit_schedule.paused': {
    act: async () =>
      (await api('POST', `/v1/visit-schedules/${(await visitSchedule()).id}/pause`, { from: '2030-01-01' })).id,
    path: (id) => `/v1/visit-schedules/${id}`,
    changed: ['status', 'paused_from'],
  },
  'visit_schedule.resumed': {
    async act() {
      const schedule = await visitSchedule();
      await api('POST', `/v1/visit-schedules/${schedule.id}/pause`, { from: '2030-01-01' });
      return (await api('POST', `/v1/visit-schedules/${schedule.id}/resume`, {})).id;
    },
    path: (id) => `/v1/visit-schedules/${id}`,
    changed: ['status', 'paused_from'],
  },
  'visit_schedule.split': {
    async act() {
      const schedule = await visitSchedule();
      await api('POST', `/v1/visit-schedules/${schedule.id}/split`, { from_occurrence_key: '2030-01-07T09:00' });
      return schedule.id;
    },
    path: (id) => `/v1/visit-schedules/${id}`,
    changed: ['recurrence'],
  },
  'visit_schedule.ended': {
    act: async () => (await api('DELETE', `/v1/visit-schedules/${(await visitSchedule()).id}`)).id,
    path: (id) => `/v1/visit-schedules/${id}`,
    changed: ['status'],
  },
  // Contract section 23.
  'recurring_invoice.created': {
    act: async () => (await recurringInvoice()).id,
    path: (id) => `/v1/recurring-invoices/${id}`,
  },
  'recurring_invoice.updated': {
    act: async () =>
      (await api('PUT', `/v1/recurring-invoices/${(await recurringInvoice()).id}`, { name: 'Renamed' })).id,
    path: (id) => `/v1/recurring-invoices/${id}`,
    changed: ['name'],
  },
  'recurring_invoice.paused': {
    act: async () =>
      (await api('POST', `/v1/recurring-invoices/${(await recurringInvoice()).id}/pause`, { from: '2030-01-01' })).id,
    path: (id) => `/v1/recurring-invoices/${id}`,
    changed: ['status', 'paused_from'],
  },
  'recurring_invoice.resumed': {
    async act() {
      const template = await recurringInvoice();
      await api('POST', `/v1/recurring-invoices/${template.id}/pause`, { from: '2030-01-01' });
      return (await api('POST', `/v1/recurring-invoices/${template.id}/resume`, {})).id;
    },
    path: (id) => `/v1/recurring-invoices/${id}`,
    changed: ['status', 'paused_from'],
  },
  'recurring_invoice.ended': {
    act: async () => (await api('DELETE', `/v1/recurring-invoices/${(await recurringInvoice()).id}`)).id,
    path: (id) => `/v1/recurring-invoices/${id}`,
    changed: ['status', 'ended_at', 'next_occurrence_date', 'next_run_at'],
  },
  // Contract section 29.
  'time_entry.created': {
    act: async () => (await timeEntry()).id,
    path: (id) => `/v1/time-entries/${id}`,
  },
  'time_entry.updated': {
    act: async () => (await api('PUT', `/v1/time-entries/${(await timeEntry()).id}`, { notes: 'Valve' })).id,
    path: (id) => `/v1/time-entries/${id}`,
    changed: ['notes'],
  },
  'time_entry.deleted': {
    act: async () => (await api('DELETE', `/v1/time-entries/${(await timeEntry()).id}`)).id,
  },
  'time_entry.started': {
    async act() {
      const member = await api('POST', '/v1/team-members', { name: 'Timer' });
      return (await api('POST', '/v1/time-entries/start', { team_member_id: member.id })).id;
    },
    path: (id) => `/v1/time-entries/${id}`,
  },
  'time_entry.stopped': {
    async act() {
      const member = await api('POST', '/v1/team-members', { name: 'Timer' });
      const started = await api('POST', '/v1/time-entries/start', { team_member_id: member.id });
      const ended_at = new Date(Date.parse(started.started_at) + 60_000).toISOString();
      return (await api('POST', `/v1/time-entries/${started.id}/stop`, { ended_at })).id;
    },
    path: (id) => `/v1/time-entries/${id}`,
    changed: ['ended_at', 'running', 'duration_seconds', 'cost_amount', 'billed_hours', 'billable_amount'],
  },
  'time_entry.approved': {
    act: async () => (await api('POST', `/v1/time-entries/${(await timeEntry()).id}/approve`, {})).id,
    path: (id) => `/v1/time-entries/${id}`,
    changed: ['approved_at', 'approved_by'],
  },
  'time_entry.unapproved': {
    async act() {
      const entry = await timeEntry();
      await api('POST', `/v1/time-entries/${entry.id}/approve`, {});
      return (await api('POST', `/v1/time-entries/${entry.id}/unapprove`, {})).id;
    },
    path: (id) => `/v1/time-entries/${id}`,
    changed: ['approved_at', 'approved_by'],
  },
  // Before every entry of the suite, so nothing keeps the period from locking; unlocked after.
  'time_lock.locked': {
    act: async () => (await api('POST', '/v1/time-entries/lock', { through_date: '2000-01-31' })).id,
    changed: ['locked_through'],
  },
  'time_lock.unlocked': {
    act: async () => (await api('POST', '/v1/time-entries/unlock', { through_date: null })).id,
    changed: ['locked_through'],
  },
  // Contract section 25.
  'app.created': {
    act: async () => (await api('POST', '/v1/apps', APP_BODY)).id,
    path: (id) => `/v1/apps/${id}`,
  },
  'app.updated': {
    act: async () =>
      (await api('PUT', `/v1/apps/${(await api('POST', '/v1/apps', APP_BODY)).id}`, { name: 'Renamed' })).id,
    path: (id) => `/v1/apps/${id}`,
    changed: ['name'],
  },
  'app.deleted': {
    act: async () => (await api('DELETE', `/v1/apps/${(await api('POST', '/v1/apps', APP_BODY)).id}`)).id,
  },
  'app.installed': {
    act: async () => (await installedApp()).install_id,
    path: (id) => `/v1/app-installs/${id}`,
  },
  'app.reauthorized': {
    act: async () => {
      const first = await installedApp();
      return (await installedApp(first.app)).install_id;
    },
    path: (id) => `/v1/app-installs/${id}`,
    changed: ['scopes'],
  },
  'app.uninstalled': {
    act: async () => (await api('DELETE', `/v1/app-installs/${(await installedApp()).install_id}`)).id,
    path: (id) => `/v1/app-installs/${id}`,
    changed: ['status', 'uninstalled_at', 'uninstalled_reason'],
  },
  // Contract section 26: imports, and how each ends.
  'import.created': {
    act: async () => (await api('POST', '/v1/imports', { kind: 'client' })).id,
    path: (id) => `/v1/imports/${id}`,
  },
  'import.completed': {
    act: async () => {
      const made = await api('POST', '/v1/imports', { kind: 'client' });
      await uploadCsv(made.id, 'name\nImported');
      await new ImportWorker(suite.context.app, quiet).runPass();
      return made.id;
    },
    path: (id) => `/v1/imports/${id}`,
  },
  'import.failed': {
    act: async () => {
      const made = await api('POST', '/v1/imports', { kind: 'client' });
      await uploadCsv(made.id, Buffer.from('name\nJos\xe9', 'latin1'));
      return made.id;
    },
    path: (id) => `/v1/imports/${id}`,
  },
  'import.canceled': {
    act: async () =>
      (await api('POST', `/v1/imports/${(await api('POST', '/v1/imports', { kind: 'product' })).id}/cancel`)).id,
    path: (id) => `/v1/imports/${id}`,
  },
  // Contract section 27: definitions.
  'custom_field.created': {
    act: async () =>
      (await api('POST', '/v1/custom-fields', { resource: 'client', key: 'tier', label: 'Tier', type: 'text' })).id,
    path: (id) => `/v1/custom-fields/${id}`,
  },
  'custom_field.updated': {
    act: async () => {
      const field = await api('POST', '/v1/custom-fields', {
        resource: 'job',
        key: 'crew',
        label: 'Crew',
        type: 'text',
      });
      return (await api('PUT', `/v1/custom-fields/${field.id}`, { label: 'Crew name' })).id;
    },
    path: (id) => `/v1/custom-fields/${id}`,
    changed: ['label'],
  },
  'custom_field.deleted': {
    act: async () => {
      const field = await api('POST', '/v1/custom-fields', {
        resource: 'visit',
        key: 'gone',
        label: 'Gone',
        type: 'boolean',
      });
      return (await api('DELETE', `/v1/custom-fields/${field.id}`)).id;
    },
  },
  // Contract section 27: a tag renamed or deleted everywhere.
  'tag.renamed': {
    act: async () => {
      await api('POST', '/v1/clients', { name: 'Tagged', tags: ['Old name'] });
      const [tag] = (await get('/v1/tags?q=old')) as Array<{ id: string }>;
      return (await api('PUT', `/v1/tags/${tag!.id}`, { name: 'New name' })).id;
    },
    path: (id) => `/v1/tags/${id}`,
    changed: ['name'],
  },
  'tag.deleted': {
    act: async () => {
      await api('POST', '/v1/clients', { name: 'Tagged', tags: ['Short-lived'] });
      const [tag] = (await get('/v1/tags?q=short')) as Array<{ id: string }>;
      return (await api('DELETE', `/v1/tags/${tag!.id}`)).id;
    },
  },
  // Contract section 30: an upload, a PUT of its caption, a delete.
  'attachment.created': {
    act: async () => (await attachment()).id,
    path: (id) => `/v1/attachments/${id}`,
  },
  'attachment.updated': {
    act: async () => (await api('PUT', `/v1/attachments/${(await attachment()).id}`, { caption: 'After' })).id,
    path: (id) => `/v1/attachments/${id}`,
    changed: ['caption'],
  },
  'attachment.deleted': {
    act: async () => (await api('DELETE', `/v1/attachments/${(await attachment()).id}`)).id,
  },
  // Contract section 19.
  'product.created': {
    act: async () => (await api('POST', '/v1/products', { type: 'service', name: 'Drain cleaning' })).id,
    path: (id) => `/v1/products/${id}`,
  },
  'product.updated': {
    act: async () =>
      (
        await api('PUT', `/v1/products/${(await api('POST', '/v1/products', { type: 'fee', name: 'Call-out' })).id}`, {
          unit_amount: 4_500,
        })
      ).id,
    path: (id) => `/v1/products/${id}`,
    changed: ['unit_amount'],
  },
  'product.deleted': {
    act: async () =>
      (await api('DELETE', `/v1/products/${(await api('POST', '/v1/products', { type: 'fee', name: 'Gone' })).id}`)).id,
  },
  'tax_rate.created': {
    act: async () => (await api('POST', '/v1/tax-rates', { name: 'GST', percentage: 5 })).id,
    path: (id) => `/v1/tax-rates/${id}`,
  },
  'tax_rate.updated': {
    act: async () =>
      (
        await api(
          'PUT',
          `/v1/tax-rates/${(await api('POST', '/v1/tax-rates', { name: 'QST', percentage: 9.975 })).id}`,
          {
            registration_number: '1234567890 TQ0001',
          },
        )
      ).id,
    path: (id) => `/v1/tax-rates/${id}`,
    changed: ['registration_number'],
  },
  'tax_rate.deleted': {
    act: async () =>
      (await api('DELETE', `/v1/tax-rates/${(await api('POST', '/v1/tax-rates', { name: 'Gone', percentage: 1 })).id}`))
        .id,
  },
  'availability_exception.created': {
    act: async () => (await timeOff()).id,
    path: (id) => `/v1/availability-exceptions/${id}`,
  },
  'availability_exception.updated': {
    act: async () => (await api('PUT', `/v1/availability-exceptions/${(await timeOff()).id}`, { reason: 'Moved' })).id,
    path: (id) => `/v1/availability-exceptions/${id}`,
    changed: ['reason'],
  },
  'availability_exception.deleted': {
    act: async () => (await api('DELETE', `/v1/availability-exceptions/${(await timeOff()).id}`)).id,
  },
};

/** A member's afternoon off (contract section 28). */
async function timeOff() {
  const member = await api('POST', '/v1/team-members', { name: 'Resting member' });
  return api('POST', '/v1/availability-exceptions', {
    team_member_id: member.id,
    start_at: '2030-01-07T13:00:00Z',
    end_at: '2030-01-07T17:00:00Z',
  });
}

/** A stopped time entry of a new member (contract section 29). */
async function timeEntry() {
  const member = await api('POST', '/v1/team-members', { name: 'Timesheet' });
  return api('POST', '/v1/time-entries', {
    team_member_id: member.id,
    started_at: '2026-01-05T08:00:00Z',
    ended_at: '2026-01-05T09:00:00Z',
  });
}

/** A weekly recurring invoice of the suite's client (contract section 23). */
async function recurringInvoice() {
  return api('POST', '/v1/recurring-invoices', {
    client_id: suite.clientId,
    invoice: { line_items: [{ description: 'Plan', quantity: 1, unit_amount: 100 }] },
    recurrence: { rrule: 'FREQ=WEEKLY', start_date: '2026-01-05' },
  });
}

/** A job's weekly visit schedule (contract section 18). */
async function visitSchedule() {
  const job = await api('POST', '/v1/jobs', { client_id: suite.clientId, title: 'Repeats' });
  return api('POST', '/v1/visit-schedules', {
    job_id: job.id,
    recurrence: { rrule: 'FREQ=WEEKLY', start_date: '2026-01-05', time: '09:00', timezone: 'UTC' },
    duration_minutes: 60,
    horizon_days: 14,
  });
}

/** The closed list of the contract, written out: the table above must cover exactly it. */
const CONTRACT_TYPES = [
  'client.created',
  'client.updated',
  'client.deleted',
  // Contract section 16.
  'property.created',
  'property.updated',
  'property.deleted',
  'service_request.created',
  'service_request.updated',
  'service_request.converted',
  'quote.created',
  'quote.updated',
  'quote.sent',
  'quote.approved',
  'quote.declined',
  'quote.converted',
  'quote.deleted',
  // Contract section 23.
  'quote.deposit_paid',
  'job.created',
  'job.updated',
  'job.completed',
  'job.canceled',
  'job.deleted',
  'invoice.created',
  'invoice.updated',
  'invoice.sent',
  'invoice.paid',
  'invoice.voided',
  'invoice.deleted',
  'payment.created',
  'payment.refunded',
  // Contract section 22.
  'payment.applied',
  'payment.unapplied',
  'credit_note.created',
  'credit_note.updated',
  'credit_note.issued',
  'credit_note.sent',
  'credit_note.applied',
  'credit_note.unapplied',
  'credit_note.refunded',
  'credit_note.voided',
  'credit_note.deleted',
  'delivery.succeeded',
  'delivery.failed',
  // Contract section 23: payment reminders.
  'invoice.reminder_sent',
  'delivery.canceled',
  'webhook_endpoint.disabled',
  'webhook_endpoint.test',
  // Contract section 15.
  'team_member.created',
  'team_member.updated',
  'team_member.deleted',
  'api_key.created',
  'api_key.updated',
  'api_key.rolled',
  'api_key.revoked',
  // Contract section 17.
  'visit.created',
  'visit.scheduled',
  'visit.rescheduled',
  'visit.reassigned',
  'visit.en_route',
  'visit.started',
  'visit.completed',
  'visit.canceled',
  'visit.reopened',
  'visit.updated',
  'visit.deleted',
  // Contract section 18.
  'visit_schedule.created',
  'visit_schedule.updated',
  'visit_schedule.paused',
  'visit_schedule.resumed',
  'visit_schedule.split',
  'visit_schedule.ended',
  // Contract section 23.
  'recurring_invoice.created',
  'recurring_invoice.updated',
  'recurring_invoice.paused',
  'recurring_invoice.resumed',
  'recurring_invoice.ended',
  // Contract section 29.
  'time_entry.created',
  'time_entry.updated',
  'time_entry.deleted',
  'time_entry.started',
  'time_entry.stopped',
  'time_entry.approved',
  'time_entry.unapproved',
  'time_lock.locked',
  'time_lock.unlocked',
  // Contract section 27.
  'custom_field.created',
  'custom_field.updated',
  'custom_field.deleted',
  'tag.renamed',
  'tag.deleted',
  // Contract section 26.
  'import.created',
  'import.completed',
  'import.failed',
  'import.canceled',
  // Contract section 30.
  'attachment.created',
  'attachment.updated',
  'attachment.deleted',
  // Contract section 19.
  'product.created',
  'product.updated',
  'product.deleted',
  'tax_rate.created',
  'tax_rate.updated',
  'tax_rate.deleted',
  // Contract section 28.
  'availability_exception.created',
  'availability_exception.updated',
  'availability_exception.deleted',
  // Contract section 25.
  'app.created',
  'app.updated',
  'app.deleted',
  'app.installed',
  'app.reauthorized',
  'app.uninstalled',
];

test('the catalogue covers the closed list of the contract, and the OpenAPI document declares each type', async () => {
  assert.deepEqual(Object.keys(CATALOGUE).sort(), [...CONTRACT_TYPES].sort());
  const document = (await suite.context.request('GET', '/v1/openapi.json')).body;
  assert.deepEqual(Object.keys(document.webhooks).sort(), [...CONTRACT_TYPES].sort());
  assert.deepEqual(document.components.schemas.Event.properties.type.enum.sort(), [...CONTRACT_TYPES].sort());
});

describe('every event type, produced by its action', () => {
  for (const [type, row] of Object.entries(CATALOGUE)) {
    test(type, async () => {
      const id = await row.act();
      const events = await eventsOf(type, id);
      assert.equal(events.length, 1, `one ${type} about ${id}`);
      const [event] = events;
      assert.equal(event!.type, type);
      assert.equal(event!.data.object.id, id);
      if (row.path) {
        const current = await get(row.path(id));
        const { secret: _secret, ...shown } = current;
        if (!type.startsWith('webhook_endpoint.'))
          assert.deepEqual(event!.data.object, shown, 'data.object is the object as GET returns it after the change');
      }
      if (row.changed)
        assert.deepEqual(Object.keys(event!.data.previous_attributes ?? {}).sort(), [...row.changed].sort());
      else assert.equal(event!.data.previous_attributes, undefined);
      assert.deepEqual(
        (await suite.context.request('GET', `/v1/events/${event!.id}`, { key: suite.key })).body.data,
        event,
      );
    });
  }

  test('a delivery failure keeps no credentials in last_error', async () => {
    const [event] = (await suite.context.request('GET', '/v1/events?type=delivery.failed', { key: suite.key })).body
      .data;
    assert.ok(event.data.object.last_error);
    assert.doesNotMatch(JSON.stringify(event), /hunter2/);
  });

  test('*.deleted carries the object as it was before deletion', async () => {
    const client = await api('POST', '/v1/clients', { name: 'Kept in the event', email: 'kept@example.com' });
    await api('DELETE', `/v1/clients/${client.id}`);
    const [event] = await eventsOf('client.deleted', client.id);
    assert.deepEqual(event!.data.object, client);
  });
});

describe('transactions', () => {
  test('a change that rolls back leaves no event', async () => {
    const before = (await suite.context.request('GET', '/v1/events?limit=1', { key: suite.key })).body.data[0]?.id;
    // The request is converted by the quote, then the quote fails on its own client check: all rolled back.
    const other = await api('POST', '/v1/clients', { name: 'Other' });
    const request = await api('POST', '/v1/service-requests', { client_id: suite.clientId, title: 'Leak' });
    const [created] = await eventsOf('service_request.created', request.id);
    const failed = await suite.context.request('POST', '/v1/quotes', {
      key: suite.key,
      body: { client_id: other.id, request_id: request.id },
    });
    assert.equal(failed.status, 422);
    assert.deepEqual(await eventsOf('service_request.converted', request.id), []);
    assert.deepEqual(await eventsOf('quote.created', request.id), []);
    const newest = (await suite.context.request('GET', '/v1/events?limit=1', { key: suite.key })).body.data[0].id;
    assert.equal(newest, created!.id, 'nothing after the request was created');
    assert.notEqual(newest, before);
  });

  test('a PUT that changes nothing visible records nothing', async () => {
    const client = await api('POST', '/v1/clients', { name: 'Same' });
    await api('PUT', `/v1/clients/${client.id}`, { name: 'Same' });
    assert.deepEqual(await eventsOf('client.updated', client.id), []);
  });
});

describe('listing events', () => {
  let invoiceId: string;
  before(async () => {
    invoiceId = await sentInvoice();
  });

  test('newest first; filters type (with invoice.*), resource_id, created_after, created_before', async () => {
    const all = (await suite.context.request('GET', `/v1/events?resource_id=${invoiceId}`, { key: suite.key })).body
      .data as Array<{ type: string; created_at: string }>;
    assert.deepEqual(
      all.map((event) => event.type),
      ['invoice.sent', 'invoice.created'],
    );
    const wildcard = (
      await suite.context.request('GET', `/v1/events?type=invoice.*,payment.created&resource_id=${invoiceId}`, {
        key: suite.key,
      })
    ).body.data;
    assert.equal(wildcard.length, 2);
    const exact = (
      await suite.context.request('GET', `/v1/events?type=invoice.sent&resource_id=${invoiceId}`, { key: suite.key })
    ).body.data;
    assert.deepEqual(
      exact.map((event: { type: string }) => event.type),
      ['invoice.sent'],
    );
    const after = (
      await suite.context.request(
        'GET',
        `/v1/events?resource_id=${invoiceId}&created_after=${encodeURIComponent(all[0]!.created_at)}`,
        { key: suite.key },
      )
    ).body.data;
    assert.ok(after.every((event: { created_at: string }) => event.created_at >= all[0]!.created_at));
    const beforeFirst = (
      await suite.context.request(
        'GET',
        `/v1/events?resource_id=${invoiceId}&created_before=${encodeURIComponent(all[1]!.created_at)}`,
        { key: suite.key },
      )
    ).body.data;
    assert.deepEqual(beforeFirst, []);
  });

  test('pages with a cursor; unknown types and bad values are 422; another account sees nothing', async () => {
    const first = await suite.context.request('GET', '/v1/events?limit=2', { key: suite.key });
    assert.equal(first.body.data.length, 2);
    const second = await suite.context.request(
      'GET',
      `/v1/events?limit=2&cursor=${first.body.meta.pagination.next_cursor}`,
      { key: suite.key },
    );
    assert.notEqual(second.body.data[0].id, first.body.data[1].id);
    assert.ok(second.body.data[0].created_at <= first.body.data[1].created_at);
    for (const query of [
      'type=invoice.exploded',
      'type=nothing.*',
      'created_after=yesterday',
      'sort=type',
      'limit=0',
    ]) {
      const response = await suite.context.request('GET', `/v1/events?${query}`, { key: suite.key });
      assert.equal(response.status, 422, `${query}: ${response.text}`);
    }
    const stranger = await suite.context.account('Stranger');
    assert.deepEqual((await suite.context.request('GET', '/v1/events', { key: stranger.key })).body.data, []);
    assert.equal(
      (await suite.context.request('GET', `/v1/events/${first.body.data[0].id}`, { key: stranger.key })).status,
      404,
    );
  });
});

test('events older than the retention are pruned, a bounded batch at a time, with their deliveries', async () => {
  const { pruneEvents } = await import('../src/modules/events/events.repository.js');
  const { v7 } = await import('uuid');
  const db = suite.context.database.db;
  const recent = await api('POST', '/v1/clients', { name: 'Recent news' });
  // Two events from 2020, as they would have been written then (ids are UUIDv7: their time is in the id).
  const [oldest, older] = [Date.parse('2020-01-01T00:00:00.000Z'), Date.parse('2020-06-01T00:00:00.000Z')].map(
    (at) => ({ id: v7({ msecs: at }), created_at: new Date(at).toISOString() }),
  );
  for (const old of [oldest!, older!]) {
    await db
      .insertInto('events')
      .values({
        ...old,
        account_id: suite.accountId,
        type: 'client.created',
        resource_id: recent.id,
        data: JSON.stringify({ object: recent }),
        actor_type: 'api_key',
      })
      .execute();
  }
  assert.equal(await pruneEvents(db, '2021-01-01T00:00:00.000Z', 1), 1, 'one batch of 1');
  assert.equal(
    (await suite.context.request('GET', `/v1/events/${oldest!.id}`, { key: suite.key })).status,
    404,
    'oldest first',
  );
  assert.equal(await pruneEvents(db, '2021-01-01T00:00:00.000Z', 10), 1);
  assert.equal(await pruneEvents(db, '2021-01-01T00:00:00.000Z', 10), 0);
  assert.equal((await eventsOf('client.created', recent.id)).length, 1, 'the recent event stays');
});

describe('bounded events and event lists, and pruning', () => {
  const api = (method: string, url: string, body?: unknown, key = suite.key) =>
    suite.context.request(method, url, { key, ...(body === undefined ? {} : { body }) });

  /** The events about `resourceId`, newest first. */
  const eventsAbout = async (resourceId: string): Promise<{ id: string; type: string; data: any }[]> =>
    (await api('GET', `/v1/events?resource_id=${resourceId}&limit=100`)).body.data;

  test('no event is over 64 KB: an invoice of 200 long lines, edited, records events of at most 64 KB that say they are truncated', async () => {
    const line = (n: number) => ({
      description: `${'Ünïcödé wörk '.repeat(35)}${n}`.slice(0, 500),
      quantity: 1,
      unit_amount: 100,
    });
    const created = await api('POST', '/v1/invoices', {
      client_id: suite.clientId,
      line_items: Array.from({ length: 200 }, (_, n) => line(n)),
    });
    assert.equal(created.status, 201, created.text);
    assert.ok(Buffer.byteLength(JSON.stringify(created.body.data)) > 64 * 1024, 'the invoice itself is over 64 KB');
    const edited = await api('PUT', `/v1/invoices/${created.body.data.id}`, {
      line_items: Array.from({ length: 200 }, (_, n) => line(n + 1)),
    });
    assert.equal(edited.status, 200, edited.text);
    const small = await api('PUT', `/v1/invoices/${created.body.data.id}`, { line_items: [line(1)] });
    assert.equal(small.status, 200);
    const events = await eventsAbout(created.body.data.id);
    assert.deepEqual(
      events.map((event) => event.type),
      ['invoice.updated', 'invoice.updated', 'invoice.created'],
    );
    for (const { id } of events) {
      const one = await api('GET', `/v1/events/${id}`);
      assert.ok(Buffer.byteLength(one.text) <= 64 * 1024 + 200, `event ${id}: ${Buffer.byteLength(one.text)} bytes`);
      assert.ok(Buffer.byteLength(JSON.stringify(one.body.data)) <= 64 * 1024);
      assert.equal(one.body.data.data.object.id, created.body.data.id);
    }
    const [shrunk, grown, first] = events;
    // Smaller after the edit: the whole object is kept, its old lines are left out.
    assert.equal(shrunk?.data.truncated, true);
    assert.equal(shrunk?.data.object.line_items.length, 1);
    assert.equal(shrunk?.data.previous_attributes, undefined);
    // Too large even without previous_attributes: a reference the receiver GETs.
    assert.deepEqual(grown?.data.object, { id: created.body.data.id, object: 'invoice' });
    assert.deepEqual(first?.data.object, { id: created.body.data.id, object: 'invoice' });
    assert.equal(first?.data.truncated, true);
  });

  test('a list of events is bounded in bytes (about 5 MB): it ends early with has_more and a cursor that resumes it', async () => {
    const { accountId, key } = await suite.context.account('Large events');
    const { v7 } = await import('uuid');
    const padding = 'x'.repeat(60 * 1024);
    const start = Date.now() - 60_000;
    const rows = Array.from({ length: 120 }, (_, n) => ({
      id: v7({ msecs: start + n }),
      account_id: accountId,
      type: 'client.updated',
      resource_id: randomUUID(),
      data: JSON.stringify({ object: { id: randomUUID(), object: 'client', notes: padding } }),
      actor_type: 'api_key',
      actor_id: null,
      created_at: new Date(start + n).toISOString(),
    }));
    for (let from = 0; from < rows.length; from += 20)
      await suite.context.database.db
        .insertInto('events')
        .values(rows.slice(from, from + 20))
        .execute();
    const seen: string[] = [];
    let url = '/v1/events?limit=100';
    const sizes: number[] = [];
    for (;;) {
      const page = await suite.context.request('GET', url, { key });
      assert.equal(page.status, 200, page.text.slice(0, 200));
      sizes.push(Buffer.byteLength(page.text));
      seen.push(...page.body.data.map((event: { id: string }) => event.id));
      const { has_more: hasMore, next_cursor: cursor } = page.body.meta.pagination;
      if (!hasMore) break;
      url = `/v1/events?limit=100&cursor=${cursor}`;
    }
    assert.ok(sizes[0]! <= 5 * 1024 * 1024 + 64 * 1024, `first page ${sizes[0]} bytes`);
    assert.ok(sizes[0]! > 4 * 1024 * 1024, `first page ${sizes[0]} bytes`);
    assert.ok(sizes.length >= 2, 'the 100-row page ended early');
    assert.deepEqual(seen, rows.map((row) => row.id).reverse(), 'every event exactly once, newest first');
  });

  test('pruning deletes events in batches until the retention is met: 2,500 events written between runs (more than a batch) keep the table flat; a run out of time leaves the rest to the next', async () => {
    const clock = new ManualClock(new Date('2026-01-01T00:00:00.000Z'));
    const context = await createTestContext({ clock });
    const quiet = { info() {}, warn() {}, error() {} };
    try {
      const { accountId } = await context.account('Busy account');
      const { v7 } = await import('uuid');
      const worker = new WebhookWorker(context.database, clock, context.config.webhooks, quiet);
      const count = async () =>
        Number(
          (
            await context.database.db
              .selectFrom('events')
              .select((eb) => eb.fn.countAll().as('n'))
              .where('account_id', '=', accountId)
              .executeTakeFirstOrThrow()
          ).n,
        );
      /** 2,500 events written now (more than one batch of 1,000 between two runs). */
      const write = async () => {
        const at = clock.now().getTime();
        const rows = Array.from({ length: 2_500 }, (_, n) => ({
          id: v7({ msecs: at + (n % 1000) }),
          account_id: accountId,
          type: 'client.updated',
          resource_id: randomUUID(),
          data: '{"object":{"id":"x"}}',
          actor_type: 'system',
          actor_id: null,
          created_at: new Date(at + (n % 1000)).toISOString(),
        }));
        for (let from = 0; from < rows.length; from += 250)
          await context.database.db
            .insertInto('events')
            .values(rows.slice(from, from + 250))
            .execute();
      };
      // Retention is 90 days; a run every 30 days of writing: at most 4 runs' writes are young enough to keep.
      // Each run is given a minute (the default budget is 2 s: how fast a batch goes is bench/'s subject).
      const sizes: number[] = [];
      for (let run = 0; run < 8; run += 1) {
        await write();
        const { done } = await worker.prune(60_000);
        assert.equal(done, true, `run ${run} met the retention within its budget`);
        sizes.push(await count());
        clock.advance(30 * 86_400_000);
      }
      assert.deepEqual(sizes, [2_500, 5_000, 7_500, 10_000, 10_000, 10_000, 10_000, 10_000], 'the table stays flat');

      // A run out of time stops after its batch and says a backlog remains; the next run takes it up.
      clock.advance(120 * 86_400_000);
      assert.deepEqual(await worker.prune(0), { pruned: 1_000, done: false });
      assert.deepEqual(await worker.prune(60_000), { pruned: 9_000, done: true });
      assert.equal(await count(), 0);
    } finally {
      await context.close();
    }
  });
});
