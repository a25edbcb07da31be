// The suites run from JavaScript compiled once per run, not through `tsx` in every test file's process: loading
// the app's TypeScript through tsx's loader costs each file about a second of CPU more than loading the same
// modules compiled. `compileForTests(root)` writes a copy of the repository into a folder of the temporary
// directory (one per checkout) in which `src/`, `test/` and the SDK sources the tests import are compiled with
// esbuild (the one tsx brings, with tsx's options, so the code runs as it did under tsx), each file with an
// inline source map to its `.ts` (stack traces and test locations name the source lines), and every other
// entry is a symbolic link to the checkout's. Only files changed since the last run are compiled again; files
// whose source is gone are removed.
//
// Where a file stands: `src/` runs from the copy, as it runs from dist/ (a worker beside it is its compiled
// sibling; `../../vendor` is the link). The tests and the SDK sources see their own source file as
// `import.meta.url` (and `import.meta.dirname`, `import.meta.filename`), so a path they make from it (a
// fixture, docs/, src/db/ read as text, the repository's root) is the checkout's, as under tsx.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/** What is compiled, relative to the root: these folders' `.ts` files (not `.d.ts`), and these files. */
const COMPILED = ['src', 'test', 'sdks/generate.ts', 'sdks/js/src'];
/** The source files that see their own path as `import.meta.url`: all compiled ones but the app's. */
const SEES_SOURCE = (relative) => !relative.startsWith('src/');

const esbuild = () => {
  const require = createRequire(import.meta.url);
  return createRequire(require.resolve('tsx'))('esbuild');
};

/** The folder the copy of `root` is written to: one per checkout, so two checkouts never share it. */
export const compiledRoot = (root) =>
  path.join(fs.realpathSync(os.tmpdir()), `bms-tests-${createHash('sha256').update(root).digest('hex').slice(0, 12)}`);

const isCompiled = (relative) => COMPILED.some((entry) => relative === entry || relative.startsWith(`${entry}/`));
const holdsCompiled = (relative) => COMPILED.some((entry) => entry.startsWith(`${relative}/`));
const compilesTo = (relative) => relative.replace(/\.ts$/, '.js');
const isSource = (name) => name.endsWith('.ts') && !name.endsWith('.d.ts');

/**
 * Writes (or brings up to date) the compiled copy of `root` and returns it: `out` (its folder), `toCompiled(file)`
 * (a `.ts` file of the checkout to its compiled file) and `toSource(text)` (the compiled files named in a text,
 * as in a test's output, back to their sources: relative paths, or file URLs of the checkout).
 */
