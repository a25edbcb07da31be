#!/usr/bin/env node
// Checks that the two SDKs' files import each other one way: no file, and no folder, imports itself in a circle.
//   JavaScript  sdks/js/src/**/*.ts        relative specifiers (`./errors.js` names `./errors.ts`), read with
//                                          ts.preProcessFile: imports, `export … from`, import(), require(), and
//                                          type-only imports (a type is still a dependency).
//   Python      sdks/python/bms_sdk/**/*.py  `from .x import y`, `from . import x`, and absolute imports of the
//                                          package itself, read with Python's own `ast` module (python3, or
//                                          $PYTHON). Every import counts wherever it is written: inside a function
//                                          (a deferred import is how a loop hides) or under `if TYPE_CHECKING:`
//                                          (a type checker still follows it; the loop is only postponed).
// A Python import is an edge to the module it names; `from pkg import name` is an edge to the submodule `name`
// when there is one, else to `pkg/__init__.py`. Python's own loading of a package's __init__ before any of its
// submodules is not an edge (it would make every package that re-exports its submodules a loop).
// Usage: node scripts/sdk-import-cycles.mjs   (exits 1 and lists each problem); scripts/check-imports.mjs can call
// sdkImportProblems(repoRoot), which returns the same lines.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const JS_ROOT = 'sdks/js/src';
const PYTHON_ROOT = 'sdks/python';
const PYTHON_PACKAGE = 'bms_sdk';

function filesUnder(directory, extension) {
  if (!fs.existsSync(directory)) return [];
  return fs
    .readdirSync(directory, { withFileTypes: true })
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((entry) => {
      const full = path.join(directory, entry.name);
      if (entry.isDirectory()) {
        return entry.name === 'node_modules' || entry.name === '__pycache__' ? [] : filesUnder(full, extension);
      }
      return entry.name.endsWith(extension) && !entry.name.endsWith('.d.ts') ? [full] : [];
    });
}

const isFile = (file) => fs.existsSync(file) && fs.statSync(file).isFile();

// --- JavaScript ---------------------------------------------------------------------------------------

/** The .ts file a relative specifier names: `./x.js` → `./x.ts` (NodeNext), else `./x.ts` or `./x/index.ts`. */
function resolveTypeScript(from, specifier) {
  const base = path.resolve(path.dirname(from), specifier);
  const candidates = [
    base.replace(/\.js$/, '.ts'),
    base.replace(/\.mjs$/, '.mts'),
    base,
    `${base}.ts`,
    path.join(base, 'index.ts'),
  ];
  return candidates.find(isFile) ?? base.replace(/\.js$/, '.ts');
}

function javaScriptGraph(repoRoot) {
  const files = filesUnder(path.join(repoRoot, JS_ROOT), '.ts');
  const graph = new Map();
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(fs.readFileSync(file, 'utf8'), true, true);
    const targets = importedFiles
      .map(({ fileName }) => fileName)
      .filter((specifier) => specifier.startsWith('.'))
      .map((specifier) => resolveTypeScript(file, specifier));
    graph.set(file, [...new Set(targets)]);
  }
  return { graph, problems: [] };
}

// --- Python -------------------------------------------------------------------------------------------

// Prints, as JSON, every import statement of every file named on the command line (anywhere in the file).
const PYTHON_READER = `
import ast, json, sys
out = {}
for name in sys.argv[1:]:
    try:
        with open(name, encoding="utf-8") as handle:
            tree = ast.parse(handle.read(), filename=name)
    except SyntaxError as error:
        out[name] = {"error": f"{error.msg} (line {error.lineno})"}
        continue
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            names = [alias.name for alias in node.names]
            found.append({"level": node.level, "module": node.module, "names": names, "line": node.lineno})
        elif isinstance(node, ast.Import):
            for alias in node.names:
                found.append({"level": 0, "module": alias.name, "names": [], "line": node.lineno})
    found.sort(key=lambda entry: entry["line"])
    out[name] = {"imports": found}
print(json.dumps(out))
`;

/** The file a dotted module path under `directory` is: `x.py` or `x/__init__.py`; undefined when neither. */
function pythonModule(directory) {
  if (isFile(`${directory}.py`)) return `${directory}.py`;
  if (isFile(path.join(directory, '__init__.py'))) return path.join(directory, '__init__.py');
  return undefined;
}

