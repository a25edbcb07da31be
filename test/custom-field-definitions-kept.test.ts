// The custom field definitions' kept copy (modules/custom-fields/definitions.ts; docs/architecture.md, "Kept
// copies"): after random writes of definitions, through the API and by hand in SQL (not through BMS's service,
// as another process would), every read through the copy equals the definitions read from the rows, outside a
// transaction and in one, on both engines. On PostgreSQL the copy is kept by the kind's stamp, renewed by trigger:
// a write by hand that left the stamp alone would fail here.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'kysely';
import { liveCustomFields } from '../src/modules/custom-fields/custom-fields.repository.js';
import { definitionOf, readDefinitions } from '../src/modules/custom-fields/definitions.js';
import { createTestContext, type TestContext } from './helpers/context.js';

let context: TestContext;

before(async () => {
  context = await createTestContext();
});
after(() => context.close());

/** A small seeded generator (mulberry32): the same sequence at every run. */
function random(seed: number) {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let value = Math.imul(state ^ (state >>> 15), 1 | state);
    value = (value + Math.imul(value ^ (value >>> 7), 61 | value)) ^ value;
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

test('after random writes through the API and by hand, the kept definitions equal the rows', async () => {
  const { accountId, key } = await context.account();
  const db = context.database.db;
  const api = async (method: string, url: string, body?: unknown) => {
    const answer = await context.request(method, url, { key, body });
    assert.ok(answer.status < 300, answer.text);
    return answer.body.data;
  };
  const next = random(55);
  const pick = <T>(items: readonly T[]) => items[Math.floor(next() * items.length)]!;
  const fields: Array<{ id: string; resource: 'client' | 'job' }> = [];
  const check = async (step: string) => {
    for (const resource of ['client', 'job'] as const) {
      const rows = (await liveCustomFields(db, accountId, resource)).map(definitionOf);
      assert.deepEqual((await readDefinitions(db, accountId, resource)).fields, rows, `${step}: ${resource}`);
      // Read twice: the second read is the one a stale copy would answer.
      assert.deepEqual((await readDefinitions(db, accountId, resource)).fields, rows, `${step}: ${resource} again`);
      const inTransaction = await db.transaction().execute((tx) => readDefinitions(tx, accountId, resource));
      assert.deepEqual(inTransaction.fields, rows, `${step}: ${resource} in a transaction`);
    }
  };
  await check('none defined');
  for (let step = 0; step < 40; step += 1) {
    const choice = fields.length === 0 ? 0 : Math.floor(next() * 5);
    if (choice === 0) {
      const resource = pick(['client', 'job'] as const);
      const made = await api('POST', '/v1/custom-fields', {
        resource,
        key: `field_${step}`,
        label: `Field ${step}`,
        type: 'text',
      });
      fields.push({ id: made.id, resource });
    } else if (choice === 1) {
      await api('PUT', `/v1/custom-fields/${pick(fields).id}`, { label: `Renamed ${step}`, position: step % 7 });
    } else if (choice === 2) {
      const field = pick(fields);
      await api('DELETE', `/v1/custom-fields/${field.id}`);
      fields.splice(fields.indexOf(field), 1);
    } else if (choice === 3) {
      // By hand: another process's write, which no BMS code saw.
      await sql`update custom_fields set label = ${`By hand ${step}`}, position = ${step % 5}
        where id = ${pick(fields).id}`.execute(db);
    } else {
      const field = pick(fields);
      await sql`delete from custom_fields where id = ${field.id}`.execute(db);
      fields.splice(fields.indexOf(field), 1);
    }
    await check(`step ${step}`);
  }
});
