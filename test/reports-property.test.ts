// Reports against the ledger they read (contract §24), after random books made through the API (invoices with
// and without tax, back-dated payments, credit notes, refunds, voids): the aging buckets sum to each row's open
// amount and the balance is Σ entries dated ≤ as_of; accrual revenue is Σ documents issued − credited (read here
// from the ledger's own entries, so the kept day totals are compared with their source); the tax summary's tax
// is the revenue's, on both bases; cash revenue over all time is the money applied less credit-note refunds.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import { ManualClock } from '../src/core/deps.js';
import { createTestContext, type TestContext } from './helpers/context.js';

let context: TestContext;
before(async () => {
  context = await createTestContext({ clock: new ManualClock(new Date('2026-11-21T10:00:00.000Z')) });
});
after(() => context.close());

type Step =
  | { kind: 'invoice'; client: number; amount: number; taxed: boolean; issued: number; terms: number }
  | { kind: 'pay'; invoice: number; amount: number; day: number }
  | { kind: 'credit'; invoice: number; amount: number }
  | { kind: 'refundNote'; note: number; amount: number }
  | { kind: 'void'; invoice: number };

const index = fc.nat({ max: 5 });
const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('invoice' as const),
      client: fc.nat({ max: 1 }),
      amount: fc.integer({ min: 1, max: 20_000 }),
      taxed: fc.boolean(),
      issued: fc.integer({ min: 0, max: 80 }),
      terms: fc.integer({ min: 0, max: 60 }),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('pay' as const),
      invoice: index,
      amount: fc.integer({ min: 1, max: 12_000 }),
      day: fc.integer({ min: 0, max: 80 }),
    }),
  },
  fc.record({ kind: fc.constant('credit' as const), invoice: index, amount: fc.integer({ min: 1, max: 5_000 }) }),
  fc.record({ kind: fc.constant('refundNote' as const), note: index, amount: fc.integer({ min: 1, max: 3_000 }) }),
  fc.record({ kind: fc.constant('void' as const), invoice: index }),
);

/** A day of 2026 from 2026-09-01 (day 0) to 2026-11-20 (day 80). */
const dayOf = (offset: number) => new Date(Date.UTC(2026, 8, 1 + offset)).toISOString().slice(0, 10);

interface Entry {
  sequence: number;
  client_id: string;
  invoice_id: string | null;
  credit_note_id: string | null;
  type: string;
  effective_date: string;
  amount: number;
  applied_amount: number;
  payment_id: string | null;
  net_amount: number | null;
  tax_amount: number | null;
}

const DOCUMENT_TYPES = [
  'invoice_issued',
  'invoice_adjusted',
  'late_fee',
  'invoice_voided',
  'credit_note_issued',
  'credit_note_voided',
];

