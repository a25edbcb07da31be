// API keys never appear in clear: not in the database file, not in the log lines, not in error bodies,
// even when they are sent, mistyped, revoked or used to fail. Only their hash and display prefix exist.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { createTestContext } from './helpers/context.js';
import { onPostgres } from './helpers/database.js';
import { clientSuite } from './helpers/state-table.js';

test('keys are not in the database file, the logs or the responses', {
  skip: onPostgres ? 'the file scan is of the SQLite file; the same code stores the same values on PostgreSQL' : false,
}, async () => {
  const context = await createTestContext();
  const { key, accountId } = await context.account();
  const other = await context.key(accountId, ['clients:read']);
  const typo = `${key.slice(0, -1)}${key.endsWith('A') ? 'B' : 'A'}`;
  const responses = [
    await context.request('GET', '/v1/clients', { key }),
    await context.request('POST', '/v1/clients', {
      key,
      body: { name: 'Secret keeper', notes: 'nothing secret here' },
    }),
    await context.request('GET', '/v1/clients', { key: typo }),
    await context.request('DELETE', '/v1/clients/019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f01', { key: other.key }),
    await context.request('GET', '/v1/nothing', { key }),
  ];
  const revoked = await context.key(accountId, ['clients:read']);
  await context.database.db
    .updateTable('api_keys')
    .set({ revoked_at: new Date().toISOString() })
    .where('id', '=', revoked.id)
    .execute();
  responses.push(await context.request('GET', '/v1/clients', { key: revoked.key }));
  assert.deepEqual(
    responses.map((response) => response.status),
    [200, 201, 401, 403, 404, 401],
  );

  await context.app.close();
  await context.database.close();
  const secrets = [key, other.key, revoked.key, typo].map((secret) => secret.slice(4));
  const files = fs
    .readdirSync(context.directory)
    .filter((name) => name.startsWith('bms.sqlite'))
    .map((name) => fs.readFileSync(path.join(context.directory, name)).toString('latin1'));
  assert.ok(
    files.some((content) => content.includes(key.slice(0, 12))),
    'the scan sees stored text: the display prefix is there',
  );
  for (const secret of secrets) {
    for (const content of files) assert.ok(!content.includes(secret), 'not in the database file or its WAL');
    assert.ok(!context.logs.join('').includes(secret), 'not in the logs');
    for (const response of responses) assert.ok(!response.text.includes(secret), 'not in any response');
  }
  assert.ok(context.logs.length >= responses.length, 'the requests were logged');
  fs.rmSync(context.directory, { recursive: true, force: true });
});

describe('secrets in the logs', () => {
  const suite = clientSuite('Secrets');
  /** The text with percent-encoding undone until it no longer changes. */
  function decodedFully(text: string): string {
    let current = text;
    for (;;) {
      const next = current.replace(/%([0-9A-Fa-f]{2})/g, (_match, hex: string) =>
        String.fromCharCode(Number.parseInt(hex, 16)),
      );
      if (next === current) return current;
      current = next;
    }
  }
  const percentEncoded = (text: string) =>
    [...text].map((character) => `%${character.charCodeAt(0).toString(16).padStart(2, '0')}`).join('');

  test('keys and secrets are redacted in every logged URL, percent-encoded or not', async () => {
    const body = suite.key.slice(4);
    const password = 'hunter2-hunter2-hunter2';
    const token = 'T0k3nT0k3nT0k3nT0k3nT0k3nT0k3nT0k3nT0k3nT0k';
    const signing = 'whsecSecretPart0123456789';
    const before = suite.context.logs.length;
    const urls = [
      `/v1/clients?q=bms%5F${body}`,
      `/v1/clients?q=bms%255F${body}`,
      `/v1/clients?q=${percentEncoded(suite.key)}`,
      `/v1/clients?%70assword=${password}`,
      `/v1/clients?limit=5&api%5Fkey=${percentEncoded(body)}`,
      `/v1/clients/bms%5F${body}`,
      `/v1/clients?q=whsec%5F${signing}`,
      `/%68ub/${token}`,
      `/v1/clients?q=plain+text&limit=5`,
    ];
    for (const url of urls) await suite.context.request('GET', url, { key: suite.key });
    const lines = suite.context.logs.slice(before).filter((line) => line.includes('"msg":"request"'));
    assert.equal(lines.length, urls.length, 'every request was logged');
    const logged = lines.join('\n');
    for (const secret of [body, password, token, signing]) {
      assert.ok(!logged.includes(secret), `${secret.slice(0, 6)}… is not in the logs as sent`);
      assert.ok(!decodedFully(logged).includes(secret), `${secret.slice(0, 6)}… is not in the logs, decoded`);
    }
    assert.match(logged, /"url":"\/v1\/clients\?q=plain\+text&limit=5"/, 'what holds no secret is logged as sent');
  });
});
