// Lists of service requests, quotes, jobs and invoices: every filter and sort of the contract, paged
// through small pages so the keyset cursor is exercised on nullable sort keys too.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestContext, ManualClock, type ApiResponse, type TestContext } from './helpers/context.js';

const clock = new ManualClock(new Date('2026-11-21T10:00:00.000Z'));
const LINES = [{ description: 'Work', quantity: 1, unit_amount: 1000 }];
let context: TestContext;
let key: string;
let clients: string[];
const made: Record<string, any[]> = { quotes: [], jobs: [], invoices: [], 'service-requests': [] };

async function call(method: string, path: string, body?: unknown) {
  clock.advance(1000);
  const response = await context.request(method, path, { key, body });
  assert.ok(response.status < 300, response.text);
  return response.body.data;
}

async function listAll(path: string, query: string): Promise<any[]> {
  const items: any[] = [];
  let cursor: string | null = null;
  do {
    const response: ApiResponse = await context.request(
      'GET',
      `${path}?limit=2&${query}${cursor ? `&cursor=${cursor}` : ''}`,
      { key },
    );
    assert.equal(response.status, 200, response.text);
    items.push(...response.body.data);
    cursor = response.body.meta.pagination.next_cursor;
  } while (cursor);
  return items;
}

const ids = (items: any[]) => items.map((item) => item.id).sort();

before(async () => {
  context = await createTestContext({ clock });
  ({ key } = await context.account());
  clients = [
    (await call('POST', '/v1/clients', { name: 'A' })).id,
    (await call('POST', '/v1/clients', { name: 'B' })).id,
  ];
  for (const [index, client] of [clients[0], clients[1], clients[0]].entries()) {
    made['service-requests']!.push(
      await call('POST', '/v1/service-requests', { client_id: client, title: `Request ${index}` }),
    );
  }
  await call('PUT', `/v1/service-requests/${made['service-requests']![2].id}`, { status: 'archived' });
  // Quotes: one from a request, drafts without numbers, sent ones with numbers.
  made.quotes!.push(
    await call('POST', '/v1/quotes', {
      client_id: clients[0],
      request_id: made['service-requests']![0].id,
      line_items: LINES,
    }),
  );
  for (let index = 0; index < 4; index += 1)
    made.quotes!.push(await call('POST', '/v1/quotes', { client_id: clients[index % 2], line_items: LINES }));
  for (const quote of [made.quotes![3], made.quotes![1], made.quotes![0]])
    await call('PUT', `/v1/quotes/${quote.id}`, { status: 'sent' });
  await call('PUT', `/v1/quotes/${made.quotes![0].id}`, { status: 'approved' });
  // Jobs: some scheduled, some not; one from the approved quote.
  made.jobs!.push(
    await call('POST', '/v1/jobs', { quote_id: made.quotes![0].id, scheduled_start: '2026-12-03T09:00:00Z' }),
  );
  made.jobs!.push(await call('POST', '/v1/jobs', { client_id: clients[1], title: 'Unscheduled' }));
  made.jobs!.push(
    await call('POST', '/v1/jobs', { client_id: clients[0], title: 'Early', scheduled_start: '2026-12-01T09:00:00Z' }),
  );
  made.jobs!.push(await call('POST', '/v1/jobs', { client_id: clients[1], title: 'Unscheduled too' }));
  made.jobs!.push(
    await call('POST', '/v1/jobs', { client_id: clients[0], title: 'Late', scheduled_start: '2026-12-09T09:00:00Z' }),
  );
  await call('PUT', `/v1/jobs/${made.jobs![2].id}`, { status: 'completed' });
  // Invoices: drafts, sent (one overdue), paid, with and without due dates, from a job.
  made.invoices!.push(await call('POST', '/v1/invoices', { job_id: made.jobs![0].id }));
  made.invoices!.push(
    await call('POST', '/v1/invoices', {
      client_id: clients[1],
      line_items: LINES,
      issue_date: '2026-10-01',
      due_date: '2026-11-01',
    }),
  );
  made.invoices!.push(await call('POST', '/v1/invoices', { client_id: clients[0], line_items: LINES }));
  made.invoices!.push(
    await call('POST', '/v1/invoices', { client_id: clients[0], line_items: LINES, due_date: '2026-12-15' }),
  );
  made.invoices!.push(
    await call('POST', '/v1/invoices', {
      client_id: clients[1],
      line_items: LINES,
      issue_date: '2026-11-01',
      due_date: '2026-11-20',
    }),
  );
  await call('PUT', `/v1/invoices/${made.invoices![1].id}`, { status: 'sent' });
  await call('PUT', `/v1/invoices/${made.invoices![3].id}`, { status: 'sent' });
  await call('PUT', `/v1/invoices/${made.invoices![4].id}`, { status: 'sent' });
  await call('PUT', `/v1/invoices/${made.invoices![4].id}`, { status: 'paid' });
  for (const kind of Object.keys(made))
    made[kind] = await Promise.all(made[kind]!.map((item) => call('GET', `/v1/${kind}/${item.id}`)));
});
after(() => context.close());

