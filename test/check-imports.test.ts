// `npm run check:imports` (scripts/check-imports.mjs) refuses the imports docs/architecture.md forbids: each
// case copies src/ whole, plants one bad file (or line) in the copy, and runs the check over the copy with
// --src; the check must exit non-zero and name the planted file and what it imported. The copy unchanged passes.
// The check reads source files only, whichever engine: it runs in the SQLite pass and is skipped in PostgreSQL's.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { temporaryDirectory } from './helpers/context.js';
import { onPostgres } from './helpers/database.js';
import { ROOT } from './helpers/processes.js';

const directories: string[] = [];

after(() => {
  for (const directory of directories) fs.rmSync(directory, { recursive: true, force: true });
});

/** A copy of src/ with `planted` (path under src/ → file text) written into it. */
function sourceWith(planted: Record<string, string>): string {
  const directory = temporaryDirectory('bms-check-imports-');
  directories.push(directory);
  const source = path.join(directory, 'src');
  fs.cpSync(path.join(ROOT, 'src'), source, { recursive: true });
  for (const [file, text] of Object.entries(planted)) {
    fs.mkdirSync(path.dirname(path.join(source, file)), { recursive: true });
    fs.writeFileSync(path.join(source, file), text);
  }
  return source;
}

function checkImports(source: string) {
  const result = spawnSync(process.execPath, ['scripts/check-imports.mjs', '--src', source], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

function assertRefused(planted: Record<string, string>, ...named: string[]) {
  const { status, output } = checkImports(sourceWith(planted));
  assert.notEqual(status, 0, output);
  const line = output.split('\n').find((text) => named.every((name) => text.includes(name)));
  assert.ok(line, `no problem names ${named.join(' and ')}:\n${output}`);
  return line;
}

describe('check:imports', { skip: onPostgres && 'reads source files only: run in the SQLite pass' }, () => {
  test('a copy of src/ as it is passes the check', () => {
    const { status, output } = checkImports(sourceWith({}));
    assert.equal(status, 0, output);
    assert.match(output, /no cycle/);
  });

  test('a module that imports the SQLite wing of db/ is refused, naming the file and the wing', () => {
    const line = assertRefused(
      { 'modules/clients/planted.ts': "export { openSqlite } from '../../db/sqlite/sqlite.js';\n" },
      'modules/clients/planted.ts',
      'db/sqlite/sqlite.ts',
    );
    assert.match(line, /only db\/index\.ts/);
  });

  test('a module that imports the PostgreSQL wing of db/ is refused', () => {
    assertRefused(
      { 'modules/events/planted.ts': "import type { openPostgres } from '../../db/postgres/postgres.js';\n" },
      'modules/events/planted.ts',
      'db/postgres/postgres.ts',
    );
  });

  test('a module that imports a file of db/ other than its face and row types is refused', () => {
    assertRefused(
      { 'modules/jobs/planted.ts': "export { applyPage } from '../../db/keyset.js';\n" },
      'modules/jobs/planted.ts',
      'db/keyset.ts',
    );
  });

  test('http/, the workers, the bms command and app.ts reach db/ through its face alone', () => {
    assertRefused(
      { 'http/planted.ts': "export { readDataVersion } from '../db/sqlite/sqlite-statements.js';\n" },
      'http/planted.ts',
    );
    assertRefused(
      { 'workers/planted.ts': "export { openSqlite } from '../db/sqlite/sqlite.js';\n" },
      'workers/planted.ts',
    );
    assertRefused(
      { 'cli/planted.ts': "export { backupSqlite } from '../db/sqlite/sqlite-backup.js';\n" },
      'cli/planted.ts',
    );
    const app = fs.readFileSync(path.join(ROOT, 'src/app.ts'), 'utf8');
    assertRefused({ 'app.ts': `import './db/migrate.js';\n${app}` }, 'app.ts', 'db/migrate.ts');
  });

  test('the face and the row types may be imported by a module', () => {
    const planted = sourceWith({
      'modules/clients/planted.ts':
        "import type { Executor } from '../../db/index.js';\nimport type { ClientRow } from '../../db/types.js';\nexport type Planted = [Executor, ClientRow];\n",
    });
    const { status, output } = checkImports(planted);
    assert.equal(status, 0, output);
  });

  test('one wing of db/ that imports the other is refused, and so is a migration that imports a wing', () => {
    assertRefused(
      { 'db/sqlite/planted.ts': "export { openPostgres } from '../postgres/postgres.js';\n" },
      'db/sqlite/planted.ts',
      'db/postgres/postgres.ts',
    );
    assertRefused(
      { 'db/migrations/99990101000000_planted.ts': "export { openSqlite } from '../sqlite/sqlite.js';\n" },
      'db/migrations/99990101000000_planted.ts',
      'db/sqlite/sqlite.ts',
    );
  });

  test('a module that imports a module above it, or a private file of another module, is refused', () => {
    assertRefused(
      { 'modules/clients/planted.ts': "export { getJob } from '../jobs/index.js';\n" },
      'modules/clients/planted.ts',
      "stands below 'jobs'",
    );
    assertRefused(
      { 'modules/jobs/planted.ts': "export { insertClient } from '../clients/clients.repository.js';\n" },
      'modules/jobs/planted.ts',
      'only modules/clients/index.ts',
    );
  });
});
