// The ledger's rules (contract §22, "Rules") after random sequences of invoices, payments, refunds, credit notes,
// applications, unapplies and voids, through the API: after every step, every client's last `balance_amount`
// equals its balance endpoint, and every invoice's document entries sum to its total (0 once void) and, less
// what was applied, to its amount_due. A refused step (4xx) is fine; a 500 is not.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { clientSuite } from './helpers/state-table.js';

const suite = clientSuite('Ledger property');

const request = (method: string, path: string, body?: unknown) =>
  suite.context.request(method, path, { key: suite.key, ...(body === undefined ? {} : { body }) });

type Step =
  | { kind: 'invoice'; client: number; total: number; void: boolean }
  | { kind: 'pay'; invoice: number; amount: number; credit: boolean }
  | { kind: 'refund'; payment: number; amount: number }
  | { kind: 'credit'; invoice: number; amount: number; againstInvoice: boolean; applyOnIssue: boolean }
  | { kind: 'apply'; source: number; invoice: number; amount: number; fromNote: boolean }
  | { kind: 'unapply'; invoice: number; index: number }
  | { kind: 'voidInvoice'; invoice: number }
  | { kind: 'voidNote'; note: number }
  | { kind: 'refundNote'; note: number; amount: number }
  | { kind: 'edit'; invoice: number; total: number };

const index = fc.nat({ max: 7 });
const money = fc.integer({ min: 1, max: 4_000 });
const total = fc.integer({ min: 1_000, max: 12_000 });
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    kind: fc.constant('invoice' as const),
    client: fc.nat({ max: 1 }),
    total: money,
    void: fc.constant(false),
  }),
  {
    weight: 3,
    arbitrary: fc.record({ kind: fc.constant('pay' as const), invoice: index, amount: money, credit: fc.boolean() }),
  },
  fc.record({ kind: fc.constant('refund' as const), payment: index, amount: money }),
  fc.record({
    kind: fc.constant('credit' as const),
    invoice: index,
    amount: money,
    againstInvoice: fc.boolean(),
    applyOnIssue: fc.boolean(),
  }),
  fc.record({
    kind: fc.constant('apply' as const),
    source: index,
    invoice: index,
    amount: money,
    fromNote: fc.boolean(),
  }),
  fc.record({ kind: fc.constant('unapply' as const), invoice: index, index: fc.nat({ max: 2 }) }),
  fc.record({ kind: fc.constant('voidInvoice' as const), invoice: index }),
  fc.record({ kind: fc.constant('voidNote' as const), note: index }),
  fc.record({ kind: fc.constant('refundNote' as const), note: index, amount: money }),
  fc.record({ kind: fc.constant('edit' as const), invoice: index, total }),
);

async function checkRules(clients: string[], invoices: string[]): Promise<void> {
  for (const clientId of clients) {
    const balance = (await request('GET', `/v1/clients/${clientId}/balance`)).body.data;
    const last = (await request('GET', `/v1/ledger-entries?client_id=${clientId}&sort=-sequence&limit=1`)).body.data;
    const expected = balance.balances.find((row: { currency: string }) => row.currency === 'USD')?.balance_amount ?? 0;
    assert.equal(last[0]?.balance_amount ?? 0, expected, `client ${clientId}: last balance_amount = balance`);
  }
  for (const invoiceId of invoices) {
    const invoice = (await request('GET', `/v1/invoices/${invoiceId}`)).body.data;
    const entries = (await request('GET', `/v1/ledger-entries?invoice_id=${invoiceId}&limit=100`)).body.data as {
      type: string;
      amount: number;
      applied_amount: number;
    }[];
    const document = entries
      .filter((entry) => ['invoice_issued', 'invoice_adjusted', 'invoice_voided', 'late_fee'].includes(entry.type))
      .reduce((sum, entry) => sum + entry.amount, 0);
    const applied = entries.reduce((sum, entry) => sum + entry.applied_amount, 0);
    assert.equal(document, invoice.status === 'void' ? 0 : invoice.total_amount, `invoice ${invoiceId}: total`);
    assert.equal(document - applied, invoice.amount_due, `invoice ${invoiceId}: amount_due`);
  }
}

