// The PostgreSQL driver layer (src/db/postgres/postgres.ts) on a real PostgreSQL: statements outside a transaction
// are pipelined on shared connections, so each answer must reach its own statement, a failing one must
// fail alone, and a transaction must still be alone on its connection; at most DATABASE_POOL_MAX
// connections; rows read as on SQLite (timestamps as ISO text with milliseconds, in any session time zone);
// a statement whose rows change shape (a migration) is prepared afresh. SQLite: nothing to check here.
import assert from 'node:assert/strict';
import os from 'node:os';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { type Database, openDatabase } from '../src/db/database.js';
import { isoOfUtcTimestamp, rowBuilder } from '../src/db/postgres/postgres.js';
import { toAppError } from '../src/http/error-handler.js';
import { createTestDatabase, onPostgres, type TestDatabase } from './helpers/database.js';

test('timestamptz text in a UTC session is cut into ISO text; any other form is left to pg', () => {
  const cases: [string, string | undefined][] = [
    ['2026-11-27 01:02:03+00', '2026-11-27T01:02:03.000Z'],
    ['2026-11-27 01:02:03.1+00', '2026-11-27T01:02:03.100Z'],
    ['2026-11-27 01:02:03.12+00', '2026-11-27T01:02:03.120Z'],
    ['2026-11-27 01:02:03.123+00', '2026-11-27T01:02:03.123Z'],
    ['2026-11-27 01:02:03.1239+00', '2026-11-27T01:02:03.123Z'],
    ['2026-11-27 01:02:03.999999+00', '2026-11-27T01:02:03.999Z'],
    ['0050-01-01 00:00:00+00', '0050-01-01T00:00:00.000Z'],
    ['2026-11-27 01:02:03.123-05', undefined],
    ['2026-11-27 01:02:03+05:30', undefined],
    ['2026-11-27 01:02:03.123+00 BC', undefined],
    ['12026-11-27 01:02:03+00', undefined],
    ['infinity', undefined],
    ['-infinity', undefined],
  ];
  for (const [text, iso] of cases) assert.equal(isoOfUtcTimestamp(text), iso, text);
});

test('a row maker writes each column as pg does, calling only the parsers that change a value', () => {
  const identity = (value: string) => value;
  const called: string[] = [];
  const asNumber = (value: string) => {
    called.push(value);
    return Number(value);
  };
  const make = rowBuilder(
    [{ name: 'id' }, { name: 'amount' }, { name: 'note' }, { name: 'total', format: 'text' }],
    [identity, asNumber, identity, asNumber],
    (parser) => parser === identity,
  )!;
  assert.deepEqual(make(['a', '12', null, null]), { id: 'a', amount: 12, note: null, total: null });
  assert.deepEqual(make(['b', '-3', 'x', '9007199254740991']), {
    id: 'b',
    amount: -3,
    note: 'x',
    total: 9007199254740991,
  });
  assert.deepEqual(called, ['12', '-3', '9007199254740991']);
  assert.deepEqual(Object.keys(make(['c', '1', 'y', '2'])), ['id', 'amount', 'note', 'total']);
  // Two columns of one name: the last one's value, as pg's own row has it.
  assert.deepEqual(rowBuilder([{ name: 'x' }, { name: 'x' }], [identity, identity], () => true)!(['1', '2']), {
    x: '2',
  });
  // Shapes left to pg: a binary column, a column named __proto__, no column at all.
  assert.equal(
    rowBuilder([{ name: 'x', format: 'binary' }], [identity], () => true),
    undefined,
  );
  assert.equal(
    rowBuilder([{ name: '__proto__' }], [identity], () => true),
    undefined,
  );
  assert.equal(
    rowBuilder([], [], () => true),
    undefined,
  );
});

