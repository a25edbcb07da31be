// From a BMS document to its EN 16931 model (einvoice.model.ts), or the reasons it cannot be one. A pure
// function of what it is given: the same document, profile and client always give the same model, hence
// the same bytes (docs/api-contract.md §31 "Valid by construction" and "Not e-invoices").
import type { Address, ElectronicAddress, PaymentAccount } from '../shared/index.js';
import {
  currencyDigits,
  type EinvoiceBreakdown,
  type EinvoiceKind,
  type EinvoiceLine,
  type EinvoiceModel,
  type EinvoiceProblem,
  majorUnits,
  percentText,
} from './einvoice.model.js';

/** What the model reads of a document's line (the API's line object). */
export interface SourceLine {
  description: string;
  quantity: number;
  unit_amount: number;
  unit_code: string | null;
  discount_amount: number;
  amount: number;
  taxes: Array<{ tax_rate_id: string | null; percentage: number; compound: boolean; amount: number }>;
}

export interface SourceDocument {
  number: string | null;
  issue_date: string | null;
  due_date: string | null;
  currency: string;
  notes: string | null;
  line_items: SourceLine[];
  prices_include_tax: boolean;
  rounding: 'per_line' | 'per_document';
  tax_breakdown: Array<{ tax_rate_id: string | null; percentage: number; taxable_amount: number; tax_amount: number }>;
  subtotal_amount: number;
  tax_amount: number;
  total_amount: number;
  buyer_reference: string | null;
  purchase_order: string | null;
  delivery_date: string | null;
  service_period: { start_date: string; end_date: string } | null;
  /** BT-113: paid and credited when the e-invoice is made (0 on a credit note). */
  prepaid_amount: number;
}

export interface SourceSeller {
  name: string;
  legal_name: string | null;
  email: string | null;
  phone: string | null;
  address: Address | null;
  tax_id: string | null;
  vat_id: string | null;
  registration_id: string | null;
  registration_scheme: string | null;
  electronic_address: ElectronicAddress | null;
  payment_account: PaymentAccount | null;
  payment_instructions: string | null;
}

export interface SourceBuyer {
  name: string;
  company_name: string | null;
  email: string | null;
  phone: string | null;
  address: Address | null;
  vat_id: string | null;
  registration_id: string | null;
  registration_scheme: string | null;
  electronic_address: ElectronicAddress | null;
}

/** A rate's VAT terms as its row holds them (frozen with its percentage). */
export interface SourceRate {
  tax_category: string | null;
  exemption_reason: string | null;
  exemption_reason_code: string | null;
}

export interface EinvoiceSource {
  kind: EinvoiceKind;
  document: SourceDocument;
  preceding: { number: string; issue_date: string | null } | null;
  seller: SourceSeller;
  buyer: SourceBuyer;
  deliver_to: Address | null;
  rates: ReadonlyMap<string, SourceRate>;
  /** A draft's number and date (docs/api-contract.md §31 "Validation": `DRAFT`, dated today). */
  draft: { number: string; issue_date: string } | null;
}

export type BuildResult = { model: EinvoiceModel; problems: [] } | { model: null; problems: EinvoiceProblem[] };

/** Ten-thousandths of a percent of a JSON percentage (19 → 190000n, 9.975 → 99750n), exactly. */
function scaledPercent(percentage: number): bigint {
  const [whole, fraction = ''] = String(percentage).split('.');
  return BigInt(`${whole}${fraction.padEnd(4, '0')}`);
}

/** round(taxable × percent / 100), halves away from zero: BR-CO-17's figure in minor units. */
export function taxOf(taxable: number, percentage: number): bigint {
  const product = BigInt(taxable) * scaledPercent(percentage);
  const divisor = 1_000_000n;
  const negative = product < 0n;
  const absolute = negative ? -product : product;
  const rounded = (absolute * 2n + divisor) / (divisor * 2n);
  return negative ? -rounded : rounded;
}