const SORTS: Record<string, Array<[string, (item: any) => string | number]>> = {
  'service-requests': [
    ['created_at', (item) => item.created_at],
    ['updated_at', (item) => item.updated_at],
  ],
  quotes: [
    ['number', (item) => Number(item.number?.slice(2) ?? 0)],
    ['created_at', (item) => item.created_at],
  ],
  jobs: [
    ['scheduled_start', (item) => item.scheduled_start ?? ''],
    ['updated_at', (item) => item.updated_at],
  ],
  invoices: [
    ['number', (item) => Number(item.number?.slice(4) ?? 0)],
    ['due_date', (item) => item.due_date ?? ''],
  ],
};

/** The items in the order `sort` asks, ties broken by id as the API does. */
function sorted(kind: string, sort: string, items: any[]): any[] {
  const descending = sort.startsWith('-');
  const value = SORTS[kind]!.find(([field]) => field === sort.replace('-', ''))![1];
  return [...items].sort((a, b) => {
    const [x, y] = [value(a), value(b)];
    const order = x < y ? -1 : x > y ? 1 : a.id < b.id ? -1 : 1;
    return descending ? -order : order;
  });
}

describe('sorts page through every row in order, nulls lowest', () => {
  for (const [kind, sorts] of Object.entries(SORTS)) {
    for (const [field] of sorts) {
      for (const sort of [field, `-${field}`]) {
        test(`${kind} sort=${sort}`, async () => {
          const listed = await listAll(`/v1/${kind}`, `sort=${sort}`);
          assert.deepEqual(
            listed.map((item) => item.id),
            sorted(kind, sort, made[kind]!).map((item) => item.id),
          );
        });
      }
    }
  }
});

