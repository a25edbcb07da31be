// The EN 16931 core invoice as the UBL and CII writers print it (mail/einvoice-ubl.ts, mail/einvoice-cii.ts),
// format-neutral, every amount already a decimal string in major units: what modules/einvoices builds (and checks)
// from a BMS invoice or credit note (docs/api-contract.md §31). Plain data, so that it can be handed to the
// rendering pool's threads, which write and validate the files off the event loop.

/** A postal address as the files print it. */
export interface EinvoiceAddress {
  line1: string | null;
  line2: string | null;
  city: string | null;
  region: string | null;
  postal_code: string | null;
  country: string | null;
}

/** BT-34 / BT-49: an electronic address under its EAS scheme. */
export interface EinvoiceElectronicAddress {
  scheme: string;
  value: string;
}

/** BG-17: the account paid into. */
export interface EinvoicePaymentAccount {
  iban: string;
  bic: string | null;
  name: string | null;
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
  electronic_address: EinvoiceElectronicAddress | null;
  address: EinvoiceAddress | null;
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
  deliver_to: EinvoiceAddress | null;
  payment_account: EinvoicePaymentAccount | null;
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
