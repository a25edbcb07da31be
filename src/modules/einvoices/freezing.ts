// Freezing at send (docs/api-contract.md §31 "Frozen when sent"): with the account's e-invoicing on, the send of
// an invoice that can be an e-invoice builds its UBL and CII, validates both against the XSD and the Schematron
// in the rendering pool, and stores them with their hashes in the send's transaction; GET answers those bytes
// from then on. An invoice that cannot be one is sent without, unless its client asks for e-invoices
// (`einvoice_format`): then the send is refused with the reasons.
import { hash } from 'node:crypto';
import type { InvoiceRow } from '../../db/types.js';
import { ARTEFACTS } from '../../mail/einvoice-validation.js';
import type { Context } from '../../kernel/context.js';
import { getAccount } from '../accounts/index.js';
import { getClientRow } from '../clients/index.js';
import { readEinvoicing } from '../shared/index.js';
import { insertEinvoiceFiles } from './einvoices.repository.js';
import { einvoiceModel, refusal, writeModel, type XmlFormat } from './einvoices.service.js';
import type { EinvoiceValidator } from './validation.service.js';

const FORMATS: readonly XmlFormat[] = ['ubl', 'cii'];

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
  const sha256: Record<string, string | null> = { ubl: null, cii: null, facturx: null };
  const rows = [];
  for (const format of FORMATS) {
    const content = writeModel(model, format);
    const findings = await validator.validateEinvoice(content.toString('utf8'), format, tx.accountId);
    const fatal = findings.filter((finding) => finding.severity === 'fatal');
    // Valid by construction: a file that fails is BMS's fault, never stored and never sent.
    if (fatal.length > 0)
      throw new Error(`The ${format} e-invoice of ${invoice.id} is invalid: ${JSON.stringify(fatal.slice(0, 5))}`);
    sha256[format] = hash('sha256', content, 'hex');
    rows.push({
      invoice_id: invoice.id,
      format,
      account_id: tx.accountId,
      sha256: sha256[format] as string,
      content,
      created_at: now.toISOString(),
    });
  }
  await insertEinvoiceFiles(tx.db, rows);
  return JSON.stringify({
    sha256,
    frozen_at: now.toISOString(),
    artefacts: [...ARTEFACTS.ubl, ...ARTEFACTS.cii],
  });
}