test('after every step of random money moves, the ledger agrees with the documents', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(step, { minLength: 3, maxLength: 14 }), async (steps) => {
      const clients: string[] = [];
      for (const name of ['Ada', 'Grace'])
        clients.push((await request('POST', '/v1/clients', { name, email: 'p@example.com' })).body.data.id);
      const invoices: string[] = [];
      const payments: string[] = [];
      const notes: string[] = [];
      const pick = <T>(list: T[], at: number): T | undefined =>
        list.length === 0 ? undefined : list[at % list.length];
      for (const one of steps) {
        let response: { status: number; text: string; body: any } | undefined;
        switch (one.kind) {
          case 'invoice': {
            const created = await request('POST', '/v1/invoices', {
              client_id: clients[one.client],
              line_items: [{ description: 'Work', quantity: 1, unit_amount: one.total }],
            });
            response = await request('PUT', `/v1/invoices/${created.body.data.id}`, { status: 'sent' });
            invoices.push(created.body.data.id);
            break;
          }
          case 'pay': {
            const invoice = pick(invoices, one.invoice);
            if (!invoice) break;
            response = await request('POST', '/v1/payments', {
              invoice_id: invoice,
              amount: one.amount,
              method: 'cash',
              ...(one.credit ? { overpayment: 'credit' } : {}),
            });
            if (response.status === 201) payments.push(response.body.data.id);
            break;
          }
          case 'refund': {
            const payment = pick(payments, one.payment);
            if (payment) response = await request('POST', `/v1/payments/${payment}/refund`, { amount: one.amount });
            break;
          }
          case 'credit': {
            const invoice = pick(invoices, one.invoice);
            if (!invoice) break;
            const client = (await request('GET', `/v1/invoices/${invoice}`)).body.data.client_id;
            const created = await request('POST', '/v1/credit-notes', {
              ...(one.againstInvoice ? { invoice_id: invoice } : { client_id: client }),
              amount: one.amount,
              apply_on_issue: one.applyOnIssue,
            });
            if (created.status !== 201) {
              response = created;
              break;
            }
            notes.push(created.body.data.id);
            response = await request('PUT', `/v1/credit-notes/${created.body.data.id}`, { status: 'issued' });
            break;
          }
          case 'apply': {
            const source = one.fromNote ? pick(notes, one.source) : pick(payments, one.source);
            const invoice = pick(invoices, one.invoice);
            if (source && invoice)
              response = await request('POST', `/v1/${one.fromNote ? 'credit-notes' : 'payments'}/${source}/apply`, {
                applications: [{ invoice_id: invoice, amount: one.amount }],
              });
            break;
          }
          case 'unapply': {
            const invoice = pick(invoices, one.invoice);
            if (!invoice) break;
            const application = pick(
              (await request('GET', `/v1/invoices/${invoice}`)).body.data.applications,
              one.index,
            ) as { id: string; source: { type: string; id: string } } | undefined;
            if (application)
              response = await request(
                'POST',
                `/v1/${application.source.type === 'payment' ? 'payments' : 'credit-notes'}/${application.source.id}/unapply`,
                { application_id: application.id },
              );
            break;
          }
          case 'voidInvoice': {
            const invoice = pick(invoices, one.invoice);
            if (invoice) response = await request('PUT', `/v1/invoices/${invoice}`, { status: 'void' });
            break;
          }
          case 'voidNote': {
            const note = pick(notes, one.note);
            if (note) response = await request('PUT', `/v1/credit-notes/${note}`, { status: 'void' });
            break;
          }
          case 'refundNote': {
            const note = pick(notes, one.note);
            if (note)
              response = await request('POST', `/v1/credit-notes/${note}/refund`, {
                amount: one.amount,
                method: 'cash',
              });
            break;
          }
          case 'edit': {
            const invoice = pick(invoices, one.invoice);
            if (invoice)
              response = await request('PUT', `/v1/invoices/${invoice}`, {
                line_items: [{ description: 'Work', quantity: 1, unit_amount: one.total }],
              });
            break;
          }
        }
        if (response) assert.ok(response.status < 500, `${JSON.stringify(one)}: ${response.status} ${response.text}`);
        await checkRules(clients, invoices);
      }
    }),
    { numRuns: 12 },
  );
});
