// What a sent quote or invoice looks like as an e-mail: the snapshot frozen at send time, and the
// subject, text and HTML rendered from it. Amounts are formatted exactly from integer minor units, and dates
// and amounts in the account's locale (the words stay English).
import { escapeHtml } from '../core/html.js';

/** A line as the e-mail and the PDF print it (the API's line item has these fields and more). */
export interface MailLineItem {
  /** The line's name (a product's name), printed above its description; absent or null without one. */
  name?: string | null;
  description: string;
  quantity: number;
  unit_amount: number;
  tax_rate: number;
  amount: number;
  /** The line's rates as printed ("5% + 9.975%"); absent from snapshots queued before named rates existed. */
  tax_label?: string;
  /** The line's tax and its discounts, in minor units (absent from snapshots queued before they were printed). */
  tax_amount?: number;
  discount_amount?: number;
}

/** A row of the tax breakdown as printed (docs/api-contract.md §19): one per rate, with its name and number. */
export interface MailTaxRow {
  name: string | null;
  registration_number: string | null;
  percentage: number;
  tax_amount: number;
  /**
   * Why the rate charges no VAT (BT-120) and its VATEX code (BT-121), from the rate, present only when it has
   * either (docs/api-contract.md §31), so other documents keep their bytes.
   */
  exemption_reason?: string | null;
  exemption_reason_code?: string | null;
}

/** A postal address as printed: every key present, null when empty. */
export interface MailAddress {
  line1: string | null;
  line2: string | null;
  city: string | null;
  region: string | null;
  postal_code: string | null;
  country: string | null;
}

/**
 * The business as its documents show it (docs/api-contract.md §10). Snapshots queued before version 2 carry
 * only the name; every other field is then absent and printed as empty.
 */
export interface MailBusiness {
  name: string;
  legal_name?: string | null;
  email?: string | null;
  phone?: string | null;
  website?: string | null;
  address?: MailAddress | null;
  tax_id?: string | null;
  payment_instructions?: string | null;
  /** The invoice or quote footer of the profile, as fits the document. */
  footer?: string | null;
}

/** A printable custom field of a quote or invoice, with its label. */
export type MailField = { label: string } & ({ text: string } | { amount: number } | { date: string });

/** A property as documents print it: never its access notes. */
export interface MailServiceAddress {
  name: string | null;
  address: MailAddress;
}

export interface MailSnapshot {
  kind: 'invoice' | 'quote' | 'credit_note';
  /** The client's e-invoice format (docs/api-contract.md §31): ubl or cii attached beside the PDF, facturx instead. */
  einvoice_format?: 'ubl' | 'cii' | 'facturx';
  /** The account's BCP 47 locale: how dates and amounts are printed (absent before it existed: en-US). */
  locale?: string;
  /** The PDF's paper (absent before it existed: A4, as those documents were). */
  paper_size?: 'letter' | 'a4';
  /** The account's time zone: the day an instant (an answer's time) falls on (absent: UTC). */
  timezone?: string;
  business: MailBusiness;
  client: { name: string; email: string | null; company_name: string | null; address?: MailAddress | null };
  /**
   * Where the work is: the document's property (docs/api-contract.md §16), its name and address only; null
   * without one (absent from snapshots queued before properties existed).
   */
  service_address?: MailServiceAddress | null;
  document: {
    id: string;
    /** Null only for a PDF of a draft read through the API. */
    number: string | null;
    /** The document's status when the PDF was made (absent before version 2): a paid or void invoice is stamped. */
    status?: string;
    /** The revision: the PDF's creation date, so one revision always gives the same bytes (absent before version 2). */
    updated_at?: string;
    title: string | null;
    currency: string;
    /** Whether unit amounts include tax (absent before it was printed: false). */
    prices_include_tax?: boolean;
    line_items: MailLineItem[];
    subtotal_amount: number;
    tax_amount: number;
    total_amount: number;
    /** One row per rate (absent from snapshots queued before named rates existed: one "Tax" row then). */
    tax_breakdown?: MailTaxRow[];
    /** Every discount, already taken off the line amounts (absent before discounts existed). */
    discount_amount?: number;
    /** Invoices: received so far (absent from snapshots queued before payments existed). */
    amount_paid?: number | null;
    /** Invoices: credit notes applied (absent before credit notes existed; printed only when not 0). */
    amount_credited?: number | null;
    amount_due: number | null;
    /** Credit notes: what invoices hold of it and what remains (absent on other kinds). */
    amount_applied?: number | null;
    amount_remaining?: number | null;
    /** Quotes with a deposit (contract §23): asked, received and still due (absent without one). */
    deposit_amount?: number;
    deposit_paid_amount?: number;
    deposit_due_amount?: number;
    /** Invoices: what deposits applied to it hold, part of amount_paid (absent when none). */
    deposit_received?: number;
    /** An approved quote's valid hub signature (docs/api-contract.md §30; absent without one). */
    signature?: { signer_name: string; signed_at: string; document_sha256: string; image_attachment_id?: string };
    issue_date: string | null;
    due_date: string | null;
    valid_until: string | null;
    notes: string | null;
    /**
     * The account's printable custom fields that hold a value (docs/api-contract.md §27), by position: a text
     * (select and boolean values already in words), an amount in the document's currency, or a date. Absent when
     * none, so a document without stays the same bytes.
     */
    fields?: MailField[];
  };
  /** The personal note given to the send operation. */
  message: string | null;
  /** The document's page on the client hub (absent from snapshots queued before the hub existed). */
  hosted_url?: string | null;
  /** A payment reminder's step (docs/api-contract.md §23); absent: the document's own send. */
  reminder_step?: number;
  /** The invoice of its own that bills a reminder's late fee (docs/api-contract.md §32); absent: none. */
  late_fee_invoice?: { number: string | null; total_amount: number; hosted_url: string | null };
}

