// The PostgreSQL engine (node-postgres): a bounded set of pipelined connections, and type parsers that make
// rows read exactly as they do on SQLite, so nothing above this file knows which engine answered.
import { createRequire } from 'node:module';
import type { Writable } from 'node:stream';
import {
  type CompiledQuery,
  type ConnectionProvider,
  type DatabaseConnection,
  Kysely,
  PostgresDialect,
  PostgresDriver,
  type QueryExecutor,
  type QueryResult,
  SingleConnectionProvider,
  type TransactionSettings,
} from 'kysely';
import type pg from 'pg';
import type { Tables } from '../types.js';

/** The PostgreSQL driver is loaded only when PostgreSQL is used: a SQLite process does not carry it. */
const loadPg = (): typeof pg => createRequire(import.meta.url)('pg') as typeof pg;

/**
 * Rows read the same as on SQLite: bigint as a number (every amount we store is below 2^53), a date as
 * its YYYY-MM-DD text (never a Date at local midnight), a timestamp as ISO 8601 text with milliseconds,
 * and json/jsonb as its JSON text (parsed by the code that reads it, as on SQLite). `db/types.ts` states
 * these forms. Each parser is made once (pg asks for them on every result).
 */
function typeParsers(driver: typeof pg): pg.CustomTypesConfig {
  const { builtins } = driver.types;
  const parseTimestamptz = driver.types.getTypeParser(builtins.TIMESTAMPTZ);
  const asNumber = (value: string) => Number(value);
  const asIso = (value: string) => isoOfUtcTimestamp(value) ?? (parseTimestamptz(value) as Date).toISOString();
  return {
    getTypeParser(oid: number, format?: 'text' | 'binary') {
      if (oid === builtins.INT8) return asNumber;
      if (oid === builtins.DATE || oid === builtins.JSON || oid === builtins.JSONB) return asText;
      if (oid === builtins.TIMESTAMPTZ) return asIso;
      return driver.types.getTypeParser(oid, format);
    },
  } as pg.CustomTypesConfig;
}

/** The parser of a value already in its final form (text, and date and JSON as their text): rowBuilder leaves it out. */
const asText = (value: string) => value;
/** pg's parser for a type it has none for (text, varchar, uuid, …): String(value), for a value that is text. */
let noParse: unknown;

/**
 * PostgreSQL's text for a timestamptz in a UTC session, `2026-11-27 01:02:03.123456+00` (1 to 6 digits of
 * fraction, or none), as `2026-11-27T01:02:03.123Z` by cutting and joining, without the Date that pg's parser
 * makes and `toISOString` takes apart again; the same text as theirs (milliseconds truncated). Any other form
 * (another time zone, a year past 9999, BC, infinity): undefined, for pg's parser.
 */
export function isoOfUtcTimestamp(value: string): string | undefined {
  const length = value.length;
  if (
    value.charCodeAt(4) !== 45 || // '-' after a four-digit year
    value.charCodeAt(10) !== 32 || // ' ' between date and time
    !value.endsWith('+00') ||
    (length !== 22 && (length < 24 || length > 29 || value.charCodeAt(19) !== 46)) // '.' before a fraction
  )
    return undefined;
  const milliseconds = length === 22 ? '000' : `${value.slice(20, length - 3)}00`.slice(0, 3);
  return `${value.slice(0, 10)}T${value.slice(11, 19)}.${milliseconds}Z`;
}

/**
 * Statements worth keeping prepared: queries and changes of rows, never DDL or several statements in one, nor
 * one that begins with a comment (plannedEachTime, db/engine.ts).
 */
const PREPARABLE = /^\s*(select|insert|update|delete|with)\b/i;
/** Prepared statements per connection at most; beyond, a query is parsed each time as before. */
const MAX_PREPARED = 2000;

type Query = (text: unknown, values?: unknown) => unknown;

/** What a statement's rows look like (pg's RowDescription, and the parsers and empty row made from it). */
interface Shape {
  fields: pg.FieldDef[];
  parsers: ((value: string) => unknown)[];
  empty: Record<string, null> | null;
  /** Makes a row of its values, as pg's Result.parseRow does; undefined where that is left to pg. */
  parseRow: ((values: (string | null)[]) => Record<string, unknown>) | undefined;
}

