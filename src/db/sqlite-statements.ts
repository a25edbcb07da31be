// Statements of one better-sqlite3 connection: compiled once per SQL text and kept, read as arrays.
import type SqliteDatabase from 'better-sqlite3';

/**
 * What the engine uses of a statement. Rows are read as arrays and made into objects here: better-sqlite3
 * builds each row object property by property, and a list of 25 clients took twice as long that way (100 µs
 * against 54 µs, measured).
 */
export class RowStatement {
  readonly reader: boolean;
  /** True when the statement cannot change the database file (a SELECT; not INSERT … RETURNING). */
  readonly readonly: boolean;
  private readonly names: string[] = [];

  constructor(private readonly statement: SqliteDatabase.Statement) {
    this.reader = statement.reader;
    this.readonly = statement.readonly;
    if (this.reader) {
      statement.raw(true);
      this.names = statement.columns().map((column) => column.name);
    }
  }

  private toRow(values: unknown[]): Record<string, unknown> {
    const row: Record<string, unknown> = {};
    for (let index = 0; index < this.names.length; index += 1) row[this.names[index]!] = values[index];
    return row;
  }

  all(parameters: readonly unknown[]): Record<string, unknown>[] {
    return (this.statement.all(parameters) as unknown[][]).map((values) => this.toRow(values));
  }

  run(parameters: readonly unknown[]): SqliteDatabase.RunResult {
    return this.statement.run(parameters);
  }

  *iterate(parameters: readonly unknown[]): IterableIterator<Record<string, unknown>> {
    for (const values of this.statement.iterate(parameters) as IterableIterator<unknown[]>) yield this.toRow(values);
  }
}

/**
 * better-sqlite3 compiles a statement on every `prepare`, and Kysely prepares each query afresh: the compile
 * was a quarter of the CPU time of a GET. Statements are cached by SQL text (bounded, least recently used
 * out), which is safe because better-sqlite3 runs each one to completion synchronously.
 */
export class StatementCache {
  private readonly statements = new Map<string, RowStatement>();

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
}
