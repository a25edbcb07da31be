// The SDK generator, ready for resources that do not exist yet: the API's own document with the version-3
// paths added the way its routes describe theirs (visits and the calendar, visit schedules with their
// actions and occurrences, products, tax rates, quote and invoice previews). Both SDKs are generated from it
// into a copy, compiled (`tsc --strict`, `mypy --strict`), and driven against a scripted server, so that each
// new resource is its methods the moment its routes land, with no hand edit: the calendar's window is the
// list's iterator over keyset pages, the schedule actions are methods, a second path parameter is an
// argument, a query parameter beside a body goes in the query, and Python's `from` is `from_`.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { tsImport } from 'tsx/esm/api';
import { generateSdkSources, type OpenApiDocument, READMES } from '../sdks/generate.js';
import { createTestContext, temporaryDirectory, type TestContext } from './helpers/context.js';
import { ROOT } from './helpers/processes.js';
import { run, scriptedServer } from './helpers/sdk.js';

type Schema = Record<string, unknown>;

let context: TestContext;
let document: OpenApiDocument;
let directory: string;
let sources: Record<string, string>;

before(async () => {
  context = await createTestContext();
  document = withVersionThree((await context.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json());
  directory = temporaryDirectory('bms-sdk-generator-');
  const readmes = Object.fromEntries(
    READMES.map((file) => [file, fs.readFileSync(path.join(ROOT, 'sdks', file), 'utf8')]),
  );
  sources = generateSdkSources(document, readmes);
  fs.cpSync(path.join(ROOT, 'sdks/js'), path.join(directory, 'js'), {
    recursive: true,
    filter: (file) => !/node_modules|[/\\]dist$/.test(file),
  });
  fs.cpSync(path.join(ROOT, 'sdks/python/bms_sdk'), path.join(directory, 'python/bms_sdk'), {
    recursive: true,
    filter: (file) => !file.includes('__pycache__'),
  });
  for (const [file, text] of Object.entries(sources)) fs.writeFileSync(path.join(directory, file), text);
});
after(async () => {
  fs.rmSync(directory, { recursive: true, force: true });
  await context.close();
});

const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
const string: Schema = { type: 'string' };
const nullableString: Schema = { type: ['string', 'null'] };
const object = (properties: Record<string, Schema>, required: string[] = []): Schema => ({
  type: 'object',
  additionalProperties: false,
  properties,
  ...(required.length > 0 ? { required } : {}),
});

/**
 * One operation as the app's routes describe theirs: its query parameters, body and answer (`data`, in a
 * page or not), under the status it answers with.
 */
function operation(
  operationId: string,
  answer: { data?: Schema; page?: boolean; status?: number },
  parts: { query?: Record<string, Schema>; required?: string[]; body?: Schema; path?: string[] } = {},
) {
  const meta = answer.page
    ? object({
        request_id: string,
        pagination: object({ has_more: { type: 'boolean' }, next_cursor: nullableString }, ['has_more']),
      })
    : object({ request_id: string });
  return {
    operationId,
    summary: operationId,
    description: `Requires a scope (${operationId}).`,
    tags: ['Version 3'],
    parameters: [
      ...(parts.path ?? []).map((name) => ({ in: 'path', name, required: true, schema: string })),
      ...Object.entries(parts.query ?? {}).map(([name, schema]) => ({
        in: 'query',
        name,
        required: (parts.required ?? []).includes(name),
        schema,
        description: name,
      })),
    ],
    ...(parts.body ? { requestBody: { required: true, content: { 'application/json': { schema: parts.body } } } } : {}),
    responses: {
      [String(answer.status ?? 200)]: {
        description: 'Default Response',
        content: {
          'application/json': {
            schema: object({ ...(answer.data ? { data: answer.data } : {}), meta }, ['data', 'meta']),
          },
        },
      },
    },
  };
}

const page = (model: string) => ({ data: { type: 'array', items: ref(model) }, page: true });
const one = (model: string, status?: number) => ({ data: ref(model), ...(status ? { status } : {}) });
const deleted = { data: object({ id: string, deleted: { type: 'boolean', enum: [true] } }, ['id', 'deleted']) };
const listQuery = { limit: { type: 'integer' }, cursor: string };

/** The CRUD paths of a resource, as every existing resource has them. */
function crud(segment: string, model: string, input: Schema) {
  const plural = model.endsWith('y') ? `${model.slice(0, -1)}ies` : `${model}s`;
  return {
    [`/v1/${segment}`]: {
      get: operation(`list${plural}`, page(model), { query: listQuery }),
      post: operation(`create${model}`, one(model, 201), { body: input }),
    },
    [`/v1/${segment}/{id}`]: {
      get: operation(`get${model}`, one(model), { path: ['id'] }),
      put: operation(`update${model}`, one(model), { path: ['id'], body: { ...input, required: undefined } }),
      delete: operation(`delete${model}`, deleted, { path: ['id'] }),
    },
  };
}

/** The API's document with section 17–19's resources added, shaped as the contract describes them. */
/** The real document's named request bodies (`VisitSchedulePause`) that the fixture's inline bodies replaced. */
function withoutReplacedBodies(real: OpenApiDocument, fixture: OpenApiDocument): OpenApiDocument {
  const bodies = (document: OpenApiDocument) =>
    new Set(
      Object.values(document.paths).flatMap((operations) =>
        Object.values(operations).map((operation) => operation.requestBody?.content['application/json']?.schema.$ref),
      ),
    );
  const used = bodies(fixture);
  const replaced = [...bodies(real)].filter((reference) => reference && !used.has(reference));
  const schemas = { ...fixture.components.schemas };
  for (const reference of replaced) delete schemas[reference!.replace('#/components/schemas/', '')];
  return { ...fixture, components: { ...fixture.components, schemas } };
}

function withVersionThree(real: OpenApiDocument): OpenApiDocument {
  return withoutReplacedBodies(real, versionThree(real));
}

function versionThree(real: OpenApiDocument): OpenApiDocument {
  const visit = object(
    {
      id: nullableString,
      object: { type: 'string', enum: ['visit'] },
      job_id: string,
      status: {
        type: 'string',
        enum: ['unscheduled', 'scheduled', 'en_route', 'in_progress', 'completed', 'canceled'],
      },
      title: string,
      timezone: string,
      start_at: nullableString,
      end_at: nullableString,
      local_start: nullableString,
      local_end: nullableString,
      assignee_ids: { type: 'array', items: string },
      schedule_id: nullableString,
      occurrence_key: nullableString,
      projected: { type: 'boolean' },
    },
    [
      'id',
      'object',
      'job_id',
      'status',
      'title',
      'timezone',
      'start_at',
      'end_at',
      'local_start',
      'local_end',
      'assignee_ids',
    ],
  );
  const template = object({
    title: string,
    instructions: nullableString,
    assignee_ids: { type: 'array', items: string },
    arrival_window_minutes: { type: 'integer' },
  });
  const recurrence = object({
    rrule: string,
    frequency: { type: 'string', enum: ['daily', 'weekly', 'monthly', 'yearly'] },
    interval: { type: 'integer' },
    by_weekday: { type: 'array', items: string },
    start_date: string,
    time: nullableString,
    timezone: string,
    summary: string,
  });
  const schedule = object(
    {
      id: string,
      object: { type: 'string', enum: ['visit_schedule'] },
      job_id: string,
      status: { type: 'string', enum: ['active', 'paused', 'ended'] },
      recurrence,
      duration_minutes: { type: ['integer', 'null'] },
      template,
      paused_from: nullableString,
      // A nested key named like a Python keyword (a TypedDict's functional syntax).
      pause: { type: ['object', 'null'], properties: { from: string, until: nullableString }, required: ['from'] },
      previous_schedule_id: nullableString,
    },
    ['id', 'object', 'job_id', 'status', 'recurrence'],
  );
  const visitInput = object(
    {
      job_id: string,
      title: string,
      start_at: nullableString,
      end_at: nullableString,
      duration_minutes: { type: ['integer', 'null'] },
      local_start: nullableString,
      timezone: string,
      all_day: { type: 'boolean' },
      start_date: nullableString,
      assignee_ids: { type: 'array', items: string },
    },
    ['job_id'],
  );
  const onConflict = { on_conflict: { type: 'string', enum: ['reject'] } };
  const scheduleInput = object(
    {
      job_id: string,
      recurrence: { ...recurrence, required: ['start_date'] },
      duration_minutes: { type: 'integer' },
      template,
    },
    ['job_id', 'recurrence'],
  );
  const occurrenceKey = object({ occurrence_key: string }, ['occurrence_key']);
  const createBody = (path: string) =>
    (real.paths[path]!.post!.requestBody as { content: { 'application/json': { schema: Schema } } }).content[
      'application/json'
    ].schema;
  const event = real.components.schemas.Event!;
  const eventType = event.properties!.type!;
  const types = ['visit.created', 'visit.rescheduled', 'visit_schedule.split', 'product.created', 'tax_rate.updated'];
  return {
    ...real,
    components: {
      ...real.components,
      schemas: {
        ...real.components.schemas,
        Event: {
          ...event,
          properties: { ...event.properties, type: { ...eventType, enum: [...eventType.enum!, ...types] } },
        },
        Visit: visit,
        // An occurrence of a schedule not yet made into a visit (include_projected): the calendar's items are
        // one or the other, as a route may well describe them.
        ProjectedVisit: {
          ...visit,
          properties: {
            ...(visit.properties as Record<string, Schema>),
            id: { type: 'null' },
            projected: { type: 'boolean', enum: [true] },
          },
        },
        VisitSchedule: schedule,
        Product: object(
          {
            id: string,
            object: { type: 'string', enum: ['product'] },
            name: string,
            unit_amount: { type: ['integer', 'null'] },
          },
          ['id', 'object', 'name', 'unit_amount'],
        ),
        TaxRate: object(
          { id: string, object: { type: 'string', enum: ['tax_rate'] }, name: string, percentage: { type: 'number' } },
          ['id', 'object', 'name', 'percentage'],
        ),
      },
    },
    paths: {
      ...real.paths,
      '/v1/visits': {
        get: operation(
          'listVisits',
          { data: { type: 'array', items: { anyOf: [ref('Visit'), ref('ProjectedVisit')] } }, page: true },
          {
            query: {
              ...listQuery,
              from: string,
              to: string,
              from_date: string,
              to_date: string,
              timezone: string,
              assignee_id: string,
              status: { type: 'array', items: { type: 'string', enum: ['scheduled', 'en_route', 'in_progress'] } },
              include_projected: { type: 'boolean' },
            },
          },
        ),
        post: operation('createVisit', one('Visit', 201), { body: visitInput, query: onConflict }),
      },
      '/v1/visits/{id}': {
        get: operation('getVisit', one('Visit'), { path: ['id'] }),
        put: operation('updateVisit', one('Visit'), {
          path: ['id'],
          body: { ...visitInput, required: undefined },
          query: onConflict,
        }),
        delete: operation('deleteVisit', deleted, { path: ['id'] }),
      },
      '/v1/visits/{id}/assignees': {
        post: operation('addVisitAssignee', one('Visit', 201), {
          path: ['id'],
          body: object({ team_member_id: string }, ['team_member_id']),
        }),
      },
      '/v1/visits/{id}/assignees/{team_member_id}': {
        delete: operation('removeVisitAssignee', one('Visit'), { path: ['id', 'team_member_id'] }),
      },
      ...crud('visit-schedules', 'VisitSchedule', scheduleInput),
      '/v1/visit-schedules/{id}': {
        get: operation('getVisitSchedule', one('VisitSchedule'), { path: ['id'] }),
        put: operation('updateVisitSchedule', one('VisitSchedule'), {
          path: ['id'],
          body: object({ duration_minutes: { type: 'integer' }, horizon_days: { type: 'integer' } }),
        }),
        delete: operation('deleteVisitSchedule', one('VisitSchedule'), {
          path: ['id'],
          query: { keep_visits: { type: 'boolean' } },
        }),
      },
      '/v1/visit-schedules/{id}/skip': {
        post: operation('skipVisitSchedule', one('VisitSchedule'), { path: ['id'], body: occurrenceKey }),
      },
      '/v1/visit-schedules/{id}/unskip': {
        post: operation('unskipVisitSchedule', one('VisitSchedule'), { path: ['id'], body: occurrenceKey }),
      },
      '/v1/visit-schedules/{id}/pause': {
        post: operation('pauseVisitSchedule', one('VisitSchedule'), {
          path: ['id'],
          body: object({ from: string, until: nullableString }, ['from']),
        }),
      },
      '/v1/visit-schedules/{id}/resume': {
        post: operation('resumeVisitSchedule', one('VisitSchedule'), { path: ['id'] }),
      },
      '/v1/visit-schedules/{id}/split': {
        post: operation(
          'splitVisitSchedule',
          {
            data: object({ previous: ref('VisitSchedule'), next: ref('VisitSchedule') }, ['previous', 'next']),
            status: 201,
          },
          {
            path: ['id'],
            body: object({ from_occurrence_key: string, duration_minutes: { type: 'integer' }, recurrence }, [
              'from_occurrence_key',
            ]),
          },
        ),
      },
      '/v1/visit-schedules/{id}/occurrences': {
        get: operation(
          'listVisitScheduleOccurrences',
          {
            data: {
              type: 'array',
              items: object(
                {
                  occurrence_key: string,
                  start_at: string,
                  end_at: string,
                  visit_id: nullableString,
                  skipped: { type: 'boolean' },
                },
                ['occurrence_key', 'start_at', 'end_at', 'visit_id', 'skipped'],
              ),
            },
          },
          { path: ['id'], query: { from: string, to: string }, required: ['from', 'to'] },
        ),
      },
      ...crud('products', 'Product', object({ name: string, unit_amount: { type: ['integer', 'null'] } }, ['name'])),
      ...crud('tax-rates', 'TaxRate', object({ name: string, percentage: { type: 'number' } }, ['name', 'percentage'])),
      '/v1/quotes/preview': { post: operation('previewQuote', one('Quote'), { body: createBody('/v1/quotes') }) },
      '/v1/invoices/preview': {
        post: operation('previewInvoice', one('Invoice'), { body: createBody('/v1/invoices') }),
      },
    },
  } as unknown as OpenApiDocument;
}

const KEY = `bms_${'k'.repeat(40)}`;
const VISIT = {
  id: 'v1',
  object: 'visit',
  job_id: 'j1',
  status: 'scheduled',
  start_at: '2026-12-01T16:00:00Z',
  end_at: '2026-12-01T17:00:00Z',
  assignee_ids: ['tm_1'],
};
const PROJECTED = { ...VISIT, id: null, projected: true, schedule_id: 's1', occurrence_key: '2026-12-08T09:00' };
const SCHEDULE = {
  id: 's1',
  object: 'visit_schedule',
  job_id: 'j1',
  status: 'active',
  recurrence: { frequency: 'weekly', start_date: '2026-12-01' },
};
const envelope = (data: unknown, pagination?: { has_more: boolean; next_cursor: string | null }) =>
  JSON.stringify({ data, meta: { request_id: 'req_1', ...(pagination ? { pagination } : {}) } });
/** What the server answers, call by call, to both languages' walk through the version-3 methods. */
const SCRIPT = [
  { status: 200, body: envelope([VISIT], { has_more: true, next_cursor: 'c2' }) },
  { status: 200, body: envelope([PROJECTED], { has_more: false, next_cursor: null }) },
  { status: 201, body: envelope(VISIT) },
  { status: 200, body: envelope({ ...VISIT, assignee_ids: [] }) },
  { status: 200, body: envelope({ ...SCHEDULE, status: 'paused', paused_from: '2026-12-01' }) },
  { status: 200, body: envelope(SCHEDULE) },
  { status: 201, body: envelope({ previous: SCHEDULE, next: { ...SCHEDULE, id: 's2', previous_schedule_id: 's1' } }) },
  {
    status: 200,
    body: envelope([
      {
        occurrence_key: '2026-12-01T09:00',
        start_at: '2026-12-01T16:00:00Z',
        end_at: '2026-12-01T17:00:00Z',
        visit_id: 'v1',
        skipped: false,
      },
      {
        occurrence_key: '2026-12-08T09:00',
        start_at: '2026-12-08T16:00:00Z',
        end_at: '2026-12-08T17:00:00Z',
        visit_id: null,
        skipped: true,
      },
    ]),
  },
  { status: 200, body: envelope({ ...SCHEDULE, status: 'ended' }) },
  { status: 200, body: envelope({ id: null, object: 'quote', total_amount: 19598 }) },
];
/** What each call must have sent: method, path, query (as a set), body. */
const WINDOW = {
  from: '2026-11-30T07:00:00Z',
  to: '2026-12-07T07:00:00Z',
  assignee_id: 'tm_1',
  include_projected: 'true',
};
const SENT = [
  ['GET', '/v1/visits', WINDOW, ''],
  ['GET', '/v1/visits', { ...WINDOW, cursor: 'c2' }, ''],
  [
    'POST',
    '/v1/visits',
    { on_conflict: 'reject' },
    { job_id: 'j1', start_at: '2026-12-01T16:00:00Z', duration_minutes: 60 },
  ],
  ['DELETE', '/v1/visits/v%201/assignees/tm%2F1', {}, ''],
  ['POST', '/v1/visit-schedules/s1/pause', {}, { from: '2026-12-01', until: '2026-12-31' }],
  ['POST', '/v1/visit-schedules/s1/skip', {}, { occurrence_key: '2026-12-08T09:00' }],
  ['POST', '/v1/visit-schedules/s1/split', {}, { from_occurrence_key: '2026-12-15T09:00', duration_minutes: 90 }],
  ['GET', '/v1/visit-schedules/s1/occurrences', { from: '2026-12-01T00:00:00Z', to: '2027-01-01T00:00:00Z' }, ''],
  ['DELETE', '/v1/visit-schedules/s1', { keep_visits: 'true' }, ''],
  [
    'POST',
    '/v1/quotes/preview',
    {},
    { client_id: 'c1', line_items: [{ description: 'Mowing', quantity: 1, unit_amount: 4500 }] },
  ],
];

/** The requests a scripted server saw, in the form SENT states them. */
function sent(requests: Array<{ method: string; url: string; body: string }>): unknown[] {
  return requests.map((request) => {
    const url = new URL(request.url, 'http://x');
    return [
      request.method,
      url.pathname,
      Object.fromEntries(url.searchParams),
      request.body ? JSON.parse(request.body) : '',
    ];
  });
}

describe('the SDK generator, with the version-3 resources', () => {
  test('each new path is a method of its resource, named by its operationId, in both SDKs and their READMEs’ tables', () => {
    const ts = sources['js/src/generated.ts']!;
    const python = sources['python/bms_sdk/_generated.py']!;
    const expected: Record<string, string[]> = {
      visits: ['list', 'create', 'get', 'update', 'delete', 'addTags', 'removeTag', 'addAssignee', 'removeAssignee'],
      'visit-schedules': [
        'list',
        'create',
        'get',
        'update',
        'delete',
        'skip',
        'unskip',
        'pause',
        'resume',
        'split',
        'listOccurrences',
      ],
      products: ['list', 'create', 'get', 'update', 'delete'],
      'tax-rates': ['list', 'create', 'get', 'update', 'delete'],
    };
    for (const [segment, methods] of Object.entries(expected)) {
      assert.ok(ts.includes(`/** ${segment}: ${methods.join(', ')}. */`), `JS ${segment}`);
      const snake = methods.map((name) => name.replace(/[A-Z]/g, (upper) => `_${upper.toLowerCase()}`));
      assert.ok(python.includes(`"""${segment}: ${snake.join(', ')}."""`), `Python ${segment}`);
    }
    for (const property of ['visits', 'visitSchedules', 'products', 'taxRates'])
      assert.match(ts, new RegExp(`readonly ${property}: \\w+Resource;`));
    for (const attribute of ['visits', 'visit_schedules', 'products', 'tax_rates'])
      assert.match(python, new RegExp(`self\\.${attribute} = \\w+Resource\\(transport\\)`));
    assert.match(
      ts,
      /list\(params: VisitListParams = \{\}, options\?: RequestOptions\): PagePromise<Visit \| ProjectedVisit>/,
    );
    assert.match(python, /\) -> Page\[Union\[Visit, ProjectedVisit\]\]:/);
    assert.match(
      ts,
      /listOccurrences\(id: string, params: VisitScheduleListOccurrencesParams, options\?: RequestOptions\): Promise<WithResponse<VisitScheduleListOccurrencesItem\[\]>>/,
    );
    assert.match(ts, /\/\*\* quotes: [^*]*\bpreview\b[^*]*\. \*\//);
    assert.match(python, /"""invoices: [^"]*\bpreview\b[^"]*\."""/);
    assert.match(
      ts,
      /export type Event = .*\| VisitEvent \| VisitScheduleEvent \| ProductEvent \| TaxRateEvent \| RecurringInvoiceEvent \| AvailabilityExceptionEvent \| CreditNoteEvent \| TimeEntryEvent \| TimeLockEvent \| AppEvent \| CustomFieldEvent \| TagEvent \| ImportEvent \| AttachmentEvent;/,
    );
    assert.ok(
      sources['js/README.md']!.includes(
        '| `bms.visitSchedules` | `list`, `create`, `get`, `update`, `delete`, `skip`, `unskip`, `pause`, `resume`, `split`, `listOccurrences` (a list) |',
      ),
      'the JS README’s table of methods',
    );
    assert.ok(
      sources['python/README.md']!.includes('| `bms.tax_rates` | `list`, `create`, `get`, `update`, `delete` |'),
    );
  });

  test('TypeScript: the generated SDK compiles with strict, and its types refuse a window without from and to', async () => {
    fs.writeFileSync(
      path.join(directory, 'js/src/usage.ts'),
      `import type { BmsClient, ProjectedVisit, Visit, VisitEvent, VisitScheduleListOccurrencesItem, VisitScheduleSplitResult } from './index.js';
declare const bms: BmsClient;
declare const event: VisitEvent;
export async function usage(): Promise<void> {
  for await (const visit of bms.visits.list({ from: 'a', to: 'b', status: ['scheduled', 'en_route'], include_projected: true })) {
    const typed: Visit | ProjectedVisit = visit; // a calendar's item is one or the other
    void typed.id?.length;
  }
  const created = await bms.visits.create({ job_id: 'j', start_at: 'a', duration_minutes: 60, on_conflict: 'reject' });
  await bms.visits.removeAssignee(created.id ?? '', 'tm_1');
  const split: VisitScheduleSplitResult = await bms.visitSchedules.split('s', { from_occurrence_key: 'k' });
  const occurrences = await bms.visitSchedules.listOccurrences('s', { from: 'a', to: 'b' });
  const items: VisitScheduleListOccurrencesItem[] = occurrences;
  await bms.visitSchedules.resume('s');
  void [split.next.previous_schedule_id, items[0]?.visit_id, event.data.object.job_id, occurrences.lastResponse.status];
  // @ts-expect-error the occurrences of a window need its from and to
  await bms.visitSchedules.listOccurrences('s', {});
  // @ts-expect-error removing an assignee names the member
  await bms.visits.removeAssignee('v');
  // @ts-expect-error a pause starts somewhere
  await bms.visitSchedules.pause('s', { until: '2026-12-31' });
  // @ts-expect-error a visit has no id while it is projected
  void created.id.length;
}
`,
    );
    const tsc = path.join(ROOT, 'node_modules/typescript/bin/tsc');
    const compiled = await run(process.execPath, [tsc, '-p', 'tsconfig.json', '--noEmit'], {
      cwd: path.join(directory, 'js'),
      env: process.env,
    });
    assert.equal(compiled.status, 0, compiled.output);
  });

  test('TypeScript: the calendar walks every keyset page; actions, path parameters and query beside a body are sent right', async () => {
    const server = await scriptedServer(SCRIPT);
    try {
      // The generated TypeScript is imported as it is, through tsx (the suites themselves run compiled).
      const sdk = await tsImport(pathToFileURL(path.join(directory, 'js/src/index.ts')).href, import.meta.url);
      const bms = new sdk.BmsClient({ apiKey: KEY, baseUrl: server.url, maxRetries: 0 });
      const window = { from: WINDOW.from, to: WINDOW.to, assignee_id: 'tm_1', include_projected: true };
      const seen: Array<string | null> = [];
      for await (const visit of bms.visits.list(window)) seen.push(visit.id);
      assert.deepEqual(seen, ['v1', null], 'both pages, the projected occurrence without an id');
      await bms.visits.create({
        job_id: 'j1',
        start_at: '2026-12-01T16:00:00Z',
        duration_minutes: 60,
        on_conflict: 'reject',
      });
      assert.deepEqual((await bms.visits.removeAssignee('v 1', 'tm/1')).assignee_ids, []);
      assert.equal(
        (await bms.visitSchedules.pause('s1', { from: '2026-12-01', until: '2026-12-31' })).status,
        'paused',
      );
      await bms.visitSchedules.skip('s1', { occurrence_key: '2026-12-08T09:00' });
      const split = await bms.visitSchedules.split('s1', {
        from_occurrence_key: '2026-12-15T09:00',
        duration_minutes: 90,
      });
      assert.deepEqual([split.previous.id, split.next.id, split.lastResponse.status], ['s1', 's2', 201]);
      const occurrences = await bms.visitSchedules.listOccurrences('s1', {
        from: '2026-12-01T00:00:00Z',
        to: '2027-01-01T00:00:00Z',
      });
      assert.deepEqual(
        occurrences.map((occurrence: { skipped: boolean }) => occurrence.skipped),
        [false, true],
      );
      assert.equal((await bms.visitSchedules.delete('s1', { keep_visits: true })).status, 'ended');
      const preview = await bms.quotes.preview({
        client_id: 'c1',
        line_items: [{ description: 'Mowing', quantity: 1, unit_amount: 4500 }],
      });
      assert.equal(preview.total_amount, 19598);
      assert.deepEqual(sent(server.requests), SENT);
    } finally {
      await server.close();
    }
  });

  test('Python: mypy --strict passes on the generated package and refuses what the server would', async () => {
    const script = pythonWalk();
    fs.writeFileSync(path.join(directory, 'python/walk.py'), script);
    const checked = await run('mypy', ['--strict', '--no-incremental', 'bms_sdk', 'walk.py'], {
      cwd: path.join(directory, 'python'),
      env: { ...process.env, MYPYPATH: path.join(directory, 'python') },
    });
    assert.equal(checked.status, 0, checked.output);
  });

  test('Python: the calendar walks every page (from_ sent as from); actions and path parameters are sent right', async () => {
    const server = await scriptedServer(SCRIPT);
    try {
      const result = await run('python3', ['walk.py'], {
        cwd: path.join(directory, 'python'),
        env: {
          ...process.env,
          PYTHONPATH: path.join(directory, 'python'),
          PYTHONDONTWRITEBYTECODE: '1',
          BMS_BASE_URL: server.url,
          BMS_API_KEY: KEY,
        },
      });
      assert.equal(result.status, 0, result.output);
      assert.deepEqual(result.output.trim().split('\n'), [
        'v1 None',
        'paused',
        's1 s2 201',
        'False True',
        'ended',
        '19598',
      ]);
      assert.deepEqual(sent(server.requests), SENT);
    } finally {
      await server.close();
    }
  });
});

/** The same walk in Python; its last lines are mistakes that mypy must refuse (unused ignores fail too). */
function pythonWalk(): string {
  return `from typing import List, Optional

from bms_sdk import BmsClient, VisitScheduleListOccurrencesItem, VisitSchedulePause, raw_response

bms = BmsClient(max_retries=0)
ids: List[Optional[str]] = [visit["id"] for visit in bms.visits.list(from_="${WINDOW.from}", to="${WINDOW.to}", assignee_id="tm_1", include_projected=True)]
print(*ids)
bms.visits.create(job_id="j1", start_at="2026-12-01T16:00:00Z", duration_minutes=60, on_conflict="reject")
assert bms.visits.remove_assignee("v 1", "tm/1")["assignee_ids"] == []
print(bms.visit_schedules.pause("s1", from_="2026-12-01", until="2026-12-31")["status"])
bms.visit_schedules.skip("s1", occurrence_key="2026-12-08T09:00")
split = raw_response(bms.visit_schedules.split)("s1", from_occurrence_key="2026-12-15T09:00", duration_minutes=90)
print(split.data["previous"]["id"], split.data["next"]["id"], split.status)
occurrences: List[VisitScheduleListOccurrencesItem] = bms.visit_schedules.list_occurrences("s1", from_="2026-12-01T00:00:00Z", to="2027-01-01T00:00:00Z")
print(*[occurrence["skipped"] for occurrence in occurrences])
print(bms.visit_schedules.delete("s1", keep_visits=True)["status"])
pause: VisitSchedulePause = {"from": "2026-12-20", "until": None}
assert pause["from"] == "2026-12-20"
print(bms.quotes.preview(client_id="c1", line_items=[{"description": "Mowing", "quantity": 1, "unit_amount": 4500}])["total_amount"])


def mistakes() -> None:
    bms.visit_schedules.list_occurrences("s1")  # type: ignore[call-arg]
    bms.visits.remove_assignee("v1")  # type: ignore[call-arg]
    bms.visit_schedules.pause("s1", until="2026-12-31")  # type: ignore[call-arg]
    bms.visits.create(job_id="j1", on_conflict="ignore")  # type: ignore[arg-type]
`;
}
