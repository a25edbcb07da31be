// The floor of the stack (issue 36), NOT BMS: a minimal Fastify + better-sqlite3 server on a copy of the
// database BMS was seeded with in the same run, answering BMS's three hot requests with the same bodies:
// GET /v1/clients/:id, GET /v1/clients?limit=25 and POST /v1/clients (durable: WAL, synchronous=FULL, each
// request's inserts in a savepoint, one COMMIT per event-loop turn, nobody answered before that COMMIT).
// It writes what a BMS create writes (the client row, whose triggers queue its search row, the batch's FTS5
// rows before COMMIT, the client.created event) and reads what BMS reads. Nothing else: no authentication,
// no rate limit, no validation, no ETag, no security headers, no idempotency, no webhooks. That is the point.
// `node bench/prototype.mjs <port> <database file> <account id> <none|info|fastify>`:
// none: no logger; info: Fastify's pino logger (`logger: true`, to stdout) with one line per request, the
// shape of BMS's line; fastify: Fastify's default request logging (two lines per request).
import { randomBytes } from 'node:crypto';
import Database from 'better-sqlite3';
import Fastify, { LogController } from 'fastify';
import { v7 as uuidv7 } from 'uuid';

const [portText, file, accountId, logging = 'none'] = process.argv.slice(2);

const writer = new Database(file);
writer.pragma('journal_mode = WAL');
writer.pragma('synchronous = FULL');
writer.pragma('foreign_keys = ON');
writer.pragma('busy_timeout = 5000');
// As BMS's writer: each savepoint's sub-journal in memory, not in a temporary file.
writer.pragma('temp_store = memory');
// Reads on a second connection, as BMS does: they see committed rows only.
const reader = new Database(file);
reader.pragma('query_only = ON');
reader.pragma('busy_timeout = 5000');

const COLUMNS =
  'id, name, email, phone, company_name, address, notes, property_ids, external_id, metadata, created_at, updated_at';
const byId = reader.prepare(`select ${COLUMNS} from clients where account_id = ? and id = ?`);
const page = reader.prepare(
  `select ${COLUMNS} from clients where account_id = ? order by created_at desc, id desc limit ?`,
);