export function buildEinvoice(source: EinvoiceSource): BuildResult {
  const { document, seller, buyer, kind } = source;
  const problems: EinvoiceProblem[] = [];
  const digits = currencyDigits(document.currency);
  if (digits > 2)
    problems.push({
      field: 'currency',
      message: `${document.currency} has ${digits} minor digits; an e-invoice states amounts with at most 2 decimals`,
      rule: 'BMS-EI-06',
    });
  if (document.prices_include_tax)
    problems.push({
      field: 'prices_include_tax',
      message:
        'must be false: an e-invoice states net prices, and not every gross amount splits into a net and VAT that meet BR-CO-17 (give the lines net prices)',
      rule: 'BMS-EI-05',
    });

  // Each line: exactly one named, non-compound rate with a VAT category.
  const lineCategories: Array<{ category: string; percentage: number; rateId: string } | null> = [];
  document.line_items.forEach((line, index) => {
    const field = `line_items[${index}]`;
    const taxes = line.taxes;
    const only = taxes[0];
    if (taxes.length !== 1 || only === undefined || only.tax_rate_id === null) {
      problems.push({
        field: `${field}.tax_rate_ids`,
        message:
          taxes.length === 0
            ? 'must name one tax rate: every e-invoice line states one VAT category (a rate of category Z, E or O for an untaxed line)'
            : taxes.length > 1
              ? `names ${taxes.length} rates: an e-invoice line states one VAT category`
              : 'must name a tax rate instead of the unnamed tax_rate, which has no VAT category',
        rule: 'BMS-EI-01',
      });
      lineCategories.push(null);
      return;
    }
    const rate = source.rates.get(only.tax_rate_id);
    if (only.compound) {
      problems.push({
        field: `${field}.tax_rate_ids`,
        message: 'names a compound rate: EN 16931 has no tax on tax',
        rule: 'BMS-EI-02',
      });
      lineCategories.push(null);
      return;
    }
    if (!rate || rate.tax_category === null) {
      problems.push({
        field: `${field}.tax_rate_ids`,
        message: `names tax rate ${only.tax_rate_id}, which has no tax_category`,
        rule: 'BMS-EI-03',
      });
      lineCategories.push(null);
      return;
    }
    lineCategories.push({ category: rate.tax_category, percentage: only.percentage, rateId: only.tax_rate_id });
  });

  // One BG-23 per category and percentage, each meeting BR-CO-17 exactly.
  const seen = new Map<string, number>();
  const breakdown: EinvoiceBreakdown[] = [];
  document.tax_breakdown.forEach((row, index) => {
    const rate = row.tax_rate_id === null ? undefined : source.rates.get(row.tax_rate_id);
    if (!rate || rate.tax_category === null) return; // refused with its lines above
    const key = `${rate.tax_category}|${row.percentage}`;
    const before = seen.get(key);
    if (before !== undefined)
      problems.push({
        field: `tax_breakdown[${index}]`,
        message: `is a second rate of category ${rate.tax_category} at ${row.percentage} % (with tax_breakdown[${before}]): an e-invoice has one VAT breakdown per category and rate`,
        rule: 'BMS-EI-04',
      });
    seen.set(key, index);
    const expected = taxOf(row.taxable_amount, row.percentage);
    // With prices including tax the figures are refused already (BMS-EI-05), whatever their rounding.
    if (!document.prices_include_tax && BigInt(row.tax_amount) !== expected)
      problems.push({
        field: `tax_breakdown[${index}].tax_amount`,
        message: `is ${row.tax_amount}, but ${row.taxable_amount} at ${row.percentage} % rounds to ${expected} (BR-CO-17): per_line rounding does not add up here; use rounding per_document`,
        rule: 'BMS-EI-07',
      });
    breakdown.push({
      category: rate.tax_category,
      percent: rate.tax_category === 'O' ? null : percentText(row.percentage),
      taxable: majorUnits(row.taxable_amount, digits),
      tax: majorUnits(row.tax_amount, digits),
      exemption_reason: rate.exemption_reason,
      exemption_reason_code: rate.exemption_reason_code,
    });
  });

  problems.push(...partyProblems(source, new Set(lineCategories.flatMap((line) => (line ? [line.category] : [])))));
  if (problems.length > 0) return { model: null, problems };

  const lines: EinvoiceLine[] = document.line_items.map((line, index) => {
    const terms = lineCategories[index] as { category: string; percentage: number };
    // A negative unit amount is a negated quantity and price (BR-27: a price is never below zero).
    const negative = line.unit_amount < 0;
    return {
      id: String(index + 1),
      quantity: String(negative ? -line.quantity : line.quantity),
      unit_code: line.unit_code ?? 'C62',
      price: majorUnits(Math.abs(line.unit_amount), digits),
      net_amount: majorUnits(line.amount, digits),
      allowance: line.discount_amount === 0 ? null : majorUnits(line.discount_amount, digits),
      name: line.description,
      category: terms.category,
      percent: terms.category === 'O' ? null : percentText(terms.percentage),
    };
  });
  const prepaid = document.prepaid_amount;
  const address = (value: Address | null) => value;
  const model: EinvoiceModel = {
    kind,
    number: source.draft?.number ?? (document.number as string),
    issue_date: source.draft?.issue_date ?? (document.issue_date as string),
    due_date: kind === 'invoice' ? document.due_date : null,
    currency: document.currency,
    notes: document.notes,
    payment_terms: seller.payment_instructions,
    buyer_reference: document.buyer_reference,
    purchase_order: document.purchase_order,
    delivery_date: document.delivery_date,
    service_period: document.service_period,
    preceding: source.preceding,
    seller: {
      name: seller.legal_name ?? seller.name,
      trading_name: seller.legal_name !== null && seller.legal_name !== seller.name ? seller.name : null,
      vat_id: seller.vat_id,
      tax_id: seller.tax_id,
      registration:
        seller.registration_id === null ? null : { id: seller.registration_id, scheme: seller.registration_scheme },
      electronic_address: seller.electronic_address,
      address: address(seller.address),
      phone: seller.phone,
      email: seller.email,
    },
    buyer: {
      name: buyer.company_name ?? buyer.name,
      trading_name: null,
      vat_id: buyer.vat_id,
      tax_id: null,
      registration:
        buyer.registration_id === null ? null : { id: buyer.registration_id, scheme: buyer.registration_scheme },
      electronic_address: buyer.electronic_address,
      address: address(buyer.address),
      phone: buyer.phone,
      email: buyer.email,
    },
    deliver_to: source.deliver_to,
    payment_account: seller.payment_account,
    lines,
    breakdown,
    totals: {
      line_total: majorUnits(document.subtotal_amount, digits),
      tax_exclusive: majorUnits(document.subtotal_amount, digits),
      tax: majorUnits(document.tax_amount, digits),
      tax_inclusive: majorUnits(document.total_amount, digits),
      prepaid: prepaid === 0 ? null : majorUnits(prepaid, digits),
      payable: majorUnits(document.total_amount - prepaid, digits),
    },
  };
  return { model, problems: [] };
}