/**
 * A row maker for a statement's columns, written as one object literal with each column's parser called
 * only where it changes the value (pg's parseRow copies a template row and then sets each column by name,
 * calling every parser, String() for text included: 5 % of a 25-client list's CPU time). Undefined for a
 * shape it cannot write (a binary column, a `__proto__` column), left to pg.
 */
export function rowBuilder(
  fields: readonly { name: string; format?: string }[],
  parsers: readonly ((value: string) => unknown)[],
  identity: (parser: unknown) => boolean,
): Shape['parseRow'] {
  if (fields.length === 0 || fields.some((field) => field.format === 'binary' || field.name === '__proto__'))
    return undefined;
  const entries = fields.map((field, index) => {
    const value = `values[${index}]`;
    const parsed = identity(parsers[index]) ? value : `(${value} === null ? null : parsers[${index}](${value}))`;
    return `${JSON.stringify(field.name)}: ${parsed}`;
  });
  return new Function('parsers', `return function parseRow(values) { return { ${entries.join(', ')} }; };`)(
    parsers,
  ) as Shape['parseRow'];
}

/** pg's Query, private parts included: what `KnownShapeQuery` reads and replaces. */
interface PgQuery {
  text: string;
  name?: string;
  values: unknown[];
  portal: string;
  binary?: boolean;
  rows?: number;
  types?: unknown;
  _accumulateRows: boolean;
  _result: { fields: pg.FieldDef[]; _parsers?: Shape['parsers']; _prebuiltEmptyResultObject: Shape['empty'] };
  hasBeenParsed(connection: PgConnection): boolean;
  handleError(error: unknown, connection: PgConnection): void;
  _getRows(connection: PgConnection, rows?: number): void;
  prepare(connection: PgConnection): void;
}
interface PgConnection {
  submittedNamedStatements: Record<string, string>;
  parse(message: { text: string; name?: string; types?: unknown }): void;
  bind(message: object): void;
  close(message: { type: 'S'; name?: string }): void;
  sync(): void;
}
type Callback = (error: Error | null, result: pg.QueryResult) => void;
type QueryClass = new (
  name: string | undefined,
  text: string,
  values: unknown[],
  shape: Shape | undefined,
  callback: Callback,
) => PgQuery;

/**
 * pg's Query for a statement whose rows' shape is known from its first run: it is sent without Describe,
 * so PostgreSQL sends no RowDescription, and pg neither reads one nor builds parsers from it on every
 * run (the shape of a prepared statement's rows cannot change: PostgreSQL refuses to run it, 0A000, and it
 * is prepared afresh). Its configuration is given as text, which pg does not copy as it copies an object.
 */
function knownShapeQuery(driver: typeof pg): QueryClass {
  const { prepareValue } = createRequire(import.meta.url)('pg/lib/utils') as { prepareValue(value: unknown): unknown };
  const Base = driver.Query as unknown as new (text: string, values: unknown[], callback: Callback) => PgQuery;
  return class extends Base {
    readonly shape: Shape | undefined;
    constructor(
      name: string | undefined,
      text: string,
      values: unknown[],
      shape: Shape | undefined,
      callback: Callback,
    ) {
      super(text, values, callback);
      this.name = name;
      this.shape = shape;
      if (shape !== undefined) {
        this._result.fields = shape.fields;
        this._result._parsers = shape.parsers;
        this._result._prebuiltEmptyResultObject = shape.empty;
        if (shape.parseRow) (this._result as { parseRow?: Shape['parseRow'] }).parseRow = shape.parseRow;
        this._accumulateRows = true;
      }
    }
    // pg's own, without `connection.describe(...)`.
    override prepare(connection: PgConnection): void {
      if (this.shape === undefined) return super.prepare(connection);
      if (!this.hasBeenParsed(connection)) {
        connection.parse({ text: this.text, name: this.name, types: this.types });
        if (this.name) connection.submittedNamedStatements[this.name] = this.text;
      }
      try {
        connection.bind({
          portal: this.portal,
          statement: this.name,
          values: this.values,
          binary: this.binary,
          valueMapper: prepareValue,
        });
      } catch (error) {
        connection.close({ type: 'S', name: this.name });
        connection.sync();
        this.handleError(error, connection);
        return;
      }
      this._getRows(connection, this.rows);
    }
  } as unknown as QueryClass;
}

