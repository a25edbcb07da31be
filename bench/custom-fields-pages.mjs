// What a create's custom field value rows cost SQLite in pages: on a copy of the custom fields benchmark's
// seeded database (`node bench/custom-fields-pages.mjs FILE [creates]`), the value rows of `creates` new clients
// (the benchmark's ten values each: eleven rows), each client's rows one transaction as a create writes them,
// with the write-ahead log never checkpointed: the log's growth is the pages each commit wrote, by the value
// table and its indexes alone. Run on the schema as it is, then with each index of the table dropped in turn.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { v7 as uuidv7 } from 'uuid';

const [file, count = '200'] = process.argv.slice(2);
if (!file) throw new Error('usage: node bench/custom-fields-pages.mjs SEEDED.sqlite [creates]');
const CREATES = Number(count);
const REGIONS = ['north', 'south', 'east', 'west', 'centre'];
const TIERS = ['gold', 'silver', 'bronze'];
const SERVICES = ['lawn', 'snow', 'pool', 'gutter'];
const START = Date.parse('2020-01-01T00:00:00.000Z');
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
function measure(label, prepare) {
  const copy = path.join(directory, 'copy.sqlite');
  fs.copyFileSync(file, copy);
  const db = new Database(copy);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('wal_autocheckpoint = 0');
  prepare(db);
  db.pragma('wal_checkpoint(TRUNCATE)');
  const [{ account_id: account }] = db.prepare('select account_id from custom_fields limit 1').all();
  const fields = new Map(
    db
      .prepare('select key, id from custom_fields')
      .all()
      .map((row) => [row.key, row.id]),
  );
  const insert = db.prepare(
    'insert into custom_field_values (account_id, field_id, object_id, text_value, number_value, amount_value) values (?, ?, ?, ?, ?, ?)',
  );
  const wal = `${copy}-wal`;
  const started = performance.now();
  for (let index = 0; index < CREATES; index += 1) {
    const object = uuidv7();
    db.transaction(() => {
      for (const [key, column, value] of rowsOf(1_000_000 + index))
        insert.run(
          account,
          fields.get(key),
          object,
          column === 'text_value' ? value : null,
          column === 'number_value' ? value : null,
          column === 'amount_value' ? value : null,
        );
    })();
  }
  const micros = ((performance.now() - started) * 1000) / CREATES;
  const frames = (fs.statSync(wal).size - 32) / (db.pragma('page_size', { simple: true }) + 24);
  db.close();
  for (const suffix of ['', '-wal', '-shm']) fs.rmSync(`${copy}${suffix}`, { force: true });
  console.log(`${label}: ${(frames / CREATES).toFixed(1)} pages a create, ${micros.toFixed(0)} µs a create`);
}

const source = new Database(file, { readonly: true });
const indexes = source
  .prepare("select name, sql from sqlite_master where type = 'index' and tbl_name = 'custom_field_values'")
  .all();
source.close();
measure(`as it is (${indexes.map((index) => index.name).join(', ')})`, () => {});
for (const index of indexes) measure(`without ${index.name}`, (db) => db.exec(`drop index ${index.name}`));
fs.rmSync(directory, { recursive: true, force: true });