/** The party data EN 16931 asks for, given the VAT categories the lines use. */
function partyProblems(source: EinvoiceSource, categories: ReadonlySet<string>): EinvoiceProblem[] {
  const { seller, buyer, document } = source;
  const problems: EinvoiceProblem[] = [];
  const need = (when: boolean, field: string, message: string, rule: string) => {
    if (when) problems.push({ field, message, rule });
  };
  need(!seller.address?.country, 'account.address.country', 'is required: the seller’s country', 'BR-09');
  need(!buyer.address?.country, 'client.address.country', 'is required: the buyer’s country', 'BR-11');
  need(
    seller.vat_id === null && seller.registration_id === null,
    'account.vat_id',
    'is required, or account.registration_id: the seller must be identified',
    'BR-CO-26',
  );
  const sellerVatOrTax = seller.vat_id !== null || seller.tax_id !== null;
  for (const [category, rule] of [
    ['S', 'BR-S-02'],
    ['Z', 'BR-Z-02'],
    ['E', 'BR-E-02'],
  ] as const)
    need(
      categories.has(category) && !sellerVatOrTax,
      'account.vat_id',
      `is required, or account.tax_id, with category ${category}`,
      rule,
    );
  need(
    categories.has('AE') && !sellerVatOrTax,
    'account.vat_id',
    'is required, or account.tax_id, with category AE',
    'BR-AE-02',
  );
  need(
    categories.has('AE') && buyer.vat_id === null && buyer.registration_id === null,
    'client.vat_id',
    'is required, or client.registration_id, with category AE (reverse charge)',
    'BR-AE-02',
  );
  need(categories.has('K') && seller.vat_id === null, 'account.vat_id', 'is required with category K', 'BR-IC-02');
  need(
    categories.has('K') && buyer.vat_id === null,
    'client.vat_id',
    'is required with category K (intra-community supply)',
    'BR-IC-02',
  );
  need(
    categories.has('K') && document.delivery_date === null && document.service_period === null,
    'delivery_date',
    'is required, or service_period, with category K',
    'BR-IC-11',
  );
  need(
    categories.has('K') && !source.deliver_to?.country,
    'property_id',
    'must name a property with a country (the deliver-to address) with category K',
    'BR-IC-12',
  );
  need(categories.has('G') && seller.vat_id === null, 'account.vat_id', 'is required with category G', 'BR-G-02');
  if (categories.has('O')) {
    need(
      seller.vat_id !== null || buyer.vat_id !== null,
      seller.vat_id !== null ? 'account.vat_id' : 'client.vat_id',
      'must be absent with category O (not subject to VAT)',
      'BR-O-02',
    );
    need(categories.size > 1, 'line_items', 'must all be of category O when one is', 'BR-O-11');
  }
  // A credit note states no due date: its positive amount needs the payment terms (BT-20).
  need(
    document.due_date === null &&
      seller.payment_instructions === null &&
      document.total_amount - document.prepaid_amount > 0,
    source.kind === 'invoice' ? 'due_date' : 'account.payment_instructions',
    source.kind === 'invoice'
      ? 'is required, or the account’s payment_instructions, while an amount is due'
      : 'is required on a credit note’s e-invoice, which states no due date',
    'BR-CO-25',
  );
  return problems;
}