/** The sentence that leads to the hub page: a quote is answered there, an invoice read. */
function hubInvitation(snapshot: MailSnapshot): string {
  return snapshot.kind === 'quote'
    ? 'View the quote online, and approve or decline it there:'
    : 'View the invoice online:';
}

const MINOR_UNIT_DIGITS: Record<string, number> = {
  JPY: 0,
  KRW: 0,
  VND: 0,
  CLP: 0,
  ISK: 0,
  HUF: 2,
  BHD: 3,
  KWD: 3,
  OMR: 3,
  JOD: 3,
  TND: 3,
};

/** Digits after the decimal point of a currency's minor unit (ISO 4217; 2 unless listed). */
export function minorUnitDigits(currency: string): number {
  return MINOR_UNIT_DIGITS[currency] ?? 2;
}

/** 123456 minor units of USD -> "$1,234.56" (en-US) or "1.234,56 $" (de-DE), computed from the digits, never through a float. */
export function formatMoney(amount: number, currency: string, locale = DEFAULT_LOCALE): string {
  const digits = minorUnitDigits(currency);
  const negative = amount < 0;
  const text = String(Math.abs(amount)).padStart(digits + 1, '0');
  const decimal = digits === 0 ? text : `${text.slice(0, -digits)}.${text.slice(-digits)}`;
  // Intl.NumberFormat formats a decimal string exactly (no conversion to a binary float).
  return moneyFormat(locale, currency, digits).format(`${negative ? '-' : ''}${decimal}` as unknown as number);
}

/** A quantity (at most 3 decimals) in the locale: 1.5 -> "1.5" (en-US), "1,5" (de-DE). */
export function formatQuantity(quantity: number, locale = DEFAULT_LOCALE): string {
  return cached(`q|${locale}`, () => new Intl.NumberFormat(locale, { maximumFractionDigits: 3 })).format(
    String(quantity) as unknown as number,
  );
}

export const DEFAULT_LOCALE = 'en-US';
const formats = new Map<string, Intl.NumberFormat | Intl.DateTimeFormat>();

function cached<T extends Intl.NumberFormat | Intl.DateTimeFormat>(key: string, make: () => T): T {
  let format = formats.get(key) as T | undefined;
  if (!format) {
    format = make();
    if (formats.size < 1000) formats.set(key, format);
  }
  return format;
}

function moneyFormat(locale: string, currency: string, digits: number): Intl.NumberFormat {
  return cached(
    `m|${locale}|${currency}`,
    () =>
      new Intl.NumberFormat(locale, {
        style: 'currency',
        currency,
        minimumFractionDigits: digits,
        maximumFractionDigits: digits,
      }),
  );
}

