#!/usr/bin/env node
// Checks the shape of src/ (docs/architecture.md draws it):
// 1. Layers point one way. Lowest first; a file imports its own layer or a lower one:
//      0 core         src/core/**, src/config.ts              errors, clock and ids, config
//      1 storage      src/db/**, src/mail/**                   queries, engines, e-mail rendering and transport
//      2 kernel       src/kernel/**                            the closed sets http and modules both name
//      3 modules      src/modules/** (but *.routes.ts)         schemas, services, repositories: the rules
//      4 http         src/http/**, src/mcp/**, src/modules/**/*.routes.ts  the HTTP surfaces (REST and MCP)
//      5 composition  src/app.ts, src/main.ts, src/cli/**, src/workers/**   wiring, entry points, workers
// 2. Modules stand in MODULE_ORDER: a module imports only modules below it, and only through their face
//    (`index.ts`). Outside src/modules, only a module's face is imported, and its `*.routes.ts` by app.ts.
// 3. src/http imports no module.
// 4. db/ has a face: from outside db/ (modules, http, mail, kernel, and the composition: app.ts, main.ts, cli/,
//    workers/), only db/index.ts and the row types, db/types.ts, are imported. Inside db/, the engines' wings
//    (db/sqlite/, db/postgres/) import nothing of each other; the migrations (db/migrations/, history written
//    once) may import db/'s engine-neutral files they were written with, never a wing.
// 5. No cycle of files, nor of folders (each module is a folder; so is each other top-level folder), here
//    and in both SDKs (scripts/sdk-import-cycles.mjs).
// Type-only imports count: a type from elsewhere is still a dependency on it.
// Usage: node scripts/check-imports.mjs [--src DIR]   (exits 1 and lists each problem; prints the module order when
// clean). --src checks another copy of src/ (test/check-imports.test.ts plants bad imports in one).
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { cycles, sdkImportProblems } from './sdk-import-cycles.mjs';

const repository = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const sourceOption = process.argv.indexOf('--src');
const root = sourceOption > 0 ? path.resolve(process.argv[sourceOption + 1]) : path.join(repository, 'src');
const LAYERS = ['core', 'storage', 'kernel', 'modules', 'http', 'composition'];

/** Lowest first: each module may import the faces of the modules before it, never after. */
export const MODULE_ORDER = [
  'shared',
  'events',
  'custom-fields',
  'tags',
  'attachments',
  'api-keys',
  'catalog',
  'accounts',
  'clients',
  'properties',
  'team-members',
  'documents',
  'ledger',
  'service-requests',
  'quotes',
  'visits',
  'visit-schedules',
  'jobs',
  'availability',
  'invoices',
  'credit-notes',
  'sent-documents',
  'einvoices',
  'recurring-invoices',
  'time-entries',
  'apps',
  'change-sets',
  'reports',
  'imports',
  'exports',
  'system',
];

const relativeOf = (file) => path.relative(root, file).split(path.sep).join('/');

export function layerOf(file) {
  const relative = relativeOf(file);
  if (relative.startsWith('core/') || relative === 'config.ts') return 0;
  if (relative.startsWith('db/') || relative.startsWith('mail/')) return 1;
  if (relative.startsWith('kernel/')) return 2;
  if (relative.startsWith('modules/')) return relative.endsWith('.routes.ts') ? 4 : 3;
  if (relative.startsWith('http/') || relative.startsWith('mcp/')) return 4;
  if (['app.ts', 'main.ts'].includes(relative) || relative.startsWith('cli/') || relative.startsWith('workers/'))
    return 5;
  return undefined;
}

/** `modules/<name>` for a module's files, else the top-level folder (or file) it is in. */
function folderOf(file) {
  const [first, second] = relativeOf(file).split('/');
  return first === 'modules' ? `modules/${second}` : first;
}

const moduleOf = (file) =>
  folderOf(file).startsWith('modules/') ? folderOf(file).slice('modules/'.length) : undefined;

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

/** What code outside db/ may import of it: the face and the row types. */
const DB_FACE = ['db/index.ts', 'db/types.ts'];
const wingOf = (relative) => /^db\/(sqlite|postgres)\//.exec(relative)?.[1];

