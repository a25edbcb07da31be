// The `bms` command, run as a user runs it (the package's bin), against a real SQLite file.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, test } from 'node:test';
import { temporaryDirectory } from './helpers/context.js';
import { createTestDatabase, type TestDatabase } from './helpers/database.js';
import { spawnSync } from 'node:child_process';
import { ROOT, runBms, startServer, type ServerProcess } from './helpers/processes.js';

let directory: string;
let database: TestDatabase;
let env: Record<string, string>;
let server: ServerProcess;

before(async () => {
  directory = temporaryDirectory('bms-cli-');
  database = await createTestDatabase(directory);
  env = { DATABASE_URL: database.url, NODE_ENV: 'production', LOG_LEVEL: 'warn' };
  server = await startServer(env);
});
after(async () => {
  server.child.kill('SIGTERM');
  await server.exited;
  await database.drop();
  fs.rmSync(directory, { recursive: true, force: true });
});

function json(result: { status: number | null; stdout: string; stderr: string }) {
  assert.equal(result.status, 0, result.stderr);
  return JSON.parse(result.stdout);
}

test('migrate reports an up-to-date database after the server migrated it', () => {
  assert.deepEqual(json(runBms(['migrate', '--json'], env)), { applied: [] });
  assert.match(runBms(['migrate'], env).stdout, /up to date/);
});

test('accounts and keys: create, use against the running server, list, revoke', async () => {
  const account = json(runBms(['accounts', 'create', '--name', 'Acme Plumbing', '--json'], env));
  assert.match(account.id, /^[0-9a-f-]{36}$/);

  const created = json(
    runBms(
      [
        'keys',
        'create',
        '--account',
        account.id,
        '--name',
        'ci',
        '--scopes',
        'clients:read,clients:write',
        '--per-minute',
        '120',
        '--json',
      ],
      env,
    ),
  );
  assert.deepEqual(Object.keys(created).sort(), ['id', 'key', 'prefix', 'scopes']);
  assert.match(created.key, /^bms_[0-9A-Za-z]{40}$/);
  assert.equal(created.prefix, created.key.slice(0, 12));
  assert.deepEqual(created.scopes, ['clients:read', 'clients:write']);

  const headers = { authorization: `Bearer ${created.key}`, 'content-type': 'application/json' };
  const made = await fetch(`${server.baseUrl}/v1/clients`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ name: 'From the CLI key' }),
  });
  assert.equal(made.status, 201);
  const forbidden = await fetch(`${server.baseUrl}/v1/clients/${(await made.json()).data.id}`, {
    method: 'DELETE',
    headers,
  });
  assert.equal(forbidden.status, 403);

  const listed = json(runBms(['keys', 'list', '--account', account.id, '--json'], env));
  assert.equal(listed.keys.length, 1);
  assert.equal(listed.keys[0].id, created.id);
  assert.equal(listed.keys[0].revoked_at, null);
  assert.ok(listed.keys[0].last_used_at, 'last use is recorded');
  assert.equal(listed.keys[0].rate_limits.per_minute, 120);
  assert.doesNotMatch(JSON.stringify(listed), new RegExp(created.key), 'the secret is never shown again');

  const revoked = json(runBms(['keys', 'revoke', created.id, '--json'], env));
  assert.equal(revoked.id, created.id);
  assert.ok(revoked.revoked_at);
  // The server keeps key lookups for 2 s: the revocation reaches it within that time.
  const revokedAt = Date.now();
  let after = await fetch(`${server.baseUrl}/v1/clients`, { headers });
  while (after.status === 200 && Date.now() - revokedAt < 5000) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    after = await fetch(`${server.baseUrl}/v1/clients`, { headers });
  }
  assert.equal(after.status, 401);
  assert.equal((await after.json()).error.code, 'INVALID_API_KEY');
  assert.ok(Date.now() - revokedAt < 3000, 'within the 2 s the lookups are kept, plus one request');
});

test('keys made by the bms command and through the API are the same keys, seen from both sides', async () => {
  const account = json(runBms(['accounts', 'create', '--name', 'Both Sides', '--json'], env));
  const cliKey = json(
    runBms(['keys', 'create', '--account', account.id, '--name', 'admin', '--scopes', 'all', '--json'], env),
  );
  const headers = { authorization: `Bearer ${cliKey.key}`, 'content-type': 'application/json' };
  const made = await fetch(`${server.baseUrl}/v1/api-keys`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ name: 'made by the API', scopes: ['clients:read'] }),
  });
  assert.equal(made.status, 201);
  const apiKey = (await made.json()).data;
  assert.deepEqual(apiKey.created_by, { type: 'api_key', id: cliKey.id });

  const listed = json(runBms(['keys', 'list', '--account', account.id, '--json'], env));
  assert.deepEqual(listed.keys.map((key: { id: string }) => key.id).sort(), [cliKey.id, apiKey.id].sort());
  assert.deepEqual(listed.keys.find((key: { id: string }) => key.id === cliKey.id).created_by, {
    type: 'cli',
    id: null,
  });
  assert.doesNotMatch(JSON.stringify(listed), new RegExp(apiKey.secret.slice(4)), 'no secret in the list');
  const fromApi = await (await fetch(`${server.baseUrl}/v1/api-keys/${cliKey.id}`, { headers })).json();
  assert.deepEqual(fromApi.data.created_by, { type: 'cli', id: null });

  // The README's way of listing the MCP tools, against this started server.
  const tools = spawnSync(process.execPath, ['scripts/mcp-list-tools.mjs'], {
    cwd: ROOT,
    env: { ...process.env, BMS_URL: server.baseUrl, BMS_API_KEY: apiKey.secret },
    encoding: 'utf8',
    timeout: 30_000,
  });
  assert.equal(tools.status, 0, tools.stderr);
  assert.deepEqual(
    tools.stdout
      .trim()
      .split('\n')
      .map((line) => line.split(/\s+/)[0]),
    ['find_clients', 'get_client', 'find_properties'],
    'a clients:read key sees the tools that read clients and their properties',
  );

  json(runBms(['keys', 'revoke', apiKey.id, '--json'], env));
  const revoked = await (await fetch(`${server.baseUrl}/v1/api-keys/${apiKey.id}`, { headers })).json();
  assert.ok(revoked.data.revoked_at, 'a revocation by the command is seen by the API');
});