export async function compileForTests(root) {
  const out = compiledRoot(root);
  const tsconfig = JSON.parse(fs.readFileSync(path.join(root, 'tsconfig.json'), 'utf8'));
  const { transform, version } = esbuild();
  const options = {
    loader: 'ts',
    format: 'esm',
    target: `node${process.versions.node}`,
    sourcemap: 'inline',
    sourcesContent: false,
    keepNames: true,
    tsconfigRaw: { compilerOptions: tsconfig.compilerOptions },
  };
  // What the outputs were made with: when it changes, everything is compiled again.
  const recipe = createHash('sha256')
    .update(JSON.stringify({ version, options, COMPILED, script: fs.readFileSync(new URL(import.meta.url), 'utf8') }))
    .digest('hex');
  const manifestFile = path.join(out, '.compiled.json');
  let manifest;
  try {
    manifest = JSON.parse(fs.readFileSync(manifestFile, 'utf8'));
  } catch {
    // no copy yet, or an unreadable one
  }
  if (manifest?.recipe !== recipe) {
    fs.rmSync(out, { recursive: true, force: true });
    manifest = { recipe, files: {} };
  }

  const sources = [];
  const links = [];
  const folders = [];
  (function walk(relative) {
    for (const entry of fs.readdirSync(path.join(root, relative), { withFileTypes: true })) {
      const name = relative ? `${relative}/${entry.name}` : entry.name;
      if (name === '.git') continue;
      if (entry.isDirectory() && (isCompiled(name) || holdsCompiled(name))) {
        folders.push(name);
        walk(name);
      } else if (entry.isFile() && isCompiled(name) && isSource(entry.name)) sources.push(name);
      else links.push(name);
    }
  })('');

  for (const folder of folders) fs.mkdirSync(path.join(out, folder), { recursive: true });
  for (const name of links) link(path.join(root, name), path.join(out, name));

  const files = {};
  const changed = [];
  for (const name of sources) {
    const stat = fs.statSync(path.join(root, name));
    files[name] = `${stat.mtimeMs}:${stat.size}`;
    if (manifest.files[name] !== files[name] || !fs.existsSync(path.join(out, compilesTo(name)))) changed.push(name);
  }
  const failures = [];
  await Promise.all(
    changed.map(async (name) => {
      const file = path.join(root, name);
      const url = pathToFileURL(file).href;
      const define = SEES_SOURCE(name)
        ? {
            'import.meta.url': JSON.stringify(url),
            'import.meta.dirname': JSON.stringify(path.dirname(file)),
            'import.meta.filename': JSON.stringify(file),
          }
        : undefined;
      try {
        const { code } = await transform(fs.readFileSync(file, 'utf8'), { ...options, sourcefile: file, define });
        writeAtomically(path.join(out, compilesTo(name)), code);
      } catch (error) {
        delete files[name];
        failures.push(`${name}: ${error.message}`);
      }
    }),
  );
  writeAtomically(manifestFile, JSON.stringify({ recipe, files }));
  if (failures.length) throw new Error(`compiling the tests failed:\n${failures.join('\n')}`);

  // What the checkout no longer has (a file deleted or renamed) leaves the copy too.
  const kept = new Set([...folders, ...links, ...sources.map(compilesTo), '.compiled.json']);
  (function sweep(relative) {
    for (const entry of fs.readdirSync(path.join(out, relative), { withFileTypes: true })) {
      const name = relative ? `${relative}/${entry.name}` : entry.name;
      if (name.endsWith('.tmp')) continue; // another run's file being written
      if (!kept.has(name)) fs.rmSync(path.join(out, name), { recursive: true, force: true });
      else if (entry.isDirectory()) sweep(name);
    }
  })('');

  const sourceNames = new Set(sources);
  const compiledNames = new Set(sources.map(compilesTo));
  const escaped = out.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const named = new RegExp(`(file://)?${escaped}/([^\\s'"\`:()]+?\\.js)\\b`, 'g');
  return {
    out,
    compiled: changed.length,
    total: sources.length,
    toCompiled(file) {
      const name = path.relative(root, path.resolve(file)).split(path.sep).join('/');
      if (!sourceNames.has(name)) throw new Error(`${file} is not a TypeScript file under ${COMPILED.join(', ')}`);
      return path.join(out, compilesTo(name));
    },
    toSource: (text) =>
      text.replace(named, (match, url, name) => {
        if (!compiledNames.has(name)) return match;
        const source = name.replace(/\.js$/, '.ts');
        return url ? pathToFileURL(path.join(root, source)).href : source;
      }),
  };
}

/** A symbolic link at `at` to `target`, unless one is there already. */
function link(target, at) {
  const current = fs.lstatSync(at, { throwIfNoEntry: false });
  if (current?.isSymbolicLink() && fs.readlinkSync(at) === target) return;
  if (current) fs.rmSync(at, { recursive: true, force: true });
  try {
    fs.symlinkSync(target, at);
  } catch (error) {
    // Another run of the same checkout made it meanwhile.
    if (error.code !== 'EEXIST') throw error;
  }
}

/** Writes through a temporary file renamed into place, so a run reading the copy meanwhile sees a whole file. */
function writeAtomically(file, text) {
  const temporary = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, text);
  fs.renameSync(temporary, file);
}