/**
 * Makes a connection keep its statements prepared, by name: each SQL text is parsed and planned once per
 * connection, and then only bound and executed (Kysely sends every query unnamed, so PostgreSQL parsed
 * each one on every request). Names are per connection, as PostgreSQL's prepared statements are; the shape
 * of each statement's rows is learnt once per process (`shapes`).
 */
function keepStatementsPrepared<Client extends { query: Query }>(
  client: Client,
  QueryOf: QueryClass,
  shapes: Map<string, Shape>,
): Client {
  const marked = client as Client & { bmsPrepared?: true };
  if (marked.bmsPrepared) return client;
  marked.bmsPrepared = true;
  const query = client.query.bind(client) as Query;
  const names = new Map<string, string>();
  let made = 0;
  const nameOf = (text: string): string | undefined => {
    let name = names.get(text);
    if (name === undefined && names.size < MAX_PREPARED) {
      name = `bms_${(made += 1)}`;
      names.set(text, name);
    }
    return name;
  };
  const run = (name: string | undefined, text: string, values: unknown[]) =>
    new Promise<pg.QueryResult>((resolve, reject) => {
      const shape = shapes.get(text);
      query(
        new QueryOf(name, text, values, shape, (error, result) => {
          if (error) return reject(error);
          if (shape === undefined && !shapes.has(text)) shapes.set(text, shapeOf(result));
          resolve(result);
        }),
      );
    });
  client.query = ((text: unknown, values?: unknown) => {
    if (typeof text !== 'string' || !Array.isArray(values) || values.length === 0) return query(text, values);
    const name = names.get(text) ?? (PREPARABLE.test(text) ? nameOf(text) : undefined);
    if (name === undefined) return query(text, values);
    return run(name, text, values).catch((error: { code?: string }) => {
      // A table's columns changed since the statement was prepared (a migration): prepare it afresh.
      if (error.code !== '0A000') throw error;
      if (names.get(text) === name) names.delete(text);
      shapes.delete(text);
      return run(nameOf(text), text, values);
    });
  }) as Query;
  return client;
}

function shapeOf(result: pg.QueryResult): Shape {
  const own = result as unknown as PgQuery['_result'];
  const parsers = own._parsers ?? [];
  return {
    fields: own.fields,
    parsers,
    empty: own._prebuiltEmptyResultObject,
    parseRow: rowBuilder(own.fields, parsers, (parser) => parser === asText || parser === noParse),
  };
}

/** Statements sent on one connection before PostgreSQL has answered them, at most. */
const MAX_PIPELINED = 16;
/** A connection unused this long is closed (the next busy moment opens it again). */
const IDLE_MS = 30_000;

type PgClient = pg.Client & { connection: { stream: Writable } };

/** One connection, in pipeline mode: statements are sent without waiting for the answers before them. */
interface Lane {
  readonly client: PgClient;
  readonly ready: Promise<void>;
  connected: boolean;
  dead: boolean;
  /** Statements sent outside a transaction and not yet answered. */
  inFlight: number;
  /** Held by a transaction: only its statements run here until it is given back. */
  lent: boolean;
  /** Kept for a waiting transaction: no new statement is sent here, and it is lent once answered. */
  reserved: boolean;
  /** Its socket's writes are held until the end of this event-loop turn. */
  corked: boolean;
  lastUsed: number;
}

/**
 * At most `max` connections, each in pipeline mode. A read outside a transaction (a SELECT taking no row
 * lock) goes to a shared connection: those sent in one event-loop turn go to the same connection and leave
 * in one socket write at the turn's end, and their answers come back in one read. Each one is still its own
 * extended-protocol exchange ending in Sync, so one failing does not touch the others. A transaction holds
 * a connection of its own from BEGIN to COMMIT or ROLLBACK, as a pool's would be: it takes an idle one,
 * opens one, or waits for one to finish the reads it was sent; so does a write outside a transaction, for
 * its one statement (a write can wait on a row lock, and the reads behind it on a shared connection would
 * wait with it, maybe for the very transaction holding that lock). A slow read still delays the reads sent
 * after it on its connection: the price of the pipeline.
 *
 * Measured (`bench/wrk-profile.ts get|list postgres`, wrk -c50): one socket write and one read per
 * statement were about half the process's CPU on the hot reads; batching them per turn halves it.
 */