/**
 * How a date is printed in a locale. The documents' words are English, so an English locale spells the month
 * ("November 28, 2026", "28 November 2026") and any other prints the locale's numeric date ("28.11.2026",
 * "28/11/2026", "2026/11/28"): no month name of another language among English words.
 */
function dateFormat(locale: string, timeZone: string): Intl.DateTimeFormat {
  return cached(`d|${locale}|${timeZone}`, () => {
    const english = new Intl.Locale(locale).language === 'en';
    return new Intl.DateTimeFormat(
      locale,
      english ? { dateStyle: 'long', timeZone } : { year: 'numeric', month: '2-digit', day: '2-digit', timeZone },
    );
  });
}

/** A calendar date ("2026-11-28") as the locale prints it; anything else is printed as it is. */
export function formatDate(value: string, locale = DEFAULT_LOCALE): string {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return value;
  const date = new Date(`${value}T00:00:00.000Z`);
  return Number.isNaN(date.getTime()) ? value : dateFormat(locale, 'UTC').format(date);
}

/** The day of an instant in the account's time zone, as the locale prints it. */
export function formatInstantDate(value: string, locale = DEFAULT_LOCALE, timeZone = 'UTC'): string {
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? value : dateFormat(locale, timeZone).format(date);
}

/** The snapshot's locale: the account's, en-US for a snapshot from before it existed. */
export function localeOf(snapshot: MailSnapshot): string {
  return snapshot.locale ?? DEFAULT_LOCALE;
}

/**
 * What a line adds up to as printed: quantity × unit amount less its discounts. With prices excluding tax that
 * is the line's net (the lines sum to the subtotal, tax is added below); with prices including tax it is the
 * line's gross, net plus its tax (the lines sum to the total).
 */
export function lineTotal(item: MailLineItem, snapshot: MailSnapshot): number {
  return snapshot.document.prices_include_tax ? item.amount + (item.tax_amount ?? 0) : item.amount;
}

/** The line's name and, beneath it, its description; the description alone when it has no name of its own. */
export function lineHeading(item: MailLineItem): { name: string; description: string | null } {
  const name = item.name?.trim();
  if (!name || name === item.description.trim()) return { name: item.description, description: null };
  return { name, description: item.description };
}

/** The Amount column's heading: what lineTotal is. */
export function amountHeading(snapshot: MailSnapshot): string {
  return snapshot.document.prices_include_tax ? 'Amount incl. tax' : 'Amount';
}

/**
 * A line in the e-mail's text: "Water heater: 1 × $899.00 = $899.00 (+ 8.875% tax)"; with a discount
 * "2 × $50.00 − $10.00 discount = $90.00"; with prices including tax "(incl. 19% tax)".
 */
export function lineSentence(item: MailLineItem, snapshot: MailSnapshot): string {
  const locale = localeOf(snapshot);
  const money = (amount: number) => formatMoney(amount, snapshot.document.currency, locale);
  const discount = item.discount_amount ? ` − ${money(item.discount_amount)} discount` : '';
  const label = lineTaxLabel(item);
  const tax =
    label === '0%' ? '' : snapshot.document.prices_include_tax ? ` (incl. ${label} tax)` : ` (+ ${label} tax)`;
  const { name, description } = lineHeading(item);
  return `${name}: ${formatQuantity(item.quantity, locale)} × ${money(item.unit_amount)}${discount} = ${money(lineTotal(item, snapshot))}${tax}${description ? `\n  ${description.replace(/\n/g, '\n  ')}` : ''}`;
}

/** How a document's kind is printed. */
export const KIND_LABELS = { invoice: 'Invoice', quote: 'Quote', credit_note: 'Credit note' } as const;

export function documentLabel(snapshot: MailSnapshot): string {
  const kind = KIND_LABELS[snapshot.kind];
  return snapshot.document.number === null ? `Draft ${kind.toLowerCase()}` : `${kind} ${snapshot.document.number}`;
}

/** The address as lines: street lines, then "city region postal_code", then the country code. */
export function addressLines(address: MailAddress | null | undefined): string[] {
  if (!address) return [];
  const locality = [address.city, address.region, address.postal_code].filter((part) => part).join(' ');
  return [address.line1, address.line2, locality, address.country].filter((line): line is string => Boolean(line));
}

