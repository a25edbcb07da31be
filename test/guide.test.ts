// The guide (docs/guide/) against the running app's OpenAPI document: every operation the API has is named on
// one of its pages, and every /v1 endpoint a page names exists. And the documents a reader starts from (the
// README, the guide, and the pages they send readers to) link only to files and headings that exist.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createTestContext, type TestContext } from './helpers/context.js';
import { ROOT } from './helpers/processes.js';

const GUIDE = path.join(ROOT, 'docs/guide');
const guidePages = () =>
  fs
    .readdirSync(GUIDE)
    .filter((name) => name.endsWith('.md'))
    .map((name) => path.join(GUIDE, name));

/** The documents whose links are checked: the README, every guide page, and the pages the README sends to. */
const LINKED_DOCUMENTS = [
  'README.md',
  'docs/configuration.md',
  'docs/cli.md',
  'docs/dependencies.md',
  'docs/reliability.md',
  'docs/deploying.md',
  'docs/development.md',
  'docs/decisions.md',
  'docs/resources.md',
  'bench/README.md',
];

/** Endpoints a page may name that are not operations of the OpenAPI document (the document itself). */
const NOT_IN_THE_DOCUMENT = new Set(['GET /v1/openapi.json']);

/** Markdown outside fenced code blocks (a `#` comment in a shell example is not a heading). */
function prose(markdown: string): string {
  let fenced = false;
  return markdown
    .split('\n')
    .filter((line) => {
      if (/^\s*```/.test(line)) {
        fenced = !fenced;
        return false;
      }
      return !fenced;
    })
    .join('\n');
}

/** Every `METHOD /path` a page names in code, with `{param}` paths as the OpenAPI document writes them. */
function endpointsNamed(markdown: string): Set<string> {
  const named = new Set<string>();
  for (const match of prose(markdown).matchAll(/`(GET|POST|PUT|PATCH|DELETE) (\/[^\s`?]*)/g)) {
    named.add(`${match[1]} ${match[2]}`);
  }
  return named;
}

/** The anchor GitHub gives a heading: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  for (const line of prose(markdown).split('\n')) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const base = heading[1]!
      .toLowerCase()
      .replace(/<[^>]+>/g, '')
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    result.add(count === 0 ? base : `${base}-${count}`);
  }
  return result;
}

/** Relative links (markdown links and `src` of images) outside code blocks, as written. */
function relativeLinks(markdown: string): string[] {
  const text = prose(markdown).replace(/`[^`\n]*`/g, '');
  const targets = [
    ...[...text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((match) => match[1]!),
    ...[...text.matchAll(/\bsrc="([^"]+)"/g)].map((match) => match[1]!),
  ];
  return targets.filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

function brokenLinks(files: string[]): string[] {
  const broken: string[] = [];
  for (const file of files) {
    const relativeFile = path.relative(ROOT, file);
    const markdown = fs.readFileSync(file, 'utf8');
    for (const link of relativeLinks(markdown)) {
      const [target = '', anchor] = link.split('#', 2);
      const resolved = target === '' ? file : path.resolve(path.dirname(file), decodeURIComponent(target));
      const relativeTarget = path.relative(ROOT, resolved);
      if (!fs.existsSync(resolved)) {
        broken.push(`${relativeFile}: ${link} (no such file)`);
        continue;
      }
      if (anchor && resolved.endsWith('.md') && !anchors(fs.readFileSync(resolved, 'utf8')).has(anchor)) {
        broken.push(`${relativeFile}: ${link} (no such heading in ${relativeTarget})`);
      }
    }
  }
  return broken;
}

describe('the guide and the OpenAPI document', () => {
  let context: TestContext;
  let operations: string[];

  before(async () => {
    context = await createTestContext();
    const document = (await context.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json() as {
      paths: Record<string, Record<string, unknown>>;
    };
    operations = Object.entries(document.paths).flatMap(([route, methods]) =>
      Object.keys(methods).map((method) => `${method.toUpperCase()} ${route}`),
    );
  });
  after(() => context.close());

  test('every operation of the OpenAPI document is named, method and path, on a page of the guide', () => {
    const named = new Set(guidePages().flatMap((page) => [...endpointsNamed(fs.readFileSync(page, 'utf8'))]));
    assert.ok(operations.length > 100, `the document lists ${operations.length} operations`);
    assert.deepEqual(
      operations.filter((operation) => !named.has(operation)),
      [],
      'operations no guide page names',
    );
  });

  test('every /v1 endpoint a guide page names is an operation of the OpenAPI document', () => {
    const known = new Set(operations);
    const unknown: string[] = [];
    for (const page of guidePages()) {
      for (const endpoint of endpointsNamed(fs.readFileSync(page, 'utf8'))) {
        if (endpoint.split(' ')[1]!.startsWith('/v1') && !known.has(endpoint) && !NOT_IN_THE_DOCUMENT.has(endpoint))
          unknown.push(`${path.basename(page)}: ${endpoint}`);
      }
    }
    assert.deepEqual(unknown, []);
  });
});

describe('the README and the guide as a reader finds them', () => {
  test('every relative link of the README, the guide and the pages they send to reaches a file and heading that exist', () => {
    const files = [...LINKED_DOCUMENTS.map((file) => path.join(ROOT, file)), ...guidePages()];
    assert.deepEqual(brokenLinks(files), []);
  });

  test('the README is a front door of at most 300 lines that names both commands and links to the guide', () => {
    const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    assert.ok(readme.split('\n').length <= 300, `the README has ${readme.split('\n').length} lines`);
    assert.match(readme, /`npm install && npm start`/);
    assert.match(readme, /`npm install && npm test`/);
    assert.match(readme, /\]\(docs\/guide\/README\.md\)/);
  });

  test('the README lists each runtime dependency of package.json once', () => {
    const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('## Dependencies'), readme.indexOf('## Read on'));
    const listed = [...section.matchAll(/`([@a-z0-9./_-]+)`/g)].map((match) => match[1]!);
    const { dependencies } = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    assert.deepEqual(
      Object.keys(dependencies).filter((name) => !listed.includes(name)),
      [],
      'dependencies the README does not justify',
    );
    const repeated = listed.filter((name, index) => name in dependencies && listed.indexOf(name) !== index);
    assert.deepEqual(repeated, [], 'dependencies listed twice');
  });
});

describe('the decisions as current state', () => {
  const decisions = fs.readFileSync(path.join(ROOT, 'docs/decisions.md'), 'utf8');

  test('the topic index names every topic once, in the order of the headings', () => {
    const index = /^Topics: ([\s\S]*?)\n\n/m.exec(decisions)?.[1] ?? '';
    const listed = [...index.matchAll(/\]\(#([^)]+)\)/g)].map((match) => match[1]);
    const headings = [...prose(decisions).matchAll(/^## (.*)$/gm)].map((match) => [...anchors(`## ${match[1]}`)][0]);
    assert.deepEqual(listed, headings);
  });

  test('the decisions, the README and the guide name no issue, branch or date of work', () => {
    const files = ['README.md', 'docs/decisions.md', ...guidePages().map((page) => path.relative(ROOT, page))];
    const found: string[] = [];
    for (const file of files) {
      const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
      for (const pattern of [/\bissue \d+/gi, /\bbranch `[^`]+`/gi, /\b\d{1,2} (?:November|December)\b/g]) {
        for (const match of text.matchAll(pattern)) found.push(`${file}: ${match[0]}`);
      }
    }
    assert.deepEqual(found, []);
  });
});
