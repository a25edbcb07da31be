// Reading an import's file and writing its errors.csv (docs/api-contract.md §26, §32): csv-parse reads the records
// as a stream (never the whole file as records at once), checked against the limits; csv-stringify writes the
// failed rows back with an `errors` column, each text cell that a spreadsheet would read as a formula escaped.
import { Readable } from 'node:stream';
import { parse } from 'csv-parse';
import { stringify } from 'csv-stringify/sync';
import { escapeFormula } from '../../core/csv-cells.js';
import type { ImportOptions } from './imports.schemas.js';

/** §32's limits of a file: data records (invoice lines), columns, and characters a cell. */
export const IMPORT_LIMITS = { bytes: 10 * 1024 * 1024, rows: 50_000, columns: 200, cellCharacters: 10_000 };

const DELIMITERS: Record<ImportOptions['delimiter'], string> = { comma: ',', semicolon: ';', tab: '\t' };

/** Why a file cannot be imported at all: the import fails with it and nothing is written. */
export class FileProblem extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export interface CsvRecord {
  /** The record's number: the header is 1 (a cell's own line breaks do not count). */
  line: number;
  /** Its cells by column name. */
  cells: Record<string, string>;
}

/** The header's columns, then each record; throws FileProblem past a limit or at a malformed record. */
export async function* readRecords(
  file: string,
  delimiter: ImportOptions['delimiter'],
): AsyncGenerator<{ header: string[] } | CsvRecord> {
  const parser = Readable.from([file]).pipe(
    parse({ delimiter: DELIMITERS[delimiter], bom: true, skip_empty_lines: true, relax_column_count: false }),
  );
  let header: string[] | undefined;
  let line = 0;
  try {
    for await (const values of parser as AsyncIterable<string[]>) {
      line += 1;
      if (!header) {
        header = values.map((value) => value.trim());
        if (header.length > IMPORT_LIMITS.columns)
          throw new FileProblem('too_many_columns', `The file has ${header.length} columns; at most 200 are read.`);
        const repeated = header.find((column, index) => column === '' || header?.indexOf(column) !== index);
        if (repeated !== undefined)
          throw new FileProblem('invalid_header', `The header names a column twice, or one without a name.`);
        yield { header };
        continue;
      }
      if (line - 1 > IMPORT_LIMITS.rows)
        throw new FileProblem('too_many_rows', `The file has more than ${IMPORT_LIMITS.rows} rows.`);
      const cells: Record<string, string> = {};
      for (const [index, column] of header.entries()) {
        const value = values[index] ?? '';
        if (value.length > IMPORT_LIMITS.cellCharacters)
          throw new FileProblem(
            'cell_too_long',
            `Line ${line}, column ${column}: a cell holds at most ${IMPORT_LIMITS.cellCharacters} characters.`,
          );
        cells[column] = value;
      }
      yield { line, cells };
    }
  } catch (error) {
    if (error instanceof FileProblem) throw error;
    throw new FileProblem('invalid_csv', `The file is not CSV as the options describe it: ${(error as Error).message}`);
  }
  if (!header) throw new FileProblem('empty_file', 'The file has no header row.');
}

/** The bytes as UTF-8 text, or undefined when they are not UTF-8. */
export function utf8Text(bytes: Buffer): string | undefined {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

/** errors.csv: the failed rows' records as sent, in the file's columns, and an `errors` column. */
export function errorsCsv(records: Record<string, string>[], errors: string[]): string {
  const columns = [...new Set(records.flatMap((record) => Object.keys(record)))];
  const rows = records.map((record, index) => [
    ...columns.map((column) => escapeFormula(record[column] ?? '')),
    escapeFormula(errors[index] ?? ''),
  ]);
  return `\uFEFF${stringify([[...columns, 'errors'], ...rows], { record_delimiter: '\r\n' })}`;
}