/** The service address as lines: the property's name (when it has one), then its address. */
export function serviceAddressLines(snapshot: MailSnapshot): string[] {
  const service = snapshot.service_address;
  if (!service) return [];
  return [...(service.name ? [service.name] : []), ...addressLines(service.address)];
}

export function subjectOf(snapshot: MailSnapshot): string {
  const reminder = snapshot.reminder_step !== undefined ? 'Payment reminder: ' : '';
  return `${reminder}${documentLabel(snapshot)} from ${snapshot.business.name}`;
}

/** A reminder's opening sentence: the number, what is due and by when (docs/api-contract.md §23). */
function reminderSentence(snapshot: MailSnapshot): string | undefined {
  if (snapshot.reminder_step === undefined) return undefined;
  const { document } = snapshot;
  const due = formatMoney(document.amount_due ?? 0, document.currency, localeOf(snapshot));
  const date = document.due_date ? formatDate(document.due_date, localeOf(snapshot)) : undefined;
  return `A reminder: ${documentLabel(snapshot)} has ${due} due${date ? `, due on ${date}` : ''}.`;
}

/** A reminder's late fee billed on an invoice of its own (docs/api-contract.md §32): what, which, and where. */
function lateFeeSentence(snapshot: MailSnapshot): string | undefined {
  const fee = snapshot.late_fee_invoice;
  if (fee === undefined) return undefined;
  const amount = formatMoney(fee.total_amount, snapshot.document.currency, localeOf(snapshot));
  return `A late fee of ${amount} is billed separately on invoice ${fee.number}, sent to you with this reminder${fee.hosted_url ? `: ${fee.hosted_url}` : '.'}`;
}

/** The lines under the table: due or validity dates, and totals. */
export function summaryRows(snapshot: MailSnapshot): Array<[string, string]> {
  const { document } = snapshot;
  const money = (amount: number) => formatMoney(amount, document.currency, localeOf(snapshot));
  const rows: Array<[string, string]> = [];
  if (document.discount_amount) rows.push(['Discount (in the amounts above)', money(-document.discount_amount)]);
  rows.push(['Subtotal', money(document.subtotal_amount)]);
  const breakdown = document.tax_breakdown ?? [];
  if (breakdown.length === 0) rows.push(['Tax', money(document.tax_amount)]);
  for (const row of breakdown) rows.push([taxRowLabel(row), money(row.tax_amount)]);
  rows.push(['Total', money(document.total_amount)]);
  // A deposit is printed on its own row, and amount paid is then the rest: the rows still add up to the due.
  const deposit = document.deposit_received ?? 0;
  if (deposit) rows.push(['Deposit received', money(deposit)]);
  if (document.amount_paid && document.amount_paid - deposit)
    rows.push(['Amount paid', money(document.amount_paid - deposit)]);
  if (document.amount_credited) rows.push(['Credits applied', money(document.amount_credited)]);
  if (document.amount_applied) rows.push(['Applied to invoices', money(document.amount_applied)]);
  if (document.amount_remaining !== undefined && document.amount_remaining !== null)
    rows.push(['Amount remaining', money(document.amount_remaining)]);
  if (document.amount_due !== null) rows.push(['Amount due', money(document.amount_due)]);
  if (snapshot.kind === 'quote' && document.deposit_amount) rows.push(...depositRows(snapshot, money));
  return rows;
}

/**
 * A quote's deposit (contract §23): due on approval while it is not approved; then what was received and what is
 * still due.
 */
function depositRows(snapshot: MailSnapshot, money: (amount: number) => string): Array<[string, string]> {
  const { document } = snapshot;
  const asked = document.deposit_amount ?? 0;
  if (document.status === 'draft' || document.status === 'sent' || document.status === undefined)
    return [['Deposit, due on approval', money(asked)]];
  const rows: Array<[string, string]> = [['Deposit', money(asked)]];
  if (document.deposit_paid_amount) rows.push(['Deposit received', money(document.deposit_paid_amount)]);
  rows.push(['Deposit due', money(document.deposit_due_amount ?? 0)]);
  return rows;
}

/**
 * "GST 5% (reg. 123456789 RT0001)"; a version-1 rate has no name: "Tax 13%"; a name that already gives the
 * percentage ("MwSt 19 %", "IVA 10,5%") is printed as it is.
 */