class PipelinedConnections {
  private readonly lanes: Lane[] = [];
  /** The connection statements of this event-loop turn go to, while it takes more. */
  private batch: Lane | undefined;
  private readonly sharedWaiters: (() => void)[] = [];
  private readonly exclusiveWaiters: { resolve(lane: Lane): void; reject(error: unknown): void }[] = [];
  private readonly sweeper: NodeJS.Timeout;
  private ended = false;

  constructor(
    private readonly open: () => PgClient,
    private readonly max: number,
  ) {
    this.sweeper = setInterval(() => this.closeIdle(), IDLE_MS / 3);
    this.sweeper.unref();
  }

  /** Runs one statement outside a transaction. */
  async query(text: string, values: readonly unknown[]): Promise<pg.QueryResult> {
    if (!readsOnly(text)) {
      // A write can wait on a lock: it must not hold up the unrelated statements sent behind it.
      const lane = await this.lend();
      try {
        if (!lane.connected) await lane.ready;
        return await lane.client.query(text, values as unknown[]);
      } finally {
        this.giveBack(lane);
      }
    }
    let lane = this.sharedLane();
    while (lane === undefined) {
      await new Promise<void>((resolve) => this.sharedWaiters.push(resolve));
      lane = this.sharedLane();
    }
    lane.inFlight += 1;
    try {
      if (!lane.connected) await lane.ready;
      if (!lane.corked && !lane.dead) {
        lane.corked = true;
        lane.client.connection.stream.cork();
        this.batch = lane;
        setImmediate(() => this.flush(lane));
      }
      return await lane.client.query(text, values as unknown[]);
    } finally {
      lane.inFlight -= 1;
      lane.lastUsed = performance.now();
      if (lane.inFlight === 0 && (this.exclusiveWaiters.length > 0 || this.sharedWaiters.length > 0)) this.dispatch();
    }
  }

  /** A connection for a transaction, held until `giveBack`. */
  lend(): Promise<Lane> {
    if (this.ended) return Promise.reject(new Error('the PostgreSQL connections are closed'));
    return new Promise((resolve, reject) => {
      this.exclusiveWaiters.push({ resolve, reject });
      this.dispatch();
    });
  }

  giveBack(lane: Lane): void {
    lane.lent = false;
    lane.lastUsed = performance.now();
    // Still inside a transaction (its COMMIT or ROLLBACK never ran or failed): not for anyone else's reads.
    if (lane.connected && !lane.dead && transactionStatus(lane) !== 'I') {
      this.remove(lane);
      void this.close(lane);
      return;
    }
    this.dispatch();
  }

  async end(): Promise<void> {
    this.ended = true;
    clearInterval(this.sweeper);
    const error = new Error('the PostgreSQL connections are closed');
    for (const waiter of this.exclusiveWaiters.splice(0)) waiter.reject(error);
    for (const wake of this.sharedWaiters.splice(0)) wake();
    await Promise.all(this.lanes.splice(0).map((lane) => this.close(lane)));
  }

  private sharedLane(): Lane | undefined {
    if (this.ended) throw new Error('the PostgreSQL connections are closed');
    const batch = this.batch;
    if (batch !== undefined && batch.corked && usable(batch) && batch.inFlight < MAX_PIPELINED) return batch;
    let best: Lane | undefined;
    for (const lane of this.lanes)
      if (usable(lane) && (best === undefined || lane.inFlight < best.inFlight)) best = lane;
    if ((best === undefined || best.inFlight > 0) && this.lanes.length < this.max) return this.openLane();
    return best;
  }

  /**
   * Hands idle connections to waiting transactions (and writes), and keeps busy ones back for those still
   * waiting; never all of them when there are two or more: one stays with the shared reads, so a transaction
   * that reads outside itself cannot wait for ever on the others.
   */
  private dispatch(): void {
    const lendable = Math.max(1, this.max - 1);
    const wasReserved = this.lanes.filter((lane) => lane.reserved);
    for (const lane of wasReserved) lane.reserved = false;
    let lent = this.lanes.filter((lane) => lane.lent).length;
    while (this.exclusiveWaiters.length > 0 && lent < lendable) {
      const lane =
        this.lanes.find((candidate) => !candidate.dead && !candidate.lent && candidate.inFlight === 0) ??
        (this.lanes.length < this.max ? this.openLane() : undefined);
      if (lane === undefined) break;
      lane.lent = true;
      lent += 1;
      this.unCork(lane);
      this.exclusiveWaiters.shift()!.resolve(lane);
    }
    let reserved = 0;
    for (const lane of [...wasReserved, ...this.lanes]) {
      if (reserved >= this.exclusiveWaiters.length || lent + reserved >= lendable) break;
      if (usable(lane)) {
        lane.reserved = true;
        reserved += 1;
      }
    }
    if (this.sharedWaiters.length > 0 && (this.lanes.some(usable) || this.lanes.length < this.max))
      for (const wake of this.sharedWaiters.splice(0)) wake();
  }

