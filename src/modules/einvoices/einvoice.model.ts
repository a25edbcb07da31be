// The EN 16931 core invoice a BMS invoice or credit note stands for (docs/api-contract.md §31), format-neutral:
// what the UBL and CII writers print, with every amount already a decimal string in major units. Building it
// refuses what cannot be an e-invoice (BMS-EI-01…07, and missing party data, each with its EN 16931 rule id),
// so that every file written from a model is valid by construction: BT-106 = Σ BT-131 = subtotal_amount, one
// BG-23 per rate with BT-117 = round(BT-116 × rate) exactly, BT-110 = tax_amount, BT-112 = total_amount.
import type { ErrorDetail } from '../../core/errors.js';
import { minorUnitDigits } from '../../mail/document-mail.js';
import type { Address, ElectronicAddress, PaymentAccount } from '../shared/index.js';

/** A refusal's detail: the field at fault, why, and the rule (EN 16931's id, else BMS's own). */
export interface EinvoiceProblem extends ErrorDetail {
  rule: string;
}

export type EinvoiceKind = 'invoice' | 'credit_note';

export interface EinvoiceParty {
  /** BT-27 / BT-44. */
  name: string;
  /** BT-28 (the seller's trading name when it differs from its legal name). */
  trading_name: string | null;
  vat_id: string | null;
  /** BT-32 (the seller's tax registration that is not a VAT id). */
  tax_id: string | null;
  registration: { id: string; scheme: string | null } | null;
  electronic_address: ElectronicAddress | null;
  address: Address | null;
  phone: string | null;
  email: string | null;
}

export interface EinvoiceLine {
  /** BT-126. */
  id: string;
  /** BT-129: the quantity, negated with the price for a line below zero (BR-27). */
  quantity: string;
  unit_code: string;
  /** BT-146, never below zero. */
  price: string;
  /** BT-131. */
  net_amount: string;
  /** BG-27 (reason code 95): the line's discounts, or null. */
  allowance: string | null;
  /** BT-153. */
  name: string;
  category: string;
  /** BT-152; null for category O (written without a rate). */
  percent: string | null;
}

export interface EinvoiceBreakdown {
  category: string;
  percent: string | null;
  taxable: string;
  tax: string;
  exemption_reason: string | null;
  exemption_reason_code: string | null;
}

export interface EinvoiceModel {
  kind: EinvoiceKind;
  number: string;
  issue_date: string;
  due_date: string | null;
  currency: string;
  notes: string | null;
  payment_terms: string | null;
  buyer_reference: string | null;
  purchase_order: string | null;
  delivery_date: string | null;
  service_period: { start_date: string; end_date: string } | null;
  /** BT-25/26: the invoice a credit note cites. */
  preceding: { number: string; issue_date: string | null } | null;
  seller: EinvoiceParty;
  buyer: EinvoiceParty;
  /** BG-15: the property's address. */
  deliver_to: Address | null;
  payment_account: PaymentAccount | null;
  lines: EinvoiceLine[];
  breakdown: EinvoiceBreakdown[];
  totals: {
    line_total: string;
    tax_exclusive: string;
    tax: string;
    tax_inclusive: string;
    /** BT-113; null when nothing was paid (and always on a credit note). */
    prepaid: string | null;
    payable: string;
  };
}

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
