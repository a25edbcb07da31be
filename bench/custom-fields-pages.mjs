// What a create's custom field value rows cost SQLite in pages and CPU: on a copy of the custom fields benchmark's
// seeded database (`node bench/custom-fields-pages.mjs FILE [creates] [variants]`), the value rows of `creates` new
// clients (the benchmark's ten values each: eleven rows), each client's rows one transaction as a create writes
// them (synchronous FULL: one sync a commit), the write-ahead log checkpointed by hand every 50 creates (or batch)
// and measured before: its growth is the pages the commits wrote, by the value table and its indexes alone. CPU is the process's
// (user and system) a create, the checkpoints included. `variants` (comma-separated, all by default): `schema` (as
// it is, then each index of the table dropped in turn, then the table alone), `rows` (eleven one-row INSERTs
// instead of one), `rowid` (the table WITHOUT ROWID, keyed by (account, object, field, ordinal), against the same
// rowid schema rebuilt the same way: a rebuilt index is packed full, so only the pair compares), `batch` (20, 100,
// 500 creates' rows a transaction: what a merge in batches would write).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { v7 as uuidv7 } from 'uuid';

const [file, count = '300', only = 'schema,rows,rowid,batch'] = process.argv.slice(2);
if (!file) throw new Error('usage: node bench/custom-fields-pages.mjs SEEDED.sqlite [creates] [variants]');
const CREATES = Number(count);
const REGIONS = ['north', 'south', 'east', 'west', 'centre'];
const TIERS = ['gold', 'silver', 'bronze'];
const SERVICES = ['lawn', 'snow', 'pool', 'gutter'];
const START = Date.parse('2020-01-01T00:00:00.000Z');
const COLUMNS = ['text_value', 'number_value', 'amount_value'];
const date = (index) => new Date(START + (index % 2000) * 86_400_000).toISOString().slice(0, 10);

/** The benchmark's values of client `index`, as value rows: [key, column, value]. */
function rowsOf(index) {
  const services = index % 2 === 0 ? [SERVICES[index % 4]] : [SERVICES[index % 4], SERVICES[(index + 1) % 4]];
  return [
    ['region', 'text_value', REGIONS[index % 5]],
    ['gate_code', 'text_value', String(1000 + (index % 9000))],
    ['visits', 'number_value', index % 50],
    ['rating', 'number_value', (index % 100) / 10],
    ['budget', 'amount_value', (index % 1000) * 100],
    ['since', 'text_value', date(index)],
    ['renewal', 'text_value', date(index + 365)],
    ['vip', 'text_value', String(index % 10 === 0)],
    ['tier', 'text_value', TIERS[index % 3]],
    ...services.map((one) => ['services', 'text_value', one]),
  ];
}

const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'bms-pages-'));
/**
 * `prepare` changes the copy's schema; `ordinal` writes the WITHOUT ROWID table's key column (a multi_select's
 * option's place, else 0); `oneRow` writes eleven one-row INSERTs; `batch` creates share a transaction.
 */