  private openLane(): Lane {
    const client = this.open();
    const lane: Lane = {
      client,
      ready: client.connect().then(
        () => {
          lane.connected = true;
        },
        (error: unknown) => {
          this.remove(lane);
          throw error;
        },
      ),
      connected: false,
      dead: false,
      inFlight: 0,
      lent: false,
      reserved: false,
      corked: false,
      lastUsed: performance.now(),
    };
    lane.ready.catch(() => {});
    // A connection lost (PostgreSQL restarted, the session ended) fails its statements and is replaced.
    client.on('error', () => this.remove(lane));
    client.on('end', () => this.remove(lane));
    this.lanes.push(lane);
    return lane;
  }

  private remove(lane: Lane): void {
    if (lane.dead) return;
    lane.dead = true;
    lane.corked = false;
    const index = this.lanes.indexOf(lane);
    if (index >= 0) this.lanes.splice(index, 1);
    this.dispatch();
  }

  private flush(lane: Lane): void {
    if (this.batch === lane) this.batch = undefined;
    this.unCork(lane);
  }

  private unCork(lane: Lane): void {
    if (!lane.corked) return;
    lane.corked = false;
    lane.client.connection.stream.uncork();
  }

  private closeIdle(): void {
    const before = performance.now() - IDLE_MS;
    for (const lane of [...this.lanes])
      if (usable(lane) && lane.inFlight === 0 && lane.lastUsed < before) {
        this.remove(lane);
        void this.close(lane);
      }
  }

  private async close(lane: Lane): Promise<void> {
    lane.dead = true;
    try {
      await lane.client.end();
    } catch {
      // Already gone.
    }
  }
}

/** Reads that take no lock: they may share a connection, in a pipeline, with any other statement. */
const READ = /^\s*select\b/i;
const LOCKING = /\bfor\s+(update|share|no\s+key\s+update|key\s+share)\b/i;
const readsOnlyOf = new Map<string, boolean>();

function readsOnly(text: string): boolean {
  let known = readsOnlyOf.get(text);
  if (known === undefined) {
    known = READ.test(text) && !LOCKING.test(text);
    if (readsOnlyOf.size < MAX_PREPARED) readsOnlyOf.set(text, known);
  }
  return known;
}

function usable(lane: Lane): boolean {
  return !lane.dead && !lane.lent && !lane.reserved;
}

/** The connection's transaction state as its last answer gave it: I idle, T in a transaction, E in a failed one. */
function transactionStatus(lane: Lane): string | null {
  return (lane.client as PgClient & { getTransactionStatus(): string | null }).getTransactionStatus();
}

/**
 * Holds a transaction's connection's writes until the statements its work sends in this run of the microtask
 * queue are all queued (a tick queued from a promise's continuation runs once the queue is empty): BEGIN with the
 * first statement, and statements sent together (`Promise.all`), leave in one socket write instead of one each.
 * Measured (`bench/wrk-profile.ts create postgres`): the socket writes to PostgreSQL were the costliest calls.
 */
function corkForTurn(lane: Lane): void {
  if (lane.corked || lane.dead) return;
  lane.corked = true;
  const stream = lane.client.connection.stream;
  stream.cork();
  process.nextTick(() => {
    if (!lane.corked) return;
    lane.corked = false;
    stream.uncork();
  });
}

/** PostgreSQL's answer to a statement sent in a transaction that had already failed (in_failed_sql_transaction). */
const IN_FAILED_TRANSACTION = '25P02';
const ROLLBACK = /^\s*rollback\b/i;
const NO_ERROR: Promise<unknown> = Promise.resolve(undefined);

