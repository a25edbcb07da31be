#!/usr/bin/env node
// Checks that the layers of src/ point one way and that no file imports itself in a circle.
// Layers, lowest first; a file may import its own layer or a lower one, never a higher one:
//   0 core         src/core/**, src/config.ts             errors, clock and ids, config
//   1 storage      src/db/**, src/mail/**                  queries, engines, e-mail rendering and delivery
//   2 modules      src/modules/**  (but *.routes.ts)       schemas, services, repositories: the rules
//   3 http         src/http/**, src/modules/**/*.routes.ts  the HTTP surface
//   4 composition  src/app.ts, src/main.ts, src/cli/**      wiring and entry points
// Type-only imports count: a type from a higher layer is still a dependency on it.
// Usage: node scripts/check-imports.mjs [src]   (exits 1 and lists each violation)
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const root = path.resolve(process.argv[2] ?? 'src');
const LAYERS = ['core', 'storage', 'modules', 'http', 'composition'];

export function layerOf(file) {
  const relative = path.relative(root, file).split(path.sep).join('/');
  if (relative.startsWith('core/') || relative === 'config.ts') return 0;
  if (relative.startsWith('db/') || relative.startsWith('mail/')) return 1;
  if (relative.startsWith('modules/')) return relative.endsWith('.routes.ts') ? 3 : 2;
  if (relative.startsWith('http/')) return 3;
  if (relative === 'app.ts' || relative === 'main.ts' || relative.startsWith('cli/')) return 4;
  return undefined;
}

function sourceFiles(directory) {
  return fs.readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** The project files a file imports (relative specifiers only; `.js` in a specifier names the `.ts` source). */
function importsOf(file) {
  const { importedFiles } = ts.preProcessFile(fs.readFileSync(file, 'utf8'), true, true);
  return importedFiles
    .map(({ fileName }) => fileName)
    .filter((specifier) => specifier.startsWith('.'))
    .map((specifier) => path.resolve(path.dirname(file), specifier.replace(/\.js$/, '.ts')));
}

const files = sourceFiles(root);
const graph = new Map(files.map((file) => [file, importsOf(file)]));
const problems = [];
const name = (file) => path.relative(process.cwd(), file);

for (const [file, imports] of graph) {
  const layer = layerOf(file);
  if (layer === undefined) {
    problems.push(`${name(file)}: in no layer (add it to scripts/check-imports.mjs)`);
    continue;
  }
  for (const target of imports) {
    if (!graph.has(target)) {
      problems.push(`${name(file)}: imports ${name(target)}, which does not exist`);
      continue;
    }
    const targetLayer = layerOf(target);
    if (targetLayer !== undefined && targetLayer > layer) {
      problems.push(`${name(file)} (${LAYERS[layer]}) imports ${name(target)} (${LAYERS[targetLayer]}): a lower layer must not import a higher one`);
    }
  }
}

// Cycles: a depth-first walk; a file met again while still on the path closes a circle.
const state = new Map();
const stack = [];
function visit(file) {
  state.set(file, 'open');
  stack.push(file);
  for (const target of graph.get(file) ?? []) {
    if (!graph.has(target)) continue;
    if (state.get(target) === 'open') problems.push(`cycle: ${[...stack.slice(stack.indexOf(target)), target].map(name).join(' -> ')}`);
    else if (!state.has(target)) visit(target);
  }
  stack.pop();
  state.set(file, 'done');
}
for (const file of files) if (!state.has(file)) visit(file);

if (problems.length > 0) {
  console.error(`Import check: ${problems.length} problem(s)\n${problems.map((problem) => `- ${problem}`).join('\n')}`);
  process.exit(1);
}
console.log(`Import check: ${files.length} files, ${[...graph.values()].reduce((sum, list) => sum + list.length, 0)} imports, layers one way, no cycle.`);
