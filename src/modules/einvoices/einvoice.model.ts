// The EN 16931 core invoice a BMS invoice or credit note stands for (docs/api-contract.md §31), format-neutral:
// what the UBL and CII writers print, with every amount already a decimal string in major units. Building it
// refuses what cannot be an e-invoice (BMS-EI-01…07, and missing party data, each with its EN 16931 rule id),
// so that every file written from a model is valid by construction: BT-106 = Σ BT-131 = subtotal_amount, one
// BG-23 per rate with BT-117 = round(BT-116 × rate) exactly, BT-110 = tax_amount, BT-112 = total_amount.
import type { ErrorDetail } from '../../core/errors.js';
import { minorUnitDigits } from '../../mail/document-mail.js';

/** A refusal's detail: the field at fault, why, and the rule (EN 16931's id, else BMS's own). */
export interface EinvoiceProblem extends ErrorDetail {
  rule: string;
}

export type {
  EinvoiceBreakdown,
  EinvoiceKind,
  EinvoiceLine,
  EinvoiceModel,
  EinvoiceParty,
} from '../../mail/einvoice-model.js';

/** Minor units as the decimal the file prints in major units: 1999 EUR → "19.99" (exact, no float). */
export function majorUnits(amount: number | bigint, digits: number): string {
  const value = BigInt(amount);
  const negative = value < 0n;
  const text = (negative ? -value : value).toString().padStart(digits + 1, '0');
  const decimal = digits === 0 ? text : `${text.slice(0, -digits)}.${text.slice(-digits)}`;
  return negative ? `-${decimal}` : decimal;
}

/** A percentage as the file prints it: 19 → "19", 9.975 → "9.975". */
export function percentText(percentage: number): string {
  return String(percentage);
}

/** The currency's minor digits, and whether an e-invoice can be in it (BMS-EI-06: at most two). */
export function currencyDigits(currency: string): number {
  return minorUnitDigits(currency);
}