/** Kysely's connection: its statements go to a shared pipelined connection, or to its transaction's own. */
class PipelinedConnection implements DatabaseConnection {
  lane: Lane | undefined;
  /** The transaction's BEGIN, sent and not yet awaited: its first statement goes out right behind it. */
  beginning: Promise<unknown> | undefined;
  /** The error of the transaction's statement sent last (undefined when it succeeded), as `inTransaction` throws it. */
  private lastError: Promise<unknown> = NO_ERROR;
  /** Its transaction's COMMIT or ROLLBACK was sent: a statement after it would run outside the transaction. */
  private ended = false;

  constructor(readonly connections: PipelinedConnections) {}

  async executeQuery<Row>(compiled: CompiledQuery): Promise<QueryResult<Row>> {
    // Kysely's own ROLLBACK still goes out after a COMMIT that failed.
    if (this.ended && compiled.sql !== 'rollback')
      throw new Error('a statement sent after its transaction ended was not run');
    const { command, rowCount, rows } =
      this.lane === undefined
        ? await this.connections.query(compiled.sql, compiled.parameters)
        : await this.inTransaction(this.lane, compiled);
    return {
      numAffectedRows:
        command === 'INSERT' || command === 'UPDATE' || command === 'DELETE' || command === 'MERGE'
          ? BigInt(rowCount ?? 0)
          : undefined,
      rows: (rows ?? []) as Row[],
    };
  }

  /**
   * A statement of the transaction holding `lane`. The first one is sent before BEGIN has answered (one
   * round trip instead of two; the connection runs them in order), and answers only once BEGIN has: if
   * BEGIN failed, so does the statement's request, and the transaction is rolled back as any other. BEGIN
   * fails only when the connection does, and then so does everything sent behind it.
   *
   * Statements sent together (`sendWithoutQueue`) are answered in the order sent, but their callers may hear
   * in another order (more awaits on one caller's way than on another's). So a statement that PostgreSQL
   * refused because one before it had failed (25P02) throws the error of that one: whichever caller hears
   * first, the transaction fails with its first failure (a unique value taken: 409, not 500). A statement sent
   * once the transaction is known to have failed (a caller going on after the one that failed), or after its
   * COMMIT or ROLLBACK, is not sent: after a ROLLBACK (TO SAVEPOINT) it would run outside what it was part of.
   */
  private async inTransaction(lane: Lane, compiled: CompiledQuery): Promise<pg.QueryResult> {
    const ends = compiled.sql === 'commit' || compiled.sql === 'rollback';
    if (!ends && !ROLLBACK.test(compiled.sql) && transactionStatus(lane) === 'E')
      throw (await this.lastError) ?? new Error('a statement sent after its transaction failed was not run');
    if (ends) this.ended = true;
    const beginning = this.beginning;
    corkForTurn(lane);
    const statement = lane.client.query(compiled.sql, compiled.parameters as unknown[]) as Promise<pg.QueryResult>;
    const before = this.lastError;
    const failed = statement.then(
      () => undefined,
      async (error: { code?: unknown }) => (error?.code === IN_FAILED_TRANSACTION ? ((await before) ?? error) : error),
    );
    this.lastError = failed;
    if (beginning !== undefined) {
      this.beginning = undefined;
      const [begun] = await Promise.allSettled([beginning, statement]);
      if (begun.status === 'rejected') throw begun.reason;
    }
    const result = await statement.catch(async () => {
      throw await failed;
    });
    // PostgreSQL answers the COMMIT of a transaction that had failed (a statement's error caught and
    // ignored) with ROLLBACK: nothing was committed, and the caller must not answer as if it had been.
    if (result.command === 'ROLLBACK' && compiled.sql === 'commit')
      throw new Error('the transaction failed before its COMMIT, and was rolled back');
    return result;
  }

  /** Never used: nothing streams, and Kysely's own driver cannot either without a cursor configured. */
  streamQuery<Row>(): AsyncIterableIterator<QueryResult<Row>> {
    throw new Error('streaming rows is not supported on PostgreSQL');
  }
}

/** Kysely's PostgreSQL driver over `PipelinedConnections`: BEGIN, COMMIT and savepoints are Kysely's own. */
class PipelinedDriver extends PostgresDriver {
  constructor(private readonly connections: PipelinedConnections) {
    super({ pool: {} as never });
  }