/** The db/ rule an import from `file` to `target` breaks, or undefined. */
function dbBreach(file, target) {
  const from = relativeOf(file);
  const to = relativeOf(target);
  if (!to.startsWith('db/')) return undefined;
  if (!from.startsWith('db/'))
    return DB_FACE.includes(to)
      ? undefined
      : `${from} imports ${to}: outside db/, only db/index.ts (its face) and db/types.ts (the row types) may be imported`;
  const [fromWing, toWing] = [wingOf(from), wingOf(to)];
  if (toWing !== undefined && fromWing !== undefined && fromWing !== toWing)
    return `${from} imports ${to}: the ${fromWing} wing of db/ must not import the ${toWing} wing`;
  if (toWing !== undefined && from.startsWith('db/migrations/'))
    return `${from} imports ${to}: a migration imports db/'s engine-neutral files, never a wing`;
  return undefined;
}

/** The rule an import from `file` to `target` breaks, or undefined. */
function breach(file, target) {
  const name = (item) => relativeOf(item);
  const layer = layerOf(file);
  const targetLayer = layerOf(target);
  if (targetLayer !== undefined && targetLayer > layer) {
    return `${name(file)} (${LAYERS[layer]}) imports ${name(target)} (${LAYERS[targetLayer]}): a lower layer must not import a higher one`;
  }
  const storage = dbBreach(file, target);
  if (storage) return storage;
  const from = moduleOf(file);
  const to = moduleOf(target);
  if (to === undefined || from === to) return undefined;
  if (from === undefined && relativeOf(file).startsWith('http/'))
    return `${name(file)} imports ${name(target)}: http/ imports no module`;
  if (!MODULE_ORDER.includes(to)) return `${name(target)}: module '${to}' is not in MODULE_ORDER`;
  const face = path.basename(target) === 'index.ts';
  const routesForApp = relativeOf(file) === 'app.ts' && target.endsWith('.routes.ts');
  if (!face && !routesForApp)
    return `${name(file)} imports ${name(target)}: outside its module, only modules/${to}/index.ts may be imported`;
  if (from !== undefined && MODULE_ORDER.indexOf(to) > MODULE_ORDER.indexOf(from)) {
    return `${name(file)} imports ${name(target)}: module '${from}' stands below '${to}' in MODULE_ORDER`;
  }
  return undefined;
}

export function importProblems() {
  const files = sourceFiles(root);
  const graph = new Map(files.map((file) => [file, importsOf(file)]));
  const problems = [];
  for (const [file, imports] of graph) {
    if (layerOf(file) === undefined) {
      problems.push(`${relativeOf(file)}: in no layer (add it to scripts/check-imports.mjs)`);
      continue;
    }
    if (moduleOf(file) !== undefined && !MODULE_ORDER.includes(moduleOf(file)))
      problems.push(`${relativeOf(file)}: module '${moduleOf(file)}' is not in MODULE_ORDER`);
    for (const target of imports) {
      if (!graph.has(target)) problems.push(`${relativeOf(file)}: imports ${relativeOf(target)}, which does not exist`);
      else {
        const problem = breach(file, target);
        if (problem) problems.push(problem);
      }
    }
  }
  problems.push(...cycles(graph, relativeOf).map((cycle) => `cycle: ${cycle}`));
  const folders = new Map();
  for (const [file, imports] of graph) {
    const targets = folders.get(folderOf(file)) ?? new Set();
    for (const target of imports) if (folderOf(target) !== folderOf(file)) targets.add(folderOf(target));
    folders.set(folderOf(file), targets);
  }
  problems.push(...cycles(folders, (folder) => folder).map((cycle) => `folder cycle: ${cycle}`));
  return { problems, files: files.length, imports: [...graph.values()].reduce((sum, list) => sum + list.length, 0) };
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname)) {
  const { problems, files, imports } = importProblems();
  problems.push(...sdkImportProblems(repository));
  if (problems.length > 0) {
    console.error(
      `Import check: ${problems.length} problem(s)\n${problems.map((problem) => `- ${problem}`).join('\n')}`,
    );
    process.exit(1);
  }
  console.log(
    `Import check: ${files} files, ${imports} imports; layers one way, modules in order through their faces, db/ through its face, no cycle.`,
  );
  console.log(`Module order, lowest first: ${MODULE_ORDER.join(' < ')}`);
}