describe('filters', () => {
  interface Named {
    client0: string;
    client1: string;
    request0: string;
    quote0: string;
    job0: string;
  }
  const cases: Array<[string, (n: Named) => string, (item: any, n: Named) => boolean]> = [
    ['service-requests', (n) => `client_id=${n.client0}`, (item, n) => item.client_id === n.client0],
    ['service-requests', () => 'status=new,archived', (item) => ['new', 'archived'].includes(item.status)],
    ['quotes', () => 'status=sent', (item) => item.status === 'sent'],
    ['quotes', (n) => `request_id=${n.request0}`, (item, n) => item.request_id === n.request0],
    [
      'quotes',
      (n) => `client_id=${n.client1}&status=draft,sent`,
      (item, n) => item.client_id === n.client1 && ['draft', 'sent'].includes(item.status),
    ],
    ['jobs', () => 'status=completed', (item) => item.status === 'completed'],
    [
      'jobs',
      () => 'scheduled_from=2026-12-02T00:00:00Z',
      (item) => item.scheduled_start !== null && item.scheduled_start >= '2026-12-02',
    ],
    [
      'jobs',
      () => 'scheduled_from=2026-12-01T00:00:00Z&scheduled_to=2026-12-05T00:00:00Z',
      (item) => item.scheduled_start !== null && item.scheduled_start < '2026-12-05',
    ],
    ['jobs', (n) => `quote_id=${n.quote0}`, (item, n) => item.quote_id === n.quote0],
    ['jobs', (n) => `request_id=${n.request0}`, (item, n) => item.request_id === n.request0],
    ['invoices', () => 'overdue=true', (item) => item.is_overdue],
    ['invoices', () => 'overdue=false', (item) => !item.is_overdue],
    ['invoices', () => 'due_before=2026-12-01', (item) => item.due_date !== null && item.due_date < '2026-12-01'],
    ['invoices', () => 'due_after=2026-11-20', (item) => item.due_date !== null && item.due_date >= '2026-11-20'],
    ['invoices', (n) => `job_id=${n.job0}`, (item, n) => item.job_id === n.job0],
    ['invoices', (n) => `quote_id=${n.quote0}`, (item, n) => item.quote_id === n.quote0],
    [
      'invoices',
      (n) => `status=sent,paid&client_id=${n.client1}`,
      (item, n) => ['sent', 'paid'].includes(item.status) && item.client_id === n.client1,
    ],
  ];
  const PLACEHOLDERS: Named = {
    client0: '{client0}',
    client1: '{client1}',
    request0: '{request0}',
    quote0: '{quote0}',
    job0: '{job0}',
  };
  for (const [kind, query, predicate] of cases) {
    test(`${kind}?${query(PLACEHOLDERS)}`, async () => {
      const named: Named = {
        client0: clients[0]!,
        client1: clients[1]!,
        request0: made['service-requests']![0].id,
        quote0: made.quotes![0].id,
        job0: made.jobs![0].id,
      };
      const wanted = made[kind]!.filter((item) => predicate(item, named));
      assert.ok(
        wanted.length > 0 && wanted.length < made[kind]!.length,
        `${query(named)} should select some rows, not all or none`,
      );
      assert.deepEqual(ids(await listAll(`/v1/${kind}`, query(named))), ids(wanted), query(named));
    });
  }

  // A filter on several statuses is merged from one index range per status, and a range on the sort's
  // own column is a range of its index: both must still page in the sort's order, through small pages.
  const SORTED_CASES: Array<[string, string, string, (item: any) => boolean]> = [
    ['invoices', 'status=draft,sent,paid', 'due_date', (item) => ['draft', 'sent', 'paid'].includes(item.status)],
    ['invoices', 'status=sent,draft', '-number', (item) => ['draft', 'sent'].includes(item.status)],
    [
      'invoices',
      'due_after=2026-11-10',
      '-due_date',
      (item) => item.due_date !== null && item.due_date >= '2026-11-10',
    ],
    ['invoices', 'due_before=2026-12-01', 'due_date', (item) => item.due_date !== null && item.due_date < '2026-12-01'],
    ['invoices', 'overdue=true&status=paid', 'due_date', () => false],
    ['invoices', 'overdue=true&status=sent,paid', '-due_date', (item) => item.is_overdue],
    ['quotes', 'status=draft,sent', '-number', (item) => ['draft', 'sent'].includes(item.status)],
    [
      'jobs',
      'status=scheduled,completed',
      'scheduled_start',
      (item) => ['scheduled', 'completed'].includes(item.status),
    ],
    [
      'jobs',
      'scheduled_to=2026-12-05T00:00:00Z',
      '-scheduled_start',
      (item) => item.scheduled_start !== null && item.scheduled_start < '2026-12-05',
    ],
    [
      'jobs',
      'scheduled_from=2026-12-02T00:00:00Z',
      'scheduled_start',
      (item) => item.scheduled_start !== null && item.scheduled_start >= '2026-12-02',
    ],
    ['service-requests', 'status=archived,new', '-updated_at', (item) => ['new', 'archived'].includes(item.status)],
  ];
  for (const [kind, query, sort, predicate] of SORTED_CASES) {
    test(`${kind}?${query}&sort=${sort}, in order`, async () => {
      const expected = sorted(kind, sort, made[kind]!.filter(predicate));
      assert.deepEqual(
        (await listAll(`/v1/${kind}`, `${query}&sort=${sort}`)).map((item) => item.id),
        expected.map((item) => item.id),
      );
    });
  }

  test('is_overdue follows the clock', async () => {
    const overdue = made.invoices!.filter((item) => item.is_overdue);
    assert.deepEqual(
      overdue.map((item) => item.id),
      [made.invoices![1].id],
      'sent and due 2026-11-01, before today 2026-11-21',
    );
    clock.set(new Date('2026-12-16T00:00:00.000Z'));
    const later = await listAll('/v1/invoices', 'overdue=true');
    assert.deepEqual(ids(later), [made.invoices![1].id, made.invoices![3].id].sort());
    assert.equal(
      (await context.request('GET', `/v1/invoices/${made.invoices![3].id}`, { key })).body.data.is_overdue,
      true,
    );
    clock.set(new Date('2026-11-21T12:00:00.000Z'));
  });

  test('bad filter values are 422 naming the parameter', async () => {
    const cases: Array<[string, string]> = [
      ['/v1/invoices?status=sent,lost', 'status'],
      ['/v1/invoices?overdue=maybe', 'overdue'],
      ['/v1/invoices?due_before=soon', 'due_before'],
      ['/v1/invoices?client_id=nope', 'client_id'],
      ['/v1/jobs?scheduled_from=monday', 'scheduled_from'],
      ['/v1/quotes?sort=total_amount', 'sort'],
      ['/v1/service-requests?sort=number', 'sort'],
      ['/v1/jobs?overdue=true', 'overdue'],
    ];
    for (const [url, field] of cases) {
      const response = await context.request('GET', url, { key });
      assert.equal(response.status, 422, `${url}: ${response.text}`);
      assert.deepEqual(
        response.body.error.details.map((detail: { field: string }) => detail.field),
        [field],
        url,
      );
    }
  });
});