function pythonGraph(repoRoot) {
  const root = path.join(repoRoot, PYTHON_ROOT);
  const files = filesUnder(path.join(root, PYTHON_PACKAGE), '.py');
  const graph = new Map(files.map((file) => [file, []]));
  if (files.length === 0) return { graph, problems: [] };
  const python = process.env.PYTHON || 'python3';
  const run = spawnSync(python, ['-c', PYTHON_READER, ...files], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (run.error || run.status !== 0) {
    const why = run.error ? run.error.message : run.stderr.trim().split('\n').at(-1);
    const problem = `${PYTHON_ROOT}/${PYTHON_PACKAGE}: could not read the Python imports with ${python} (${why})`;
    return { graph, problems: [`${problem}; set PYTHON to a Python 3 interpreter`] };
  }
  const read = JSON.parse(run.stdout);
  const problems = [];
  const name = (file) => path.relative(repoRoot, file).split(path.sep).join('/');
  for (const file of files) {
    const result = read[file];
    if (result.error) {
      problems.push(`${name(file)}: not valid Python: ${result.error}`);
      continue;
    }
    const targets = [];
    for (const { level, module, names, line } of result.imports) {
      let base;
      if (level > 0) {
        base = path.dirname(file);
        for (let up = 1; up < level; up += 1) base = path.dirname(base);
      } else if (module === PYTHON_PACKAGE || module?.startsWith(`${PYTHON_PACKAGE}.`)) {
        base = root;
      } else {
        continue; // the standard library or a third party
      }
      const directory = module ? path.join(base, ...module.split('.')) : base;
      const spelled = `${'.'.repeat(level)}${module ?? ''}`;
      if (module) {
        const target = pythonModule(directory);
        if (!target) {
          problems.push(`${name(file)}:${line}: imports ${spelled}, which does not exist`);
          continue;
        }
        targets.push(target);
      }
      // `from pkg import name`: the submodule `name` when there is one, else pkg's __init__ (which defines it).
      for (const imported of names) {
        const submodule = imported === '*' ? undefined : pythonModule(path.join(directory, imported));
        if (submodule) targets.push(submodule);
        else if (!module) {
          const init = path.join(directory, '__init__.py');
          if (isFile(init)) targets.push(init);
          else problems.push(`${name(file)}:${line}: imports ${imported} from ${spelled}, which is no package`);
        }
      }
    }
    graph.set(
      file,
      [...new Set(targets)].filter((target) => target !== file),
    );
  }
  return { graph, problems };
}

// --- cycles -------------------------------------------------------------------------------------------

/** Every circle a depth-first walk closes (a node met again while still on the path), as `a -> b -> a`. */
export function cycles(graph, label) {
  const found = [];
  const state = new Map();
  const stack = [];
  const visit = (node) => {
    state.set(node, 'open');
    stack.push(node);
    for (const target of graph.get(node) ?? []) {
      if (!graph.has(target)) continue;
      if (state.get(target) === 'open') {
        found.push([...stack.slice(stack.indexOf(target)), target].map(label).join(' -> '));
      } else if (!state.has(target)) visit(target);
    }
    stack.pop();
    state.set(node, 'done');
  };
  for (const node of graph.keys()) if (!state.has(node)) visit(node);
  return found;
}

/** The folders' graph: folder A imports folder B when a file of A imports a file of B. */
function folderGraph(graph) {
  const folders = new Map();
  for (const [file, targets] of graph) {
    const from = path.dirname(file);
    if (!folders.has(from)) folders.set(from, new Set());
    for (const target of targets) {
      const to = path.dirname(target);
      if (!folders.has(to)) folders.set(to, new Set());
      if (to !== from) folders.get(from).add(to);
    }
  }
  return new Map([...folders].map(([folder, targets]) => [folder, [...targets].sort()]));
}

/** Both SDKs' import graphs (absolute file → files it imports) and every problem found in them. */
export function sdkImports(repoRoot) {
  const absoluteRoot = path.resolve(repoRoot);
  const label = (file) => path.relative(absoluteRoot, file).split(path.sep).join('/') || '.';
  const graphs = { javascript: javaScriptGraph(absoluteRoot), python: pythonGraph(absoluteRoot) };
  const problems = [];
  for (const { graph, problems: unread } of Object.values(graphs)) {
    problems.push(...unread);
    for (const [file, targets] of graph) {
      for (const target of targets) {
        if (graph.has(target)) continue;
        problems.push(`${label(file)}: imports ${label(target)}, which is none of the SDK's source files`);
      }
    }
    problems.push(...cycles(graph, label).map((cycle) => `cycle: ${cycle}`));
    problems.push(...cycles(folderGraph(graph), label).map((cycle) => `folder cycle: ${cycle}`));
  }
  return { graphs: { javascript: graphs.javascript.graph, python: graphs.python.graph }, problems };
}

/** Every problem in the SDKs' imports, as readable lines (`cycle: a -> b -> a`); empty when there is none. */
export function sdkImportProblems(repoRoot) {
  return sdkImports(repoRoot).problems;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { graphs, problems } = sdkImports(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..'));
  if (problems.length > 0) {
    const list = problems.map((problem) => `- ${problem}`).join('\n');
    console.error(`SDK import check: ${problems.length} problem(s)\n${list}`);
    process.exit(1);
  }
  const count = (graph) => [...graph.values()].reduce((sum, targets) => sum + targets.length, 0);
  const { javascript, python } = graphs;
  console.log(
    `SDK import check: JavaScript ${javascript.size} files, ${count(javascript)} imports; ` +
      `Python ${python.size} files, ${count(python)} imports; no cycle of files or folders.`,
  );
}
