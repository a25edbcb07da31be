// Freezing (docs/api-contract.md §31 "Frozen when sent"): with the account's e-invoicing on, the send of an
// invoice that can be an e-invoice (and the issue of such a credit note) builds its UBL and CII, validates both
// against the XSD and the Schematron in the rendering pool, renders its Factur-X there (checking the embedding),
// all outside the send's transaction, and stores the three with their hashes in it; GET and validate answer
// those bytes from then on.
// An invoice that cannot be one is sent without, unless its client asks for e-invoices (`einvoice_format`): then
// the send is refused with the reasons.
import { hash } from 'node:crypto';
import type { CreditNoteRow, EinvoiceFilesTable, InvoiceRow } from '../../db/types.js';
import { ARTEFACTS, type ValidationFinding } from '../../mail/einvoice-validation.js';
import type { Executor } from '../../db/index.js';
import { type Context, WorkOutside } from '../../kernel/context.js';
import { getAccount } from '../accounts/index.js';
import { getClientRow } from '../clients/index.js';
import { type DocumentPrint, documentPrint, printEtag, renderPrint } from '../sent-documents/index.js';
import { readEinvoicing } from '../shared/index.js';
import type { EinvoiceKind, EinvoiceModel } from './einvoice.model.js';
import { insertEinvoiceFiles } from './einvoices.repository.js';
import { type EinvoiceFormat, einvoiceModel, refusal, type XmlFormat } from './einvoices.service.js';
import { type EinvoiceValidator, embeddingFindings, writtenFindings } from './validation.service.js';

const FORMATS: readonly XmlFormat[] = ['ubl', 'cii'];

/** Valid by construction: a file that fails is BMS's fault, never stored and never sent. */
function assertValid(findings: ValidationFinding[], format: EinvoiceFormat, kind: EinvoiceKind, id: string): void {
  const fatal = findings.filter((finding) => finding.severity === 'fatal');
  if (fatal.length > 0)
    throw new Error(`The ${format} e-invoice of ${kind} ${id} is invalid: ${JSON.stringify(fatal.slice(0, 5))}`);
}

/**
 * Writes and validates the document's files: the UBL and the CII, then the Factur-X rendered from its print with
 * that CII embedded (stored, so that a later change of the profile, the logo or the layout never alters what was
 * sent). Needs no transaction: `db` is read only for a logo the pool does not keep.
 */
async function buildFiles(
  db: Executor,
  validator: EinvoiceValidator,
  kind: EinvoiceKind,
  id: string,
  model: EinvoiceModel,
  print: DocumentPrint,
): Promise<Map<EinvoiceFormat, Buffer>> {
  const files = new Map<EinvoiceFormat, Buffer>();
  for (const format of FORMATS) {
    // Written and validated in the pool; past its time limit the send is refused with 503: nothing is frozen.
    const { xml, findings } = await writtenFindings(validator, model, format, print.accountId);
    assertValid(findings, format, kind, id);
    files.set(format, xml);
  }
  const facturx = await renderPrint(validator, db, print, files.get('cii')!);
  assertValid(embeddingFindings(facturx), 'facturx', kind, id);
  files.set('facturx', facturx);
  return files;
}

/**
 * What the files are made from, but the document's id and `updated_at`, which no file states (the PDF's creation
 * date aside): the same on every run of the send's transaction while nothing the files say has changed.
 */
function filesKey(kind: EinvoiceKind, model: EinvoiceModel, print: DocumentPrint): string {
  const { id: _id, updated_at: _updatedAt, ...document } = print.snapshot.document;
  const printed = printEtag({
    ...print,
    snapshot: { ...print.snapshot, document: document as DocumentPrint['snapshot']['document'] },
  });
  return `einvoice:${kind}:${hash('sha256', JSON.stringify([model, printed]), 'hex')}`;
}

/**
 * Stores the document's files with their hashes; answers their hex SHA-256 by format. Building and validating
 * them takes the pool a while, so it is done outside the transaction (docs/decisions.md "E-invoices: freezing
 * outside the writer"): the first run of the transaction asks for the files of what it read (`WorkOutside`), and
 * the run after stores them when what it reads still makes the same files.
 */
async function storeFiles(
  tx: Context,
  validator: EinvoiceValidator,
  kind: EinvoiceKind,
  id: string,
  model: EinvoiceModel,
  now: Date,
): Promise<Record<EinvoiceFormat, string>> {
  const print = await documentPrint(tx, kind, id, now);
  const key = filesKey(kind, model, print);
  let files = tx.outside?.done.get(key) as Map<EinvoiceFormat, Buffer> | undefined;
  if (files === undefined && tx.outside !== undefined && !tx.outside.last)
    throw new WorkOutside(key, (outside) => buildFiles(outside.db, validator, kind, id, model, print));
  // In a transaction `inTransaction` did not open (a change set's), or on the last run after the invoice kept
  // changing under two builds: built here, holding the transaction, as every send once did.
  files ??= await buildFiles(tx.db, validator, kind, id, model, print);
  const sha256 = {} as Record<EinvoiceFormat, string>;
  const rows: EinvoiceFilesTable[] = [];
  for (const [format, content] of files) {
    sha256[format] = hash('sha256', content, 'hex');
    rows.push({
      document_id: id,
      format,
      document_type: kind,
      account_id: tx.accountId,
      sha256: sha256[format],
      content,
      created_at: now.toISOString(),
    });
  }
  await insertEinvoiceFiles(tx.db, rows);
  return sha256;
}

/** The invoice's `einvoice` column once frozen, or undefined when nothing is frozen. */
export async function freezeEinvoice(
  tx: Context,
  validator: EinvoiceValidator,
  invoice: InvoiceRow,
): Promise<string | undefined> {
  const enabled = (await getAccount(tx.db, tx.accountId)).einvoicing_enabled;
  const wanted = readEinvoicing((await getClientRow(tx, invoice.client_id)).einvoicing).einvoice_format !== null;
  if (!enabled && !wanted) return undefined;
  const now = tx.clock.now();
  const { model, problems } = await einvoiceModel(tx, 'invoice', invoice.id, now);
  if (model === null) {
    if (wanted) throw refusal('invoice', problems);
    return undefined;
  }
  if (!enabled) return undefined;
  const sha256 = await storeFiles(tx, validator, 'invoice', invoice.id, model, now);
  return JSON.stringify({
    sha256,
    frozen_at: now.toISOString(),
    artefacts: [...ARTEFACTS.ubl, ...ARTEFACTS.cii],
  });
}

/** At a credit note's issue, with e-invoicing on: its files, when it can be an e-invoice. */
export async function freezeCreditNote(tx: Context, validator: EinvoiceValidator, note: CreditNoteRow): Promise<void> {
  if (!(await getAccount(tx.db, tx.accountId)).einvoicing_enabled) return;
  const now = tx.clock.now();
  const { model } = await einvoiceModel(tx, 'credit_note', note.id, now);
  if (model !== null) await storeFiles(tx, validator, 'credit_note', note.id, model, now);
}