  override async init(): Promise<void> {}

  override async acquireConnection(): Promise<DatabaseConnection> {
    return new PipelinedConnection(this.connections);
  }

  override async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    const own = connection as PipelinedConnection;
    own.lane = await this.connections.lend();
    try {
      if (!own.lane.connected) await own.lane.ready;
      if (settings.isolationLevel === undefined && settings.accessMode === undefined) {
        // Sent now, awaited with the transaction's first statement (`inTransaction`), in one write with it.
        corkForTurn(own.lane);
        own.beginning = own.lane.client.query('begin');
        own.beginning.catch(() => {});
        return;
      }
      await super.beginTransaction(connection, settings);
    } catch (error) {
      this.connections.giveBack(own.lane);
      own.lane = undefined;
      throw error;
    }
  }

  override async releaseConnection(connection: DatabaseConnection): Promise<void> {
    const own = connection as PipelinedConnection;
    if (own.lane === undefined) return;
    if (own.beginning !== undefined) await own.beginning.catch(() => {});
    own.beginning = undefined;
    this.connections.giveBack(own.lane);
    own.lane = undefined;
  }

  override async destroy(): Promise<void> {
    await this.connections.end();
  }
}

/** At most `poolMax` connections, each statement bounded to 30 s. */
export function openPostgres(url: string, poolMax: number): Kysely<Tables> {
  const driver = loadPg();
  const types = typeParsers(driver);
  noParse = driver.types.getTypeParser(0 as never, 'text');
  const QueryOf = knownShapeQuery(driver);
  const shapes = new Map<string, Shape>();
  const open = (): PgClient => {
    const client = new driver.Client({
      connectionString: url,
      connectionTimeoutMillis: 5_000,
      // A runaway query cannot hold a connection (and its locks) for ever.
      statement_timeout: 30_000,
      types,
      pipeline: true,
    } as pg.ClientConfig);
    // No JIT compilation: PostgreSQL starts it by a plan's estimated cost, which counts the parts a one-time
    // filter never runs, so a search reading 26 rows spent 40 ms compiling (docs/decisions.md). Set once
    // connected, not as a startup `options`, which would replace the URL's own `options` or PGOPTIONS (or be
    // replaced by them).
    const connect: () => Promise<unknown> = client.connect.bind(client);
    (client as unknown as { connect(): Promise<unknown> }).connect = () =>
      connect().then(async (connected) => {
        await client.query('set jit = off');
        return connected;
      });
    return keepStatementsPrepared(client, QueryOf, shapes) as PgClient;
  };
  const connections = new PipelinedConnections(open, poolMax);
  const db = new Kysely<Tables>({
    dialect: new (class extends PostgresDialect {
      override createDriver() {
        return new PipelinedDriver(connections);
      }
    })({ pool: {} as never }),
  });
  sendWithoutQueue(db.getExecutor());
  return db;
}

/**
 * Kysely runs a transaction's statements one after the other (its SingleConnectionProvider waits for each
 * statement's answer before handing the connection to the next), so statements a transaction sends together
 * (`Promise.all`) still cost a round trip each. The transaction's connection is pipelined: here it is handed to
 * every statement at once, so they leave together (in one socket write: `corkForTurn`) and PostgreSQL runs them
 * in the order sent; their answers come back in that order. A failed statement fails those sent behind it, as
 * PostgreSQL refuses them once the transaction has failed. Transactions (and `connection()`) are given their
 * connection by `withConnectionProvider` of the instance's executor, which this replaces.
 */
function sendWithoutQueue(executor: QueryExecutor): void {
  const withProvider = executor.withConnectionProvider.bind(executor);
  executor.withConnectionProvider = (provider: ConnectionProvider) =>
    withProvider(provider instanceof SingleConnectionProvider ? new UnqueuedProvider(provider) : provider);
}

/** The one connection of a transaction, given to each statement without waiting for those before it. */
class UnqueuedProvider implements ConnectionProvider {
  private readonly connection: Promise<DatabaseConnection>;

  constructor(single: SingleConnectionProvider) {
    this.connection = single.provideConnection(async (connection) => connection);
  }

  async provideConnection<T>(consumer: (connection: DatabaseConnection) => Promise<T>): Promise<T> {
    return consumer(await this.connection);
  }
}