test('the server writes its log lines in batches, each at most about 100 ms late, and every one before it exits', async () => {
  const logged = await startServer({ ...env, LOG_LEVEL: 'info' });
  try {
    const lines = () =>
      logged
        .output()
        .split('\n')
        .filter((line) => line.includes('"msg":"request"') && line.includes('"url":"/health?probe=1"'));
    await fetch(`${logged.baseUrl}/health?probe=1`);
    const sent = Date.now();
    while (lines().length === 0 && Date.now() - sent < 2000) await new Promise((resolve) => setTimeout(resolve, 10));
    assert.equal(lines().length, 1, 'a quiet server still writes the line soon');
    assert.ok(Date.now() - sent < 1000, `written after ${Date.now() - sent} ms`);
    for (let index = 0; index < 20; index += 1) await fetch(`${logged.baseUrl}/health?probe=1`);
    logged.child.kill('SIGTERM');
    await logged.exited;
    assert.equal(lines().length, 21, 'nothing buffered is lost on shutdown');
    for (const line of lines()) assert.doesNotThrow(() => JSON.parse(line), 'each line whole');
  } finally {
    logged.child.kill('SIGKILL');
  }
});

test('keys create with all scopes and an expiry', () => {
  const account = json(runBms(['accounts', 'create', '--name', 'B', '--json'], env));
  const created = json(
    runBms(
      [
        'keys',
        'create',
        '--account',
        account.id,
        '--name',
        'all',
        '--scopes',
        'all',
        '--expires-at',
        '2099-01-01T00:00:00Z',
        '--json',
      ],
      env,
    ),
  );
  assert.equal(
    created.scopes.length,
    61,
    'the 16 scopes of the seed, payments:read|write, events:read, webhooks:read|write, account:read|write, team:read|write, api_keys:read|write, visits:read|write|delete, schedules:read|write, catalog:read|write, recurring_invoices:read|write, availability:read|write, credit_notes:read|write|delete|send, reports:read, time_entries:read|write|delete|approve, apps:read|write|install, app_installs:read|write, custom_fields:read|write, tags:read|write, imports:read|write, attachments:read|write|delete',
  );
  const listed = json(runBms(['keys', 'list', '--account', account.id, '--json'], env));
  assert.equal(listed.keys[0].expires_at, '2099-01-01T00:00:00.000Z');
});

test('prose output without --json', () => {
  const result = runBms(['accounts', 'create', '--name', 'Prose Co'], env);
  assert.equal(result.status, 0);
  assert.match(result.stdout, /^Created account [0-9a-f-]{36} \(Prose Co\)\./);
});

test('mistakes get a clear message and a non-zero exit, and change nothing', () => {
  const account = json(runBms(['accounts', 'create', '--name', 'C', '--json'], env));
  const cases: Array<[string[], RegExp]> = [
    [
      ['keys', 'create', '--account', account.id, '--name', 'x', '--scopes', 'clients:read,clients:fly'],
      /Unknown scope\(s\): clients:fly/,
    ],
    [['keys', 'create', '--account', account.id, '--name', 'x'], /--scopes is required/],
    [
      ['keys', 'create', '--account', '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f01', '--name', 'x', '--scopes', 'all'],
      /No account with id/,
    ],
    [
      ['keys', 'create', '--account', account.id, '--name', 'x', '--scopes', 'all', '--per-minute', '0'],
      /--per-minute must be a whole number/,
    ],
    [
      ['keys', 'create', '--account', account.id, '--name', 'x', '--scopes', 'all', '--burst=-5'],
      /--burst must be a whole number/,
    ],
    [
      ['keys', 'create', '--account', account.id, '--name', 'x', '--scopes', 'all', '--expires-at', 'tomorrow'],
      /--expires-at must be an ISO 8601 timestamp/,
    ],
    [['keys', 'revoke', 'nope'], /No key with id nope/],
    [['accounts', 'create'], /--name is required/],
    [['frobnicate'], /Unknown command: frobnicate/],
    [['accounts', 'create', '--name', 'x', '--colour', 'red'], /Unknown option '--colour'/],
  ];
  for (const [args, message] of cases) {
    const result = runBms(args, env);
    assert.notEqual(result.status, 0, args.join(' '));
    assert.match(result.stderr, message, args.join(' '));
  }
  assert.deepEqual(json(runBms(['keys', 'list', '--account', account.id, '--json'], env)).keys, []);
  const jsonError = runBms(['keys', 'revoke', 'nope', '--json'], env);
  assert.deepEqual(JSON.parse(jsonError.stderr), { error: 'No key with id nope' });
});

test('a bad setting stops the command with a message naming it', () => {
  const result = runBms(['migrate'], { ...env, DATABASE_URL: 'mysql://localhost/bms' });
  assert.equal(result.status, 1);
  assert.match(result.stderr, /DATABASE_URL must start with postgres:\/\/, postgresql:\/\/ or sqlite:/);
});