describe('PostgreSQL driver', { skip: !onPostgres && 'PostgreSQL only' }, () => {
  let testDatabase: TestDatabase;
  let database: Database;
  const admin = async <Row>(statement: string): Promise<Row[]> => {
    const client = new pg.Client({ connectionString: process.env.BMS_TEST_POSTGRES_URL });
    await client.connect();
    try {
      return (await client.query(statement)).rows as Row[];
    } finally {
      await client.end();
    }
  };
  const sessions = async () => {
    const name = new URL(testDatabase.url).pathname.slice(1);
    const [row] = await admin<{ count: string }>(
      `select count(*) from pg_stat_activity where datname = '${name}' and backend_type = 'client backend'`,
    );
    return Number(row!.count);
  };

  before(async () => {
    testDatabase = await createTestDatabase(os.tmpdir());
    database = openDatabase({ kind: 'postgres', url: testDatabase.url, poolMax: 3 });
    await sql`create table probe (id integer primary key, label text not null, at timestamptz)`.execute(database.db);
  });
  after(async () => {
    await database?.close();
    await testDatabase?.drop();
  });

  test('300 concurrent statements, a third of them failing, each get their own answer', async () => {
    const outcomes = await Promise.all(
      Array.from({ length: 300 }, async (_, index) => {
        try {
          const { rows } = await sql<{ n: number; half: number }>`
            select ${index}::int as n, (${index}::int / (${index}::int % 3)) as half`.execute(database.db);
          return rows;
        } catch (error) {
          return (error as { code?: string }).code;
        }
      }),
    );
    outcomes.forEach((outcome, index) => {
      if (index % 3 === 0) assert.equal(outcome, '22012', `statement ${index}: division by zero, alone`);
      else assert.deepEqual(outcome, [{ n: index, half: Math.trunc(index / (index % 3)) }], `statement ${index}`);
    });
    assert.ok((await sessions()) <= 3, 'at most DATABASE_POOL_MAX connections');
  });

  test('a transaction is alone on its connection while shared statements go on beside it', async () => {
    await sql`delete from probe`.execute(database.db);
    let seenInside: unknown;
    const seenOutside: unknown[] = [];
    const transaction = database.db.transaction().execute(async (trx) => {
      await sql`insert into probe (id, label) values (${1}, ${'uncommitted'})`.execute(trx);
      for (let round = 0; round < 5; round += 1) {
        // Statements outside it, pipelined meanwhile, never see its row; its own statements do.
        const outside = await Promise.all(
          Array.from({ length: 20 }, () => sql`select id from probe where id = ${1}`.execute(database.db)),
        );
        seenOutside.push(...outside.map((result) => result.rows.length));
      }
      seenInside = (await sql<{ label: string }>`select label from probe where id = ${1}`.execute(trx)).rows;
    });
    await transaction;
    assert.deepEqual(seenInside, [{ label: 'uncommitted' }]);
    assert.deepEqual(new Set(seenOutside), new Set([0]));
    assert.deepEqual((await sql`select id, label from probe`.execute(database.db)).rows, [
      { id: 1, label: 'uncommitted' },
    ]);

    // A failing transaction rolls back, and its connection serves the next ones.
    await assert.rejects(
      database.db.transaction().execute(async (trx) => {
        await sql`insert into probe (id, label) values (${2}, ${'rolled back'})`.execute(trx);
        await sql`insert into probe (id, label) values (${1}, ${'duplicate'})`.execute(trx);
      }),
      (error: { code?: string }) => error.code === '23505',
    );
    assert.deepEqual((await sql`select count(*)::int as n from probe`.execute(database.db)).rows, [{ n: 1 }]);
  });

  test('BEGIN goes out with the first statement: a first statement that fails, or none at all, still rolls back', async () => {
    await sql`delete from probe`.execute(database.db);
    const inTransaction = async (trx: typeof database.db) =>
      (await sql<{ open: boolean }>`select now() = statement_timestamp() as open`.execute(trx)).rows[0]!.open;
    // The first statement runs inside the transaction (now() is the BEGIN's instant, not the statement's).
    const outcome = await database.db.transaction().execute(async (trx) => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      return inTransaction(trx);
    });
    assert.equal(outcome, false, 'a statement 5 ms after BEGIN is not at the transaction start instant');
    // The first statement fails: nothing it or BEGIN did stays, and every connection is idle again.
    for (let round = 0; round < 6; round += 1)
      await assert.rejects(
        database.db.transaction().execute(async (trx) => {
          await sql`insert into probe (id, label) values (${10}, ${null})`.execute(trx);
        }),
        (error: { code?: string }) => error.code === '23502',
      );
    // The callback throws before any statement: BEGIN was sent, its ROLLBACK follows.
    for (let round = 0; round < 6; round += 1)
      await assert.rejects(
        database.db.transaction().execute(async () => {
          throw new Error('before any statement');
        }),
        /before any statement/,
      );
    // A first statement that succeeds and a second that fails: both undone.
    await assert.rejects(
      database.db.transaction().execute(async (trx) => {
        await sql`insert into probe (id, label) values (${11}, ${'first'})`.execute(trx);
        await sql`insert into probe (id, label) values (${11}, ${'again'})`.execute(trx);
      }),
      (error: { code?: string }) => error.code === '23505',
    );
    assert.deepEqual((await sql`select count(*)::int as n from probe`.execute(database.db)).rows, [{ n: 0 }]);
    const idle = await admin<{ state: string }>(
      `select state from pg_stat_activity where datname = '${new URL(testDatabase.url).pathname.slice(1)}' and backend_type = 'client backend'`,
    );
    assert.ok(
      idle.every((row) => row.state === 'idle'),
      `no connection left in a transaction: ${JSON.stringify(idle)}`,
    );
    // And the next transactions commit.
    await Promise.all(
      [20, 21, 22, 23].map((id) =>
        database.db.transaction().execute(async (trx) => {
          await sql`insert into probe (id, label) values (${id}, ${'kept'})`.execute(trx);
        }),
      ),
    );
    assert.deepEqual((await sql`select count(*)::int as n from probe`.execute(database.db)).rows, [{ n: 4 }]);
  });

  // Holds this thread (not the database) for a moment once the statements sent now have left: their answers
  // then arrive in one read, as on a loaded machine, and their callers hear of them in the same turn.
  const answersTogether = () => setImmediate(() => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200));

  test('three statements of a transaction sent together, the second failing: its error is thrown, nothing stays', async () => {
    await sql`delete from probe`.execute(database.db);
    await sql`insert into probe (id, label) values (${1}, ${'kept'})`.execute(database.db);
    for (let round = 0; round < 5; round += 1) {
      const failure = await database.db
        .transaction()
        .execute(async (trx) => {
          const together = Promise.all([
            sql`insert into probe (id, label) values (${100 + round}, ${'first'})`.execute(trx),
            // The failing statement's caller has more awaits on its way than the third's: it hears later.
            trx
              .insertInto('probe' as never)
              .values({ id: 1, label: 'taken' } as never)
              .returningAll()
              .executeTakeFirstOrThrow(),
            sql`select label from probe where id = ${1}`.execute(trx),
          ]);
          answersTogether();
          await together;
        })
        .then(
          () => undefined,
          (error: Error) => error,
        );
      // The unique violation, not the third statement's "current transaction is aborted" (25P02, a 500).
      assert.equal((failure as { code?: string } | undefined)?.code, '23505', String(failure));
      assert.equal(toAppError(failure!)?.status, 409);
    }
    assert.deepEqual((await sql`select id, label from probe order by id`.execute(database.db)).rows, [
      { id: 1, label: 'kept' },
    ]);
    // The connections serve the next transactions, statements sent together included.
    const labels = await Promise.all(
      [2, 3, 4, 5].map((id) =>
        database.db.transaction().execute(async (trx) => {
          const [, read] = await Promise.all([
            sql`insert into probe (id, label) values (${id}, ${`t${id}`})`.execute(trx),
            sql<{ label: string }>`select label from probe where id = ${id}`.execute(trx),
          ]);
          return read.rows[0]?.label;
        }),
      ),
    );
    assert.deepEqual(labels, ['t2', 't3', 't4', 't5']);
    assert.deepEqual((await sql`select count(*)::int as n from probe`.execute(database.db)).rows, [{ n: 5 }]);
  });

  test('a caller going on after a statement of its transaction failed sends nothing: no row outside it', async () => {
    await sql`delete from probe`.execute(database.db);
    await sql`insert into probe (id, label) values (${1}, ${'kept'})`.execute(database.db);
    for (let round = 0; round < 5; round += 1)
      await assert.rejects(
        database.db.transaction().execute(async (trx) => {
          const together = Promise.all([
            // Answered before the failure, in the same read: this caller goes on and sends its insert while
            // the transaction's ROLLBACK is on its way. Sent, it would run after the ROLLBACK, on its own.
            (async () => {
              await sql`select 1`.execute(trx);
              await sql`insert into probe (id, label) values (${100 + round}, ${'after the failure'})`.execute(trx);
            })(),
            trx
              .insertInto('probe' as never)
              .values({ id: 1, label: 'taken' } as never)
              .execute(),
          ]);
          answersTogether();
          await together;
        }),
        (error: { code?: string }) => error.code === '23505',
      );
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.deepEqual((await sql`select id, label from probe order by id`.execute(database.db)).rows, [
      { id: 1, label: 'kept' },
    ]);
    const idle = await admin<{ state: string }>(
      `select state from pg_stat_activity where datname = '${new URL(testDatabase.url).pathname.slice(1)}' and backend_type = 'client backend'`,
    );
    assert.ok(
      idle.every((row) => row.state === 'idle'),
      `no connection left in a transaction: ${JSON.stringify(idle)}`,
    );
  });

  test('a COMMIT that PostgreSQL answers with ROLLBACK (a failed statement caught) throws: nothing committed', async () => {
    await sql`delete from probe`.execute(database.db);
    await assert.rejects(
      database.db.transaction().execute(async (trx) => {
        await sql`insert into probe (id, label) values (${40}, ${'lost'})`.execute(trx);
        await sql`insert into probe (id, label) values (${41}, ${null})`.execute(trx).catch(() => {});
      }),
      /rolled back/,
    );
    assert.deepEqual((await sql`select count(*)::int as n from probe`.execute(database.db)).rows, [{ n: 0 }]);
  });

  test('a write outside a transaction waiting on a row lock holds up no read, not even its holder', async () => {
    await sql`delete from probe`.execute(database.db);
    await sql`insert into probe (id, label) values (${1}, ${'first'})`.execute(database.db);
    let write: Promise<unknown> | undefined;
    await database.db.transaction().execute(async (trx) => {
      await sql`update probe set label = ${'locked'} where id = ${1}`.execute(trx);
      write = sql`update probe set label = ${'after'} where id = ${1}`.execute(database.db);
      await new Promise((resolve) => setTimeout(resolve, 50));
      // The write waits for this transaction's lock; reads outside it, sent after it, are answered meanwhile.
      const reads = await Promise.all(
        Array.from({ length: 20 }, () => sql`select label from probe where id = ${1}`.execute(database.db)),
      );
      assert.deepEqual(new Set(reads.map((result) => JSON.stringify(result.rows))), new Set(['[{"label":"first"}]']));
    });
    await write;
    assert.deepEqual((await sql`select label from probe where id = ${1}`.execute(database.db)).rows, [
      { label: 'after' },
    ]);
  });

  test('more transactions than connections wait their turn; statements outside them still run', async () => {
    await sql`delete from probe`.execute(database.db);
    const transactions = Array.from({ length: 12 }, (_, index) =>
      database.db.transaction().execute(async (trx) => {
        await sql`insert into probe (id, label) values (${index}, ${`t${index}`})`.execute(trx);
        await sql`select pg_sleep(0.02)`.execute(trx);
        return index;
      }),
    );
    const shared = Array.from({ length: 50 }, (_, index) =>
      sql<{ n: number }>`select ${index}::int as n`.execute(database.db).then((result) => result.rows[0]!.n),
    );
    const peak = sessions();
    assert.deepEqual(
      await Promise.all(transactions),
      Array.from({ length: 12 }, (_, index) => index),
    );
    assert.deepEqual(
      await Promise.all(shared),
      Array.from({ length: 50 }, (_, index) => index),
    );
    assert.ok((await peak) <= 3, 'at most DATABASE_POOL_MAX connections');
    assert.deepEqual((await sql`select count(*)::int as n from probe`.execute(database.db)).rows, [{ n: 12 }]);
  });

  test('timestamps read as ISO text with milliseconds, in a UTC session and in another time zone', async () => {
    await sql`delete from probe`.execute(database.db);
    const written = [
      '2026-11-27T01:02:03Z',
      '2026-11-27T01:02:03.1Z',
      '2026-11-27T01:02:03.123456Z',
      '2026-11-27T23:59:59.999999Z',
      '2026-06-01T12:00:00.5+02:00',
    ];
    for (const [index, at] of written.entries())
      await sql`insert into probe (id, label, at) values (${index}, ${'t'}, ${at})`.execute(database.db);
    const expected = [
      '2026-11-27T01:02:03.000Z',
      '2026-11-27T01:02:03.100Z',
      '2026-11-27T01:02:03.123Z',
      '2026-11-27T23:59:59.999Z',
      '2026-06-01T10:00:00.500Z',
    ];
    const read = async (db: Database['db']) =>
      (await sql<{ at: string }>`select at from probe where id >= ${0} order by id`.execute(db)).rows.map(
        (row) => row.at,
      );
    assert.deepEqual(await read(database.db), expected);
    const elsewhere = await database.db.transaction().execute(async (trx) => {
      await sql`set local time zone 'America/New_York'`.execute(trx);
      const [{ text }] = (await sql<{ text: string }>`select at::text as text from probe where id = ${1}`.execute(trx))
        .rows as [{ text: string }];
      assert.equal(text, '2026-11-26 20:02:03.1-05', 'the session really is elsewhere');
      return read(trx);
    });
    assert.deepEqual(elsewhere, expected);
  });

  test('a statement whose rows change shape (a column added) is prepared afresh on every connection', async () => {
    await sql`delete from probe`.execute(database.db);
    await sql`insert into probe (id, label) values (${7}, ${'seven'})`.execute(database.db);
    const select = () => sql`select * from probe where id = ${7}`.execute(database.db).then((result) => result.rows);
    // Prepared, and its shape learnt, on several connections at once.
    for (const rows of await Promise.all(Array.from({ length: 30 }, select)))
      assert.deepEqual(rows, [{ id: 7, label: 'seven', at: null }]);
    await sql`alter table probe add column extra text not null default 'x'`.execute(database.db);
    for (const rows of await Promise.all(Array.from({ length: 30 }, select)))
      assert.deepEqual(rows, [{ id: 7, label: 'seven', at: null, extra: 'x' }]);
    await sql`alter table probe drop column extra`.execute(database.db);
  });

  test('a statement run again (its rows made by the row maker) reads every type as its first run did', async () => {
    await sql`create table typed (id text primary key, n integer, big bigint, flag boolean, day date, at timestamptz, doc jsonb, tags text[], note text)`.execute(
      database.db,
    );
    await sql`insert into typed values ('a', 7, 9007199254740991, true, '2026-11-27', '2026-11-27 01:02:03.456+00', '{"b": [1, null], "a": "x"}', '{one,"two words"}', null), ('b', null, null, null, null, null, null, null, 'é ✓')`.execute(
      database.db,
    );
    const read = async () =>
      (await sql<Record<string, unknown>>`select * from typed where id <> ${'z'} order by id`.execute(database.db))
        .rows;
    const first = await read();
    const again = await read();
    const expected = [
      {
        id: 'a',
        n: 7,
        big: 9007199254740991,
        flag: true,
        day: '2026-11-27',
        at: '2026-11-27T01:02:03.456Z',
        doc: '{"a": "x", "b": [1, null]}',
        tags: ['one', 'two words'],
        note: null,
      },
      { id: 'b', n: null, big: null, flag: null, day: null, at: null, doc: null, tags: null, note: 'é ✓' },
    ];
    assert.deepEqual(first, expected);
    assert.deepEqual(again, expected);
    assert.deepEqual(Object.keys(again[0]!), Object.keys(expected[0]!));
  });

  test('every connection runs without JIT and with a 30 s statement timeout, whatever the server defaults to', async () => {
    const settings = sql<{
      jit: string;
      timeout: string;
    }>`select current_setting('jit') as jit, current_setting('statement_timeout') as timeout`;
    // A shared statement and a transaction's (a connection of its own) alike.
    const shared = (await settings.execute(database.db)).rows;
    const inTransaction = await database.db.transaction().execute(async (trx) => (await settings.execute(trx)).rows);
    assert.deepEqual(shared, [{ jit: 'off', timeout: '30s' }]);
    assert.deepEqual(inTransaction, [{ jit: 'off', timeout: '30s' }]);
    // Options the URL gives its connections are kept beside it.
    const url = new URL(testDatabase.url);
    url.searchParams.set('options', '-c work_mem=8MB');
    const other = openDatabase({ kind: 'postgres', url: url.toString(), poolMax: 1 });
    try {
      const { rows } = await sql<{
        jit: string;
        work_mem: string;
      }>`select current_setting('jit') as jit, current_setting('work_mem') as work_mem`.execute(other.db);
      assert.deepEqual(rows, [{ jit: 'off', work_mem: '8MB' }]);
    } finally {
      await other.close();
    }
  });

  test('connections ended by the server are replaced', async () => {
    const name = new URL(testDatabase.url).pathname.slice(1);
    await admin(
      `select pg_terminate_backend(pid) from pg_stat_activity where datname = '${name}' and pid <> pg_backend_pid()`,
    );
    let answered: unknown;
    for (let attempt = 0; attempt < 3 && answered === undefined; attempt += 1) {
      try {
        answered = (await sql<{ n: number }>`select ${5}::int as n`.execute(database.db)).rows;
      } catch {
        // The first statement may meet a connection ended a moment ago.
      }
    }
    assert.deepEqual(answered, [{ n: 5 }]);
    assert.deepEqual(
      await database.db.transaction().execute((trx) => sql`select 1 as one`.execute(trx).then((r) => r.rows)),
      [{ one: 1 }],
    );
  });

  test('closing ends its connections; then statements and transactions are refused', async () => {
    const before = await sessions();
    const other = openDatabase({ kind: 'postgres', url: testDatabase.url, poolMax: 2 });
    await Promise.all([sql`select ${1}::int`.execute(other.db), sql`select ${2}::int`.execute(other.db)]);
    assert.ok((await sessions()) > before);
    await other.close();
    let after = await sessions();
    // A backend leaves pg_stat_activity a moment after its connection closes.
    for (let wait = 0; wait < 40 && after !== before; wait += 1) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      after = await sessions();
    }
    assert.equal(after, before);
    await assert.rejects(sql`select ${1}::int`.execute(other.db), /destroyed/);
    await assert.rejects(
      other.db.transaction().execute(async () => {}),
      /destroyed/,
    );
  });
});