export function taxRowLabel(row: MailTaxRow): string {
  const number = row.registration_number ? ` (reg. ${row.registration_number})` : '';
  const name = row.name ?? 'Tax';
  const percentage = String(row.percentage);
  const says = new RegExp(`(^|[^\\d.,])(${percentage.replace('.', '[.,]')})\\s*%`).test(name);
  return says ? `${name}${number}` : `${name} ${percentage}%${number}`;
}

/**
 * One sentence per rate that gives an exemption reason or code, under the heading "Tax exemption":
 * "VAT 0%: Exempt under Article 132 (VATEX-EU-132)". An exempt supply's invoice must say why (EN 16931 BR-E-10).
 */
export function exemptionLines(snapshot: MailSnapshot): string[] {
  return (snapshot.document.tax_breakdown ?? []).flatMap((row) => {
    const reason = row.exemption_reason ?? null;
    const code = row.exemption_reason_code ?? null;
    if (reason === null && code === null) return [];
    const says = reason !== null && code !== null ? `${reason} (${code})` : (reason ?? code);
    return [`${taxRowLabel(row)}: ${says}`];
  });
}

/** A line's rates as its Tax column prints them. */
export function lineTaxLabel(item: MailLineItem): string {
  return item.tax_label ?? `${item.tax_rate}%`;
}

/** The document's dates, as the account's locale prints them. */
export function dateRows(snapshot: MailSnapshot): Array<[string, string]> {
  const { document } = snapshot;
  const date = (value: string) => formatDate(value, localeOf(snapshot));
  const rows: Array<[string, string]> = [];
  if (document.issue_date) rows.push(['Issue date', date(document.issue_date)]);
  if (document.due_date) rows.push(['Due date', date(document.due_date)]);
  if (document.valid_until) rows.push(['Valid until', date(document.valid_until)]);
  // A quote says when it expires, or that it does not, so its reader never has to guess.
  else if (snapshot.kind === 'quote') rows.push(['Valid until', 'no expiry date']);
  return rows;
}

/** The document's printable custom fields under their labels, as the account's locale prints them. */
export function fieldRows(snapshot: MailSnapshot): Array<[string, string]> {
  const locale = localeOf(snapshot);
  return (snapshot.document.fields ?? []).map((field) => [
    field.label,
    'amount' in field
      ? formatMoney(field.amount, snapshot.document.currency, locale)
      : 'date' in field
        ? formatDate(field.date, locale)
        : field.text,
  ]);
}

export function renderText(snapshot: MailSnapshot): string {
  const { document } = snapshot;
  const lines = [
    `Hello ${snapshot.client.name},`,
    '',
    ...(snapshot.message ? [snapshot.message, ''] : []),
    ...(reminderSentence(snapshot) ? [reminderSentence(snapshot)!, ''] : []),
    ...(lateFeeSentence(snapshot) ? [lateFeeSentence(snapshot)!, ''] : []),
    `${snapshot.business.name} sent you ${snapshot.kind === 'invoice' ? 'an invoice' : snapshot.kind === 'quote' ? 'a quote' : 'a credit note'}: ${documentLabel(snapshot)}${document.title ? ` (${document.title})` : ''}.`,
    ...dateRows(snapshot).map(([label, value]) => `${label}: ${value}`),
    ...fieldRows(snapshot).map(([label, value]) => `${label}: ${value}`),
    ...(snapshot.service_address ? [`Service address: ${serviceAddressLines(snapshot).join(', ')}`] : []),
    '',
    ...document.line_items.map((item) => `- ${lineSentence(item, snapshot)}`),
    '',
    ...summaryRows(snapshot).map(([label, value]) => `${label}: ${value}`),
    ...(exemptionLines(snapshot).length > 0 ? ['', 'Tax exemption:', ...exemptionLines(snapshot)] : []),
    ...(document.notes ? ['', document.notes] : []),
    ...(snapshot.kind === 'invoice' && snapshot.business.payment_instructions
      ? ['', 'How to pay:', snapshot.business.payment_instructions]
      : []),
    ...(snapshot.hosted_url ? ['', hubInvitation(snapshot), snapshot.hosted_url] : []),
    '',
    `The ${snapshot.kind} is attached as a PDF.`,
    '',
    snapshot.business.name,
  ];
  return `${lines.join('\n')}\n`;
}

