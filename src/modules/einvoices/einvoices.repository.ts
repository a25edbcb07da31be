// The frozen e-invoice files of sent invoices (docs/api-contract.md §31). Every query is scoped by account.
import type { Executor } from '../../db/index.js';
import type { EinvoiceFilesTable } from '../../db/types.js';

export async function insertEinvoiceFiles(db: Executor, rows: EinvoiceFilesTable[]): Promise<void> {
  await db.insertInto('einvoice_files').values(rows).execute();
}

export async function findEinvoiceFile(
  db: Executor,
  accountId: string,
  documentId: string,
  format: string,
): Promise<{ content: Buffer; sha256: string } | undefined> {
  return db
    .selectFrom('einvoice_files')
    .select(['content', 'sha256'])
    .where('account_id', '=', accountId)
    .where('document_id', '=', documentId)
    .where('format', '=', format)
    .executeTakeFirst();
}
