// The suites run compiled (scripts/compile-tests.mjs): checked on a small checkout of its own. A test file sees
// its source as its own location, the app sees its compiled copy (so its workers are compiled siblings), stack
// traces and the runner's output name the `.ts` files, and the copy follows edits and deletions.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { compileForTests, compiledRoot } from '../scripts/compile-tests.mjs';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'bms-compile-'));
after(() => {
  fs.rmSync(compiledRoot(root), { recursive: true, force: true });
  fs.rmSync(root, { recursive: true, force: true });
});
const write = (file: string, text: string) => {
  fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
  fs.writeFileSync(path.join(root, file), text);
};
write('package.json', '{ "type": "module" }\n');
write('tsconfig.json', JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'NodeNext', strict: true } }));
write('docs/note.md', 'a document\n');
write('src/app.ts', "export const appUrl: string = import.meta.url;\nexport const kind = 'app' as const;\n");
write('src/gone.ts', 'export const gone = true;\n');
write(
  'test/thing.test.ts',
  [
    "import { appUrl } from '../src/app.js';",
    'type Where = { url: string };',
    'export const where: Where = { url: import.meta.url };',
    'export { appUrl };',
    "export const note = new URL('../docs/note.md', import.meta.url);",
    '',
    'export function fails(): never {',
    "  throw new Error('here');",
    '}',
    '',
  ].join('\n'),
);

test('a test sees its source as its location and the app its compiled copy; stack traces name the .ts lines', async () => {
  const copy = await compileForTests(root);
  assert.equal(copy.out, compiledRoot(root));
  assert.deepEqual([copy.compiled, copy.total], [3, 3]);
  const compiledTest = copy.toCompiled(path.join(root, 'test/thing.test.ts'));
  assert.equal(compiledTest, path.join(copy.out, 'test/thing.test.js'));
  const thing = await import(pathToFileURL(compiledTest).href);
  assert.equal(thing.where.url, pathToFileURL(path.join(root, 'test/thing.test.ts')).href);
  assert.equal(thing.appUrl, pathToFileURL(path.join(copy.out, 'src/app.js')).href);
  assert.equal(fs.readFileSync(thing.note, 'utf8'), 'a document\n');
  assert.equal(fs.readFileSync(path.join(copy.out, 'docs/note.md'), 'utf8'), 'a document\n', 'the rest is linked');
  // The runner starts node with --enable-source-maps; tsx turns them on too.
  assert.throws(
    () => thing.fails(),
    (error: Error) => {
      assert.match(error.stack ?? '', /test\/thing\.test\.ts:8:\d+/);
      return true;
    },
  );
  assert.equal(
    copy.toSource(`# Subtest: ${compiledTest}\n    at ${pathToFileURL(path.join(copy.out, 'src/app.js')).href}:2:5`),
    `# Subtest: test/thing.test.ts\n    at ${pathToFileURL(path.join(root, 'src/app.ts')).href}:2:5`,
  );
  assert.throws(() => copy.toCompiled(path.join(root, 'docs/note.md')), /not a TypeScript file/);
});

test('a second run compiles only what changed and drops what the checkout no longer has', async () => {
  fs.rmSync(path.join(root, 'src/gone.ts'));
  write('src/app.ts', "export const appUrl: string = import.meta.url;\nexport const kind = 'edited' as const;\n");
  const later = new Date(Date.now() + 5_000);
  fs.utimesSync(path.join(root, 'src/app.ts'), later, later);
  const copy = await compileForTests(root);
  assert.deepEqual([copy.compiled, copy.total], [1, 2]);
  assert.equal(fs.existsSync(path.join(copy.out, 'src/gone.js')), false);
  assert.match(fs.readFileSync(path.join(copy.out, 'src/app.js'), 'utf8'), /"edited"/);
  assert.equal((await compileForTests(root)).compiled, 0, 'nothing changed since');
});
