// The ledger-entry costs migration on a database whose invoices were issued, restated and voided before it, on both
// engines: the invoices' document entries get the change of their cost and of their product lines without a cost
// (issued and restated +, reversed and voided −, others none), so the job profitability report answers as if the
// entries had carried them when posted.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Migrator, sql } from 'kysely';
import { ManualClock } from '../src/core/deps.js';
import { MIGRATIONS } from '../src/db/migrate.js';
import { createTestContext } from './helpers/context.js';

const NAME = '20261129160000_ledger_entry_costs';

test('entries posted before the migration get their invoices’ costs: issued, restated and voided', async () => {
  const context = await createTestContext({ clock: new ManualClock(new Date('2026-11-21T10:00:00.000Z')) });
  try {
    const { key, accountId } = await context.account();
    const call = async (method: string, path: string, body?: unknown, status = 200) => {
      const response = await context.request(method, path, { key, body });
      assert.equal(response.status, status, `${method} ${path}: ${response.text}`);
      return response.body.data;
    };
    const client = (await call('POST', '/v1/clients', { name: 'Ada' }, 201)).id;
    const valve = (
      await call('POST', '/v1/products', { type: 'material', name: 'Valve', unit_amount: 9000, cost_amount: 5200 }, 201)
    ).id;
    const pipe = (await call('POST', '/v1/products', { type: 'material', name: 'Pipe', unit_amount: 3000 }, 201)).id;
    const job = (await call('POST', '/v1/jobs', { client_id: client, title: 'Boiler', line_items: [] }, 201)).id;
    const invoice = async (issueDate: string) => {
      const created = await call(
        'POST',
        '/v1/invoices',
        {
          job_id: job,
          issue_date: issueDate,
          line_items: [{ product_id: valve, quantity: 2 }, { product_id: pipe }],
        },
        201,
      );
      await call('PUT', `/v1/invoices/${created.id}`, { status: 'sent' });
      return created.id as string;
    };
    // Each invoice: valves 2 × 9,000 (cost 10,400) and a pipe without a cost: net 21,000.
    const kept = await invoice('2026-11-02');
    const restated = await invoice('2026-10-20');
    await call('PUT', `/v1/invoices/${restated}`, { issue_date: '2026-11-03' });
    const voided = await invoice('2026-11-04');
    await call('PUT', `/v1/invoices/${voided}`, { status: 'void' });
    const path = '/v1/reports/job-profitability?from=2026-11-01&to=2026-11-30';
    const posted = await call('GET', path);
    // Two invoices count: revenue 42,000, cost 20,800, margin 21,200, 5,048 basis points (5,047.6…), 2 lines.
    assert.deepEqual(posted.totals, {
      revenue_amount: 42000,
      cost_amount: 20800,
      margin_amount: 21200,
      margin_basis_points: 5048,
      lines_without_cost: 2,
    });

    // As the version before stored them: no column for the lines, no cost on the entries.
    const migrator = new Migrator({ db: context.database.db, provider: { getMigrations: async () => MIGRATIONS } });
    const names = Object.keys(MIGRATIONS);
    const down = await migrator.migrateTo(names[names.indexOf(NAME) - 1]!);
    assert.equal(down.error, undefined);
    await sql`update ledger_entries set cost_amount = null`.execute(context.database.db);
    const up = await migrator.migrateToLatest();
    assert.equal(up.error, undefined);
    assert.ok((up.results ?? []).some((result) => result.migrationName === NAME));

    const entries = await context.database.db
      .selectFrom('ledger_entries')
      .select(['invoice_id', 'type', 'cost_amount', 'lines_without_cost'])
      .where('account_id', '=', accountId)
      .where('invoice_id', 'is not', null)
      .orderBy('sequence')
      .execute();
    const of = (id: string) =>
      entries
        .filter((entry) => entry.invoice_id === id)
        .map((entry) => [
          entry.type,
          entry.cost_amount === null ? null : Number(entry.cost_amount),
          entry.lines_without_cost === null ? null : Number(entry.lines_without_cost),
        ]);
    assert.deepEqual(of(kept), [['invoice_issued', 10400, 1]]);
    assert.deepEqual(of(restated), [
      ['invoice_issued', 10400, 1],
      ['invoice_adjusted', -10400, -1],
      ['invoice_adjusted', 10400, 1],
    ]);
    assert.deepEqual(of(voided), [
      ['invoice_issued', 10400, 1],
      ['invoice_voided', -10400, -1],
    ]);
    const migrated = await call('GET', path);
    assert.deepEqual({ ...migrated, computed_at: null }, { ...posted, computed_at: null });
  } finally {
    await context.close();
  }
});