test('random books: aging, revenue and tax summary agree with the ledger entries they read', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(step, { minLength: 1, maxLength: 9 }),
      fc.integer({ min: 0, max: 90 }),
      fc.integer({ min: 0, max: 40 }),
      fc.integer({ min: 0, max: 50 }),
      fc.integer({ min: 0, max: 100 }),
      async (steps, asOfDay, fromDay, span, pick) => {
        const { key } = await context.account();
        const call = (method: string, path: string, body?: unknown) =>
          context.request(method, path, { key, ...(body === undefined ? {} : { body }) });
        const rate = (await call('POST', '/v1/tax-rates', { name: 'VAT', percentage: 7.5 })).body.data.id;
        const clients: string[] = [];
        for (const name of ['Ann', 'Bob']) clients.push((await call('POST', '/v1/clients', { name })).body.data.id);
        const invoices: string[] = [];
        const notes: string[] = [];
        for (const move of steps) {
          let response;
          if (move.kind === 'invoice') {
            response = await call('POST', '/v1/invoices', {
              client_id: clients[move.client],
              issue_date: dayOf(move.issued),
              due_date: dayOf(move.issued + move.terms),
              line_items: [
                { description: 'Work', quantity: 1, unit_amount: move.amount, tax_rate_ids: move.taxed ? [rate] : [] },
                { description: 'Parts', quantity: 2, unit_amount: 150, tax_rate_ids: [] },
              ],
            });
            if (response.status === 201) {
              const sent = await call('PUT', `/v1/invoices/${response.body.data.id}`, { status: 'sent' });
              assert.equal(sent.status, 200, sent.text);
              invoices.push(response.body.data.id);
            }
          } else if (move.kind === 'pay' && invoices.length > 0) {
            response = await call('POST', '/v1/payments', {
              invoice_id: invoices[move.invoice % invoices.length],
              amount: move.amount,
              method: 'cash',
              paid_at: `${dayOf(move.day)}T12:00:00.000Z`,
            });
          } else if (move.kind === 'credit' && invoices.length > 0) {
            response = await call('POST', '/v1/credit-notes', {
              invoice_id: invoices[move.invoice % invoices.length],
              amount: move.amount,
            });
            if (response.status === 201) {
              response = await call('PUT', `/v1/credit-notes/${response.body.data.id}`, { status: 'issued' });
              if (response.status === 200) notes.push(response.body.data.id);
            }
          } else if (move.kind === 'refundNote' && notes.length > 0) {
            response = await call('POST', `/v1/credit-notes/${notes[move.note % notes.length]}/refund`, {
              amount: move.amount,
              method: 'cash',
            });
          } else if (move.kind === 'void' && invoices.length > 0) {
            response = await call('PUT', `/v1/invoices/${invoices[move.invoice % invoices.length]}`, {
              status: 'void',
            });
          }
          if (response) assert.ok(response.status < 500, response.text);
        }

        const entries: Entry[] = [];
        let cursor: string | null = null;
        do {
          const page = await call(
            'GET',
            `/v1/ledger-entries?sort=sequence&limit=100${cursor ? `&cursor=${cursor}` : ''}`,
          );
          entries.push(...page.body.data);
          cursor = page.body.meta.pagination.next_cursor;
        } while (cursor);

        // Aging: buckets sum to the open amount; balance = open − credit = Σ entries dated ≤ as_of.
        const asOf = dayOf(asOfDay);
        const aging = (await call('GET', `/v1/reports/aged-receivables?as_of=${asOf}`)).body.data;
        const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
        for (const row of [...aging.rows, aging.totals]) {
          assert.equal(sum(row.buckets.map((bucket: { amount: number }) => bucket.amount)), row.open_amount);
          assert.equal(row.balance_amount, row.open_amount - row.credit_amount);
        }
        assert.equal(
          aging.totals.balance_amount,
          sum(entries.filter((entry) => entry.effective_date <= asOf).map((entry) => entry.amount)),
        );

        // Accrual revenue: Σ of the documents' entries (issued − credited, voids taking back) in the range.
        const from = dayOf(fromDay);
        const to = dayOf(fromDay + span);
        const inRange = entries.filter(
          (entry) => DOCUMENT_TYPES.includes(entry.type) && entry.effective_date >= from && entry.effective_date <= to,
        );
        const revenue = (await call('GET', `/v1/reports/revenue?from=${from}&to=${to}&interval=week`)).body.data;
        assert.equal(revenue.totals.gross_amount, sum(inRange.map((entry) => entry.amount)));
        assert.equal(revenue.totals.net_amount, sum(inRange.map((entry) => entry.net_amount ?? 0)));
        assert.equal(revenue.totals.tax_amount, sum(inRange.map((entry) => entry.tax_amount ?? 0)));
        assert.equal(
          sum(revenue.rows.map((row: { gross_amount: number }) => row.gross_amount)),
          revenue.totals.gross_amount,
        );
        const tax = (await call('GET', `/v1/reports/tax-summary?from=${from}&to=${to}`)).body.data;
        assert.equal(tax.totals.tax_amount, revenue.totals.tax_amount);
        assert.equal(sum(tax.rows.map((row: { tax_amount: number }) => row.tax_amount)), tax.totals.tax_amount);

        // Cash over all time: the payments' money applied, less credit-note refunds; tax as the tax summary's.
        const all = 'from=2026-01-01&to=2026-12-31&basis=cash';
        const cash = (await call('GET', `/v1/reports/revenue?${all}`)).body.data;
        const applied = sum(
          entries
            .filter((entry) => (entry.type === 'applied' || entry.type === 'unapplied') && entry.payment_id !== null)
            .map((entry) => entry.applied_amount),
        );
        const refunded = sum(
          entries.filter((entry) => entry.type === 'credit_note_refunded').map((entry) => entry.amount),
        );
        assert.equal(cash.totals.gross_amount, applied - refunded);
        const cashTax = (await call('GET', `/v1/reports/tax-summary?${all}`)).body.data;
        assert.equal(cashTax.totals.tax_amount, cash.totals.tax_amount);

        // The kept copies (open items, cash day totals) against the entries, at the latest sequence and at an
        // earlier one: each invoice's open amount, each client's balance and statement, cash revenue.
        const latest = entries.length;
        for (const through of [latest, Math.floor((latest * pick) / 100)]) {
          const upTo = entries.filter((entry) => entry.sequence <= through);
          const at = `ledger_sequence=${through}`;
          const openOf = new Map<string, number>();
          for (const entry of upTo) {
            if (entry.effective_date > asOf || entry.invoice_id === null) continue;
            const change = DOCUMENT_TYPES.slice(0, 4).includes(entry.type)
              ? entry.amount
              : entry.type === 'applied' || entry.type === 'unapplied'
                ? -entry.applied_amount
                : 0;
            openOf.set(entry.invoice_id, (openOf.get(entry.invoice_id) ?? 0) + change);
          }
          const expected = [...openOf].filter(([, open]) => open !== 0).sort(([a], [b]) => (a < b ? -1 : 1));
          const byInvoice = (await call('GET', `/v1/reports/aged-receivables?as_of=${asOf}&group_by=invoice&${at}`))
            .body.data;
          assert.equal(byInvoice.ledger_sequence, through);
          assert.deepEqual(
            byInvoice.rows
              .map((row: { invoice_id: string; open_amount: number }) => [row.invoice_id, row.open_amount])
              .sort(([a]: [string], [b]: [string]) => (a < b ? -1 : 1)),
            expected,
          );
          const agingThen = (await call('GET', `/v1/reports/aged-receivables?as_of=${asOf}&${at}`)).body.data;
          assert.equal(
            agingThen.totals.balance_amount,
            sum(upTo.filter((entry) => entry.effective_date <= asOf).map((entry) => entry.amount)),
          );
          for (const clientId of clients) {
            const mine = upTo.filter((entry) => entry.client_id === clientId);
            const row = agingThen.rows.find((found: { client_id: string }) => found.client_id === clientId);
            const balance = sum(mine.filter((entry) => entry.effective_date <= asOf).map((entry) => entry.amount));
            assert.equal(row?.balance_amount ?? 0, balance);
            const statement = (
              await call('GET', `/v1/reports/client-statement?client_id=${clientId}&from=${from}&to=${to}&${at}`)
            ).body.data;
            assert.equal(
              statement.totals.opening_balance_amount,
              sum(mine.filter((entry) => entry.effective_date < from).map((entry) => entry.amount)),
            );
            assert.equal(
              statement.totals.closing_balance_amount,
              sum(mine.filter((entry) => entry.effective_date <= to).map((entry) => entry.amount)),
            );
            const lines = mine
              .filter((entry) => entry.effective_date >= from && entry.effective_date <= to && entry.amount !== 0)
              .sort(
                (a, b) =>
                  (a.effective_date < b.effective_date ? -1 : a.effective_date > b.effective_date ? 1 : 0) ||
                  a.sequence - b.sequence,
              );
            assert.deepEqual(
              statement.rows.map((line: { sequence: number }) => line.sequence),
              lines.map((entry) => entry.sequence),
            );
          }
          const cashThen = (await call('GET', `/v1/reports/revenue?${all}&${at}`)).body.data;
          const appliedThen = sum(
            upTo
              .filter((entry) => (entry.type === 'applied' || entry.type === 'unapplied') && entry.payment_id !== null)
              .map((entry) => entry.applied_amount),
          );
          const refundedThen = sum(
            upTo.filter((entry) => entry.type === 'credit_note_refunded').map((entry) => entry.amount),
          );
          assert.equal(cashThen.totals.gross_amount, appliedThen - refundedThen);
          const received = sum(
            upTo
              .filter((entry) => entry.type === 'payment_received' || entry.type === 'payment_refunded')
              .map((entry) => -entry.amount),
          );
          assert.equal(cashThen.totals.unapplied_received_amount, received - appliedThen);
        }
      },
    ),
    { numRuns: 10 },
  );
});