function measure(label, prepare, { ordinal = false, oneRow = false, batch = 1 } = {}) {
  const copy = path.join(directory, 'copy.sqlite');
  fs.copyFileSync(file, copy);
  let db = new Database(copy);
  db.pragma('journal_mode = WAL');
  prepare(db);
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
  db = new Database(copy);
  db.pragma('synchronous = FULL');
  db.pragma('wal_autocheckpoint = 0');
  const pageSize = db.pragma('page_size', { simple: true });
  const [{ account_id: account }] = db.prepare('select account_id from custom_fields limit 1').all();
  const fields = new Map(
    db
      .prepare('select key, id from custom_fields')
      .all()
      .map((row) => [row.key, row.id]),
  );
  const columns = ['account_id', 'field_id', 'object_id', ...COLUMNS, ...(ordinal ? ['ordinal'] : [])];
  const tuple = `(${columns.map(() => '?').join(', ')})`;
  const inserts = new Map();
  const insert = (rows) => {
    if (!inserts.has(rows))
      inserts.set(
        rows,
        db.prepare(
          `insert into custom_field_values (${columns.join(', ')}) values ${Array(rows).fill(tuple).join(', ')}`,
        ),
      );
    return inserts.get(rows);
  };
  const wal = `${copy}-wal`;
  // Checkpointed after every 50 creates, or every batch; `creates` rounded up to a whole number of those.
  const every = batch === 1 ? 50 : batch;
  const creates = Math.ceil(CREATES / every) * every;
  let frames = 0;
  const cpu = process.cpuUsage();
  for (let index = 0; index < creates; index += 1) {
    const object = uuidv7();
    const rows = rowsOf(1_000_000 + index).map(([key, column, value], place) => [
      account,
      fields.get(key),
      object,
      ...COLUMNS.map((one) => (one === column ? value : null)),
      ...(ordinal ? [key === 'services' ? place : 0] : []),
    ]);
    const write = () => {
      if (oneRow) for (const row of rows) insert(1).run(row);
      else insert(rows.length).run(rows.flat());
    };
    if (batch === 1) db.transaction(write)();
    else {
      if (index % batch === 0) db.exec('begin');
      write();
      if ((index + 1) % batch === 0) db.exec('commit');
    }
    if ((index + 1) % every === 0) {
      frames += (fs.statSync(wal).size - 32) / (pageSize + 24);
      db.pragma('wal_checkpoint(TRUNCATE)');
    }
  }
  const used = process.cpuUsage(cpu);
  db.close();
  for (const suffix of ['', '-wal', '-shm']) fs.rmSync(`${copy}${suffix}`, { force: true });
  const micros = (value) => Math.round(value / creates);
  console.log(
    `${label}: ${(frames / creates).toFixed(1)} pages a create, CPU ${micros(used.user)} user + ${micros(used.system)} system µs`,
  );
}

const source = new Database(file, { readonly: true });
const indexes = source
  .prepare("select name, sql from sqlite_master where type = 'index' and tbl_name = 'custom_field_values'")
  .all();
source.close();

/** The value table made again (`definition`, then `options`), its rows copied in object order, `keep`'s indexes made. */
const rebuild = (definition, options, keep, select) => (db) => {
  db.exec(`create table rebuilt (${definition}) ${options}`);
  db.exec(`insert into rebuilt select ${select} from custom_field_values order by account_id, object_id, field_id`);
  db.exec('drop table custom_field_values');
  db.exec('alter table rebuilt rename to custom_field_values');
  for (const index of indexes) if (keep(index)) db.exec(index.sql);
};
const table =
  'account_id text not null, field_id text not null, object_id text not null, text_value text, number_value double precision, amount_value bigint';
const variants = {
  schema: () => {
    measure(`as it is (${indexes.map((index) => index.name).join(', ')})`, () => {});
    for (const index of indexes) measure(`without ${index.name}`, (db) => db.exec(`drop index ${index.name}`));
    measure('the table alone', (db) => {
      for (const index of indexes) db.exec(`drop index ${index.name}`);
    });
  },
  rows: () => measure('eleven one-row INSERTs', () => {}, { oneRow: true }),
  rowid: () => {
    measure(
      'rebuilt as it is',
      rebuild(table, '', () => true, `account_id, field_id, object_id, ${COLUMNS.join(', ')}`),
    );
    measure(
      'rebuilt WITHOUT ROWID, no object index',
      rebuild(
        `${table}, ordinal integer not null, primary key (account_id, object_id, field_id, ordinal)`,
        'without rowid',
        (index) => !index.name.endsWith('_object_idx'),
        `account_id, field_id, object_id, ${COLUMNS.join(', ')}, row_number() over (partition by object_id, field_id) - 1`,
      ),
      { ordinal: true },
    );
  },
  batch: () => {
    for (const batch of [20, 100, 500]) measure(`${batch} creates a transaction`, () => {}, { batch });
  },
};
for (const name of only.split(',')) variants[name]();
fs.rmSync(directory, { recursive: true, force: true });
