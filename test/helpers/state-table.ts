// The state-table suite shared by the resource test files. Each file writes its resource's table from
// the contract literally and hands it here: every allowed and every forbidden PUT of a status, which
// statuses allow field edits, and which allow delete. Nothing here is imported from src, so a wrong rule
// in src fails these tests.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestContext, type TestContext } from './context.js';

/** A resource suite's world: a test app, an all-scopes key, and one client with an e-mail address. */
export interface ClientSuite {
  context: TestContext;
  accountId: string;
  key: string;
  clientId: string;
}

/** Builds the suite's world before the file's tests and closes it after; read its fields inside tests. */
export function clientSuite(name: string, env?: Record<string, string>): ClientSuite {
  const suite = {} as ClientSuite;
  before(async () => {
    suite.context = await createTestContext(env ? { env } : {});
    ({ accountId: suite.accountId, key: suite.key } = await suite.context.account());
    const client = await suite.context.request('POST', '/v1/clients', {
      key: suite.key,
      body: { name, email: 'client@example.com' },
    });
    suite.clientId = client.body.data.id;
  });
  after(() => suite.context.close());
  return suite;
}

export interface StateTable {
  path: string;
  /** The table that holds the rows, to force an object into a status directly. */
  table: 'service_requests' | 'quotes' | 'jobs' | 'invoices';
  /** For each status, the statuses PUT may move to (from the contract, written out in the test). */
  transitions: Record<string, readonly string[]>;
  /** Statuses in which fields other than status may change. */
  editable: readonly string[];
  /** Statuses in which delete succeeds; undefined when the resource has no delete. */
  deletable?: readonly string[];
  body(clientId: string): Record<string, unknown>;
  /** One field edit, tried in every status. */
  edit: Record<string, unknown>;
  /**
   * The PUT bodies that bring a new object into a status through the API, where forcing the row would break
   * what the API keeps (an invoice's ledger entries); statuses not named here are forced in the table.
   */
  reach?: Record<string, ReadonlyArray<Record<string, unknown>>>;
}

export function describeStateTable(machine: StateTable, suite: ClientSuite): void {
  const statuses = Object.keys(machine.transitions);

  /** A new object forced into `status` directly in the database: the state under test, however reached. */
  async function objectIn(status: string): Promise<string> {
    const { key, clientId } = suite;
    const created = await suite.context.request('POST', machine.path, { key, body: machine.body(clientId) });
    assert.equal(created.status, 201, created.text);
    const steps = machine.reach?.[status];
    if (steps) {
      for (const body of steps) {
        const moved = await suite.context.request('PUT', `${machine.path}/${created.body.data.id}`, { key, body });
        assert.equal(moved.status, 200, moved.text);
      }
      return created.body.data.id;
    }
    await suite.context.database.db
      .updateTable(machine.table)
      .set({ status })
      .where('id', '=', created.body.data.id)
      .execute();
    return created.body.data.id;
  }

  describe(`${machine.path} state table`, () => {
    for (const from of statuses) {
      for (const to of statuses) {
        const allowed = from === to || machine.transitions[from]!.includes(to);
        test(`${from} -> ${to}: ${allowed ? 'allowed' : '409 INVALID_STATE'}`, async () => {
          const { key } = suite;
          const id = await objectIn(from);
          const response = await suite.context.request('PUT', `${machine.path}/${id}`, { key, body: { status: to } });
          const stored = await suite.context.request('GET', `${machine.path}/${id}`, { key });
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

      const editable = machine.editable.includes(from);
      test(`fields in ${from}: ${editable ? 'editable' : '409 INVALID_STATE'}`, async () => {
        const { key } = suite;
        const id = await objectIn(from);
        const response = await suite.context.request('PUT', `${machine.path}/${id}`, { key, body: machine.edit });
        assert.equal(response.status, editable ? 200 : 409, response.text);
        const stored = (await suite.context.request('GET', `${machine.path}/${id}`, { key })).body.data;
        const [field, value] = Object.entries(machine.edit)[0]!;
        assert.equal(stored[field] === value, editable);
      });

      if (machine.deletable) {
        const deletable = machine.deletable.includes(from);
        test(`delete in ${from}: ${deletable ? 'allowed' : '409 INVALID_STATE'}`, async () => {
          const { key } = suite;
          const id = await objectIn(from);
          const response = await suite.context.request('DELETE', `${machine.path}/${id}`, { key });
          assert.equal(response.status, deletable ? 200 : 409, response.text);
          if (!deletable) assert.equal(response.body.error.code, 'INVALID_STATE');
          assert.equal(
            (await suite.context.request('GET', `${machine.path}/${id}`, { key })).status,
            deletable ? 404 : 200,
          );
        });
      }
    }

    test('status is never accepted on create', async () => {
      const { key, clientId } = suite;
      const response = await suite.context.request('POST', machine.path, {
        key,
        body: { ...machine.body(clientId), status: statuses[1] },
      });
      assert.equal(response.status, 422);
      assert.equal(response.body.error.details[0].field, 'status');
    });

    test('an unknown status is a 422, not a 409', async () => {
      const { key } = suite;
      const id = await objectIn(statuses[0]!);
      const response = await suite.context.request('PUT', `${machine.path}/${id}`, {
        key,
        body: { status: 'exploded' },
      });
      assert.equal(response.status, 422);
    });
  });
}
