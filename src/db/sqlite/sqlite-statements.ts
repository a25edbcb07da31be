// Statements of one better-sqlite3 connection: compiled once per SQL text and kept, read as arrays.
import type SqliteDatabase from 'better-sqlite3';

/**
 * What the engine uses of a statement. Rows are read as arrays and made into objects here: better-sqlite3
 * builds each row object property by property, and a list of 25 clients took twice as long that way (100 µs
 * against 54 µs, measured).
 */
/**
 * A function that makes a row object of a statement's values, written as one object literal: V8 makes such
 * objects from a template, ten times faster than adding the properties one by one (20 µs against 2 µs for 26
 * client rows). The names are the statement's own columns, written as string literals (JSON.stringify).
 */
function rowMaker(names: readonly string[]): (values: unknown[]) => Record<string, unknown> {
  if (names.includes('__proto__') || new Set(names).size !== names.length) {
    return (values) => {
      const row: Record<string, unknown> = {};
      for (let index = 0; index < names.length; index += 1) row[names[index]!] = values[index];
      return row;
    };
  }
  const fields = names.map((name, index) => `${JSON.stringify(name)}: values[${index}]`).join(', ');
  return new Function('values', `return { ${fields} };`) as (values: unknown[]) => Record<string, unknown>;
}

export class RowStatement {
  readonly reader: boolean;
  /** True when the statement cannot change the database file (a SELECT; not INSERT … RETURNING). */
  readonly readonly: boolean;
  private toRow: (values: unknown[]) => Record<string, unknown> = () => ({});
  private width = 0;

  constructor(private readonly statement: SqliteDatabase.Statement) {
    this.reader = statement.reader;
    this.readonly = statement.readonly;
    if (this.reader) {
      statement.raw(true);
      this.nameColumns();
    }
  }

  private nameColumns(): void {
    const names = this.statement.columns().map((column) => column.name);
    this.width = names.length;
    this.toRow = rowMaker(names);
  }

  /**
   * A statement prepared on a connection whose schema is older than the file's (a migration just added a
   * column on the writer) is prepared again by SQLite at its first step, with the new columns: name them then,
   * or `select *` would answer rows without them.
   */
  private named(values: unknown[]): Record<string, unknown> {
    if (values.length !== this.width) this.nameColumns();
    return this.toRow(values);
  }

  all(parameters: readonly unknown[]): Record<string, unknown>[] {
    const rows = this.statement.all(parameters) as unknown[][];
    if (rows.length > 0 && rows[0]!.length !== this.width) this.nameColumns();
    return rows.map(this.toRow);
  }

  /** The rows as better-sqlite3 reads them: an array of the values of each, in the columns' order. */
  values(parameters: readonly unknown[]): unknown[][] {
    return this.statement.all(parameters) as unknown[][];
  }

  run(parameters: readonly unknown[]): SqliteDatabase.RunResult {
    return this.statement.run(parameters);
  }

  *iterate(parameters: readonly unknown[]): IterableIterator<Record<string, unknown>> {
    for (const values of this.statement.iterate(parameters) as IterableIterator<unknown[]>) yield this.named(values);
  }
}

/**
 * better-sqlite3 compiles a statement on every `prepare`, and Kysely prepares each query afresh: the compile
 * was a quarter of the CPU time of a GET. Statements are cached by SQL text (bounded, least recently used
 * out), which is safe because better-sqlite3 runs each one to completion synchronously.
 */
export class StatementCache {
  private readonly statements = new Map<string, RowStatement>();
  private versionStatement: SqliteDatabase.Statement | undefined;

  constructor(
    readonly connection: SqliteDatabase.Database,
    private readonly size = 500,
  ) {}

  prepare(sqlText: string): RowStatement {
    let statement = this.statements.get(sqlText);
    if (statement) {
      this.statements.delete(sqlText);
    } else {
      statement = new RowStatement(this.connection.prepare(sqlText));
      if (this.statements.size >= this.size) this.statements.delete(this.statements.keys().next().value as string);
    }
    this.statements.set(sqlText, statement);
    return statement;
  }

  /**
   * SQLite's `PRAGMA data_version` on this connection: the same number while no other connection (this
   * process's writer, another process) has committed since, another one after any commit.
   */
  dataVersion(): number {
    this.versionStatement ??= this.connection.prepare('pragma data_version').pluck(true);
    return this.versionStatement.get() as number;
  }
}

/** The read connection's statements of each SQLite database (db/sqlite/sqlite.ts), by its Kysely instance. */
const readStatementsOf = new WeakMap<object, StatementCache>();

export function registerReadStatements(db: object, statements: StatementCache): void {
  readStatementsOf.set(db, statements);
}

/**
 * The read connection's statements when `db` is a SQLite database itself (not a transaction, which reads on
 * the writer): a SELECT outside a transaction runs there whether Kysely or the caller runs it.
 */
export function readStatements(db: object): StatementCache | undefined {
  return readStatementsOf.get(db);
}

/**
 * The data version of the read connection when `db` is a SQLite database itself (StatementCache.dataVersion):
 * what was read at one version is still what the database holds while the version is the same. Undefined on
 * PostgreSQL and inside a transaction.
 */
export function readDataVersion(db: object): number | undefined {
  return readStatementsOf.get(db)?.dataVersion();
}