export function renderHtml(snapshot: MailSnapshot): string {
  const { document } = snapshot;
  const locale = localeOf(snapshot);
  const money = (amount: number) => escapeHtml(formatMoney(amount, document.currency, locale));
  const cell = 'style="padding:4px 8px;border-bottom:1px solid #ddd"';
  const right = 'style="padding:4px 8px;border-bottom:1px solid #ddd;text-align:right"';
  const rows = document.line_items
    .map((item) => {
      const { name, description } = lineHeading(item);
      const discount = item.discount_amount
        ? `<br><span style="color:#666">${money(-item.discount_amount)} discount</span>`
        : '';
      const text = description
        ? `<strong>${escapeHtml(name)}</strong><br><span style="color:#555">${escapeHtml(description).replace(/\n/g, '<br>')}</span>`
        : escapeHtml(name);
      return `<tr><td ${cell}>${text}</td><td ${right}>${escapeHtml(formatQuantity(item.quantity, locale))}</td><td ${right}>${money(item.unit_amount)}</td><td ${right}>${escapeHtml(lineTaxLabel(item))}</td><td ${right}>${money(lineTotal(item, snapshot))}${discount}</td></tr>`;
    })
    .join('');
  const summary = summaryRows(snapshot)
    .map(
      ([label, value]) =>
        `<tr><td colspan="4" ${right}>${escapeHtml(label)}</td><td ${right}><strong>${escapeHtml(value)}</strong></td></tr>`,
    )
    .join('');
  const dates = [...dateRows(snapshot), ...fieldRows(snapshot)]
    .map(([label, value]) => `${escapeHtml(label)}: ${escapeHtml(value)}`)
    .join('<br>');
  return `<!doctype html><html><body style="font-family:Helvetica,Arial,sans-serif;color:#222">
<p>Hello ${escapeHtml(snapshot.client.name)},</p>
${snapshot.message ? `<p>${escapeHtml(snapshot.message).replace(/\n/g, '<br>')}</p>` : ''}
${reminderSentence(snapshot) ? `<p><strong>${escapeHtml(reminderSentence(snapshot)!)}</strong></p>` : ''}${lateFeeSentence(snapshot) ? `\n<p>${escapeHtml(lateFeeSentence(snapshot)!)}</p>` : ''}
<h2>${escapeHtml(documentLabel(snapshot))}${document.title ? ` &middot; ${escapeHtml(document.title)}` : ''}</h2>
<p>${dates}</p>
${snapshot.service_address ? `<p><strong>Service address</strong><br>${serviceAddressLines(snapshot).map(escapeHtml).join('<br>')}</p>` : ''}
<table style="border-collapse:collapse"><thead><tr><th ${cell}>Description</th><th ${right}>Qty</th><th ${right}>Unit</th><th ${right}>Tax</th><th ${right}>${escapeHtml(amountHeading(snapshot))}</th></tr></thead>
<tbody>${rows}${summary}</tbody></table>
${exemptionLines(snapshot).length > 0 ? `<p><strong>Tax exemption</strong><br>${exemptionLines(snapshot).map(escapeHtml).join('<br>')}</p>` : ''}
${document.notes ? `<p>${escapeHtml(document.notes).replace(/\n/g, '<br>')}</p>` : ''}
${snapshot.kind === 'invoice' && snapshot.business.payment_instructions ? `<p><strong>How to pay</strong><br>${escapeHtml(snapshot.business.payment_instructions).replace(/\n/g, '<br>')}</p>` : ''}
${snapshot.hosted_url ? `<p>${escapeHtml(hubInvitation(snapshot))}<br><a href="${escapeHtml(snapshot.hosted_url)}" style="display:inline-block;margin-top:6px;padding:10px 16px;background:#1d4ed8;color:#fff;text-decoration:none;border-radius:4px">${snapshot.kind === 'quote' ? 'View and answer the quote' : 'View the invoice'}</a></p>` : ''}
<p>The ${snapshot.kind} is attached as a PDF.</p>
<p>${escapeHtml(snapshot.business.name)}</p>
</body></html>`;
}