const begin = writer.prepare('begin immediate');
const commit = writer.prepare('commit');
const rollback = writer.prepare('rollback');
const savepoint = writer.prepare('savepoint request');
const release = writer.prepare('release request');
const rollbackTo = writer.prepare('rollback to request');
const insertClient = writer.prepare(
  `insert into clients (id, account_id, name, sort_name, email, phone, company_name, address, notes, external_id,
   metadata, created_at, updated_at) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
);
const insertEvent = writer.prepare(
  `insert into events (id, account_id, type, resource_id, data, created_at, actor_type, actor_id)
   values (?, ?, 'client.created', ?, ?, ?, 'api_key', ?)`,
);
// The search rows of the batch's clients, as BMS makes them once per batch (src/db/client-search.ts).
const indexQueued = writer.prepare(
  `insert into clients_fts (rowid, body) select q.search_id, c.name || char(10) || coalesce(c.email, '') || char(10)
   || coalesce(c.phone, '') || char(10) || coalesce(c.company_name, '') from client_search_pending q
   cross join client_search_keys k cross join clients c where k.search_id = q.search_id and c.id = k.client_id`,
);
const clearQueued = writer.prepare('delete from client_search_pending');
/** Stands for the API key BMS records as the event's actor (the prototype has none). */
const ACTOR = uuidv7();

/** The open batch: one transaction for every create of this event-loop turn, committed at the turn's end. */
let batch;

function enterBatch() {
  if (batch) return batch.committed;
  begin.run();
  let resolve;
  let reject;
  const committed = new Promise((ok, fail) => {
    resolve = ok;
    reject = fail;
  });
  batch = { committed, resolve, reject };
  setImmediate(commitBatch);
  return committed;
}

function commitBatch() {
  const current = batch;
  batch = undefined;
  try {
    indexQueued.run();
    clearQueued.run();
    commit.run(); // synchronous=FULL: the log is on disk when this returns
    current.resolve();
  } catch (error) {
    if (writer.inTransaction) rollback.run();
    current.reject(error);
  }
}

/** Request ids as BMS makes them: `req_` and 32 hex digits, from a pooled CSPRNG read. */
let pool = Buffer.alloc(0);
let offset = 0;
function requestId() {
  if (offset + 16 > pool.length) {
    pool = randomBytes(4096);
    offset = 0;
  }
  offset += 16;
  return `req_${pool.toString('hex', offset - 16, offset)}`;
}

const EMPTY_ADDRESS = '{"line1":null,"line2":null,"city":null,"region":null,"postal_code":null,"country":null}';

function present(row) {
  return {
    id: row.id,
    object: 'client',
    name: row.name,
    email: row.email,
    phone: row.phone,
    company_name: row.company_name,
    address: JSON.parse(row.address ?? EMPTY_ADDRESS),
    notes: row.notes,
    property_ids: JSON.parse(row.property_ids),
    external_id: row.external_id,
    metadata: JSON.parse(row.metadata),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

const meta = (request) => ({ request_id: request.id, timestamp: new Date().toISOString() });

const app = Fastify({
  logger: logging !== 'none',
  ...(logging === 'info' ? { logController: new LogController({ disableRequestLogging: true }) } : {}),
  genReqId: requestId,
});
if (logging === 'info')
  app.addHook('onResponse', (request, reply, done) => {
    request.log.info(
      {
        method: request.method,
        url: request.url,
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime * 10) / 10,
      },
      'request',
    );
    done();
  });

app.get('/health', async () => ({ status: 'ok' }));

app.get('/v1/clients/:id', async (request, reply) => {
  const row = byId.get(accountId, request.params.id);
  if (!row) return reply.code(404).send({ error: { code: 'not_found' }, meta: meta(request) });
  return { data: present(row), meta: meta(request) };
});

app.get('/v1/clients', async (request, reply) => {
  const limit = Math.min(100, Math.max(1, Number(request.query.limit ?? 25)));
  const rows = page.all(accountId, limit + 1);
  const hasMore = rows.length > limit;
  if (hasMore) rows.pop();
  const last = rows.at(-1);
  const cursor = hasMore
    ? Buffer.from(JSON.stringify(['-created_at', last.created_at, last.id])).toString('base64url')
    : null;
  if (cursor) reply.header('link', `</v1/clients?limit=${limit}&cursor=${cursor}>; rel="next"`);
  return {
    data: rows.map(present),
    meta: { ...meta(request), pagination: { limit, has_more: hasMore, next_cursor: cursor } },
  };
});

app.post('/v1/clients', async (request, reply) => {
  const body = request.body;
  const address = body.address ?? {};
  const now = new Date().toISOString();
  const client = {
    id: uuidv7(),
    object: 'client',
    name: body.name,
    email: body.email ?? null,
    phone: body.phone ?? null,
    company_name: body.company_name ?? null,
    address: {
      line1: address.line1 ?? null,
      line2: address.line2 ?? null,
      city: address.city ?? null,
      region: address.region ?? null,
      postal_code: address.postal_code ?? null,
      country: address.country ?? null,
    },
    notes: body.notes ?? null,
    property_ids: [],
    external_id: body.external_id ?? null,
    metadata: body.metadata ?? {},
    created_at: now,
    updated_at: now,
  };
  const committed = enterBatch();
  savepoint.run();
  try {
    insertClient.run(
      client.id,
      accountId,
      client.name,
      client.name.toLowerCase(),
      client.email,
      client.phone,
      client.company_name,
      JSON.stringify(client.address),
      client.notes,
      client.external_id,
      JSON.stringify(client.metadata),
      now,
      now,
    );
    insertEvent.run(uuidv7(), accountId, client.id, JSON.stringify({ object: client }), now, ACTOR);
    release.run();
  } catch (error) {
    rollbackTo.run();
    release.run();
    throw error;
  }
  await committed;
  reply.code(201).header('location', `/v1/clients/${client.id}`);
  return { data: client, meta: meta(request) };
});

await app.listen({ port: Number(portText), host: '127.0.0.1' });
process.send?.('ready');
