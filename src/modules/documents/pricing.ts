// The figures of a quote, job or invoice (docs/api-contract.md §19): each line's product filled in, its taxes
// resolved (its tax_rate_ids, its product's, the property's default_tax_rate_ids, the account's), the
// calculation run (tax.ts), and the stored snapshot: every line with its taxes, and the breakdown with each
// rate's name, registration number, percentage and kind, so a sent document never changes.
import { newId } from '../../core/deps.js';
import { validationError, type ErrorDetail } from '../../core/errors.js';
import type { ProductRow, TaxRateRow } from '../../db/types.js';
import { fromJson } from '../../db/index.js';
import type { Context } from '../../kernel/context.js';
import { findAccount } from '../accounts/index.js';
import { findProducts, findTaxRates, percentageNumber } from '../catalog/index.js';
import { propertyDefaultTaxRateIds } from '../properties/index.js';
import {
  presentLineItem,
  version1Key,
  type DiscountInput,
  type KeptLineFields,
  type LineItem,
  type LineItemInput,
  type TaxBreakdown,
} from './line-items.js';
import { toScaledInteger } from './money.js';
import { parsePercentage, priceDocument, type PricedLine, type RateTerms, type Rounding } from './tax.js';

export interface PricingSettings {
  prices_include_tax: boolean;
  rounding: Rounding;
  discount: DiscountInput | null;
}

/** The stored pricing columns of a document. */
export interface PricedColumns {
  line_items: string;
  subtotal_amount: number;
  tax_amount: number;
  total_amount: number;
  prices_include_tax: number;
  rounding: string;
  discount: string | null;
  discount_amount: number;
  tax_breakdown: string;
}

/** What a document body may say about its figures. */
export interface PricingInput {
  line_items?: LineItemInput[] | undefined;
  prices_include_tax?: boolean | undefined;
  rounding?: Rounding | undefined;
  discount?: DiscountInput | null | undefined;
}

/** The stored columns a document's figures are read back from. */
export interface StoredPricing {
  currency: string;
  line_items: string;
  prices_include_tax: number;
  rounding: string;
  discount: string | null;
  tax_breakdown: string | null;
}

interface Basis {
  currency: string;
  propertyId: string | null;
  /** Rates and products the document already has: valid there even when inactive. */
  keptRates: ReadonlySet<string>;
  keptProducts: ReadonlySet<string>;
  /** Copying a sent source: the terms its snapshot holds, which win over the rate's current ones. */
  sourceTerms?: ReadonlyMap<string, { percentage: number; compound: boolean }>;
}

interface RateSnapshot {
  terms: RateTerms;
  tax_rate_id: string | null;
  name: string | null;
  registration_number: string | null;
  percentage: number;
  /** Sorting: version-1 rates first, by percentage; then priority, creation, id. */
  order: [number, number, string, string];
}

function storedLines(stored: Pick<StoredPricing, 'line_items'>): LineItem[] {
  return fromJson<LineItem[]>(stored.line_items).map(presentLineItem);
}

/** A stored line as a body would give it: what copying it to another document, or recomputing it, starts from. */
function inputOf(line: LineItem): LineItemInput {
  return {
    ...(line.product_id ? { product_id: line.product_id } : {}),
    name: line.name,
    description: line.description,
    quantity: line.quantity,
    unit_amount: line.unit_amount,
    ...(line.tax_rate !== 0 ? { tax_rate: line.tax_rate } : { tax_rate_ids: line.tax_rate_ids }),
    ...(line.discount ? { discount: line.discount } : {}),
    kept: { unit_code: line.unit_code, unit_cost_amount: line.unit_cost_amount, time_entry_ids: line.time_entry_ids },
  };
}

/** A source's line copied to a new document: what it keeps, but never the time entries another document bills. */
function copiedInputOf(line: LineItem): LineItemInput {
  const input = inputOf(line);
  return { ...input, kept: { ...(input.kept as KeptLineFields), time_entry_ids: [] } };
}

/** Whether two lists of ids are the same, in the same order. */
function sameIds(left: readonly string[], right: readonly string[]): boolean {
  return left.length === right.length && left.every((id, index) => id === right[index]);
}

/**
 * An update's lines with each line of billed time matched to the stored line it keeps (docs/api-contract.md §29):
 * its time_entry_ids sent back unchanged, with its quantity and unit_amount; any other value is a 422.
 */
function matchTimeLines(stored: readonly LineItem[], inputs: readonly LineItemInput[]): LineItemInput[] {
  const details: ErrorDetail[] = [];
  const used = new Set<number>();
  const matched = inputs.map((input, index) => {
    const ids = input.time_entry_ids;
    if (ids === undefined || ids.length === 0 || input.kept !== undefined) {
      const { time_entry_ids: _ids, ...rest } = input;
      return rest;
    }
    const field = `line_items[${index}]`;
    const found = stored.findIndex((line, position) => !used.has(position) && sameIds(line.time_entry_ids, ids));
    if (found === -1) {
      details.push({
        field: `${field}.time_entry_ids`,
        message:
          'must be a line of billed time’s time_entry_ids, sent back unchanged (bill time with POST /v1/invoices/{id}/time-entries)',
      });
      return input;
    }
    used.add(found);
    const line = stored[found] as LineItem;
    if (input.quantity !== line.quantity)
      details.push({ field: `${field}.quantity`, message: `must stay ${line.quantity}: the line bills time entries` });
    if (input.unit_amount !== line.unit_amount)
      details.push({
        field: `${field}.unit_amount`,
        message: `must stay ${line.unit_amount}: the line bills time entries`,
      });
    const { time_entry_ids: _ids, ...rest } = input;
    return {
      ...rest,
      kept: { unit_code: line.unit_code, unit_cost_amount: line.unit_cost_amount, time_entry_ids: line.time_entry_ids },
    };
  });
  if (details.length > 0) throw validationError(details);
  return matched;
}

function snapshotOf(row: TaxRateRow, copied?: { percentage: number; compound: boolean }): RateSnapshot {
  const percentage = (copied && parsePercentage(copied.percentage)) ?? BigInt(row.percentage);
  return {
    terms: { key: row.id, percentage, compound: copied ? copied.compound : Number(row.compound) === 1 },
    tax_rate_id: row.id,
    name: row.name,
    registration_number: row.registration_number,
    percentage: percentageNumber(percentage),
    order: [1, Number(row.priority), row.created_at, row.id],
  };
}

function compareOrder(a: RateSnapshot, b: RateSnapshot): number {
  for (let index = 0; index < 4; index += 1) {
    const left = a.order[index] as number | string;
    const right = b.order[index] as number | string;
    if (left < right) return -1;
    if (left > right) return 1;
  }
  return 0;
}

interface ResolvedLine {
  name: string | null;
  description: string;
  quantity: number;
  unit_amount: number;
  product_id: string | null;
  tax_rate: number;
  discount: DiscountInput | null;
  /** Named rate ids and where they came from (for a refusal's field), or a version-1 key. */
  rateIds: string[];
  source: 'line' | 'product' | 'property' | 'account';
  version1: string | null;
  unit_code: string | null;
  unit_cost_amount: number | null;
  time_entry_ids: string[];
}

/**
 * A new line's internal cost: its product's cost_amount, when the product is priced in the document's currency.
 * A line of billed time has none: its cost is its entries' (labour), never a material's.
 */
function unitCostOf(product: ProductRow | undefined, currency: string, timeEntryIds: readonly string[]): number | null {
  if (!product || product.cost_amount === null || timeEntryIds.length > 0) return null;
  return product.currency === currency ? Number(product.cost_amount) : null;
}

/** Prices the lines: resolves products and rates, runs the calculation, answers the stored columns. */
async function priceLines(
  tx: Context,
  inputs: readonly LineItemInput[],
  settings: PricingSettings,
  basis: Basis,
): Promise<PricedColumns> {
  const details: ErrorDetail[] = [];
  const products = new Map<string, ProductRow>(
    (await findProducts(tx.db, tx.accountId, [...new Set(inputs.flatMap((line) => line.product_id ?? []))])).map(
      (row) => [row.id, row],
    ),
  );
  let propertyDefaults: string[] | undefined;
  let accountDefaults: string[] | undefined;
  const resolved: Array<ResolvedLine | undefined> = [];
  for (const [index, input] of inputs.entries()) {
    const field = `line_items[${index}]`;
    const before = details.length;
    if (input.tax_rate !== undefined && input.tax_rate_ids !== undefined)
      details.push({ field: `${field}.tax_rate_ids`, message: 'not together with tax_rate: give one or the other' });
    let product: ProductRow | undefined;
    if (input.product_id !== undefined) {
      product = products.get(input.product_id);
      if (!product) {
        // Only the product is wrong: the fields it would have filled are not missing as well.
        details.push({ field: `${field}.product_id`, message: `no product with id '${input.product_id}' exists` });
        resolved.push(undefined);
        continue;
      }
      if (Number(product.active) !== 1 && !basis.keptProducts.has(product.id))
        details.push({
          field: `${field}.product_id`,
          message: `product '${product.name}' is inactive and takes no new use`,
        });
    }
    const description = input.description ?? (product ? (product.description ?? product.name) : undefined);
    if (description === undefined)
      details.push({ field: `${field}.description`, message: 'is required unless product_id gives it' });
    const quantity = input.quantity ?? (product ? Number(product.default_quantity) / 1000 : undefined);
    if (quantity === undefined)
      details.push({ field: `${field}.quantity`, message: 'is required unless product_id gives it' });
    let unitAmount = input.unit_amount;
    if (unitAmount === undefined && product) {
      if (product.unit_amount === null)
        details.push({ field: `${field}.unit_amount`, message: 'is required: the product is priced when used' });
      else if (product.currency !== basis.currency)
        details.push({
          field: `${field}.product_id`,
          message: `the product is priced in ${product.currency} and the document is in ${basis.currency}: give unit_amount`,
        });
      else unitAmount = Number(product.unit_amount);
    } else if (unitAmount === undefined)
      details.push({ field: `${field}.unit_amount`, message: 'is required unless product_id gives it' });
    if (details.length > before) {
      resolved.push(undefined);
      continue;
    }
    const version1 = input.tax_rate !== undefined ? toScaledInteger(input.tax_rate) : 0n;
    if (version1 === undefined) {
      details.push({ field: `${field}.tax_rate`, message: 'must have at most 3 decimals' });
      resolved.push(undefined);
      continue;
    }
    let rateIds: string[] = [];
    let source: ResolvedLine['source'] = 'line';
    if (version1 === 0n) {
      if (input.tax_rate_ids !== undefined) rateIds = input.tax_rate_ids;
      else if (product && Number(product.taxable) !== 1) rateIds = [];
      else if (product && product.tax_rate_ids !== null) {
        rateIds = fromJson<string[]>(product.tax_rate_ids);
        source = 'product';
      } else {
        propertyDefaults ??= await propertyDefaultTaxRateIds(tx.db, tx.accountId, basis.propertyId);
        if (propertyDefaults.length > 0) {
          rateIds = propertyDefaults;
          source = 'property';
        } else {
          accountDefaults ??= fromJson<string[]>(
            (await findAccount(tx.db, tx.accountId))?.default_tax_rate_ids ?? '[]',
          );
          rateIds = accountDefaults;
          source = 'account';
        }
      }
    }
    resolved.push({
      name: input.name !== undefined ? input.name : (product?.name ?? null),
      description: description as string,
      quantity: quantity as number,
      unit_amount: unitAmount as number,
      product_id: product?.id ?? null,
      tax_rate: input.tax_rate ?? 0,
      discount: input.discount ?? null,
      rateIds,
      source,
      version1: version1 === 0n ? null : version1Key(version1),
      unit_code:
        input.unit_code !== undefined ? input.unit_code : (input.kept?.unit_code ?? product?.unit_code ?? null),
      unit_cost_amount: input.kept
        ? input.kept.unit_cost_amount
        : unitCostOf(product, basis.currency, input.time_entry_ids ?? []),
      time_entry_ids: input.kept?.time_entry_ids ?? [],
    });
  }

  const rateRows = new Map(
    (await findTaxRates(tx.db, tx.accountId, [...new Set(resolved.flatMap((line) => line?.rateIds ?? []))])).map(
      (row) => [row.id, row],
    ),
  );
  const snapshots = new Map<string, RateSnapshot>();
  resolved.forEach((line, index) => {
    if (!line) return;
    if (line.version1 !== null) {
      const percentage = toScaledInteger(line.tax_rate) as bigint;
      snapshots.set(line.version1, {
        terms: { key: line.version1, percentage: percentage * 10n, compound: false },
        tax_rate_id: null,
        name: null,
        registration_number: null,
        percentage: line.tax_rate,
        order: [0, line.tax_rate, '', ''],
      });
      return;
    }
    line.rateIds.forEach((id, position) => {
      const row = rateRows.get(id);
      const where = line.source === 'line' ? `line_items[${index}].tax_rate_ids[${position}]` : `line_items[${index}]`;
      const from = line.source === 'line' ? '' : ` (from the ${line.source}’s default rates)`;
      if (!row) details.push({ field: where, message: `no tax rate with id '${id}' exists${from}` });
      else if (Number(row.active) !== 1 && !basis.keptRates.has(id))
        details.push({ field: where, message: `tax rate '${row.name}' is inactive and takes no new use${from}` });
      else snapshots.set(id, snapshotOf(row, basis.sourceTerms?.get(id)));
    });
  });
  if (details.length > 0) throw validationError(details);

  const ordered = [...snapshots.values()].sort(compareOrder);
  const lines = resolved as ResolvedLine[];
  const pricing = priceDocument({
    lines: lines.map((line) => ({
      quantity: line.quantity,
      unit_amount: line.unit_amount,
      discount: line.discount,
      rate_keys: line.version1 !== null ? [line.version1] : line.rateIds,
    })),
    rates: ordered.map((snapshot) => snapshot.terms),
    prices_include_tax: settings.prices_include_tax,
    rounding: settings.rounding,
    discount: settings.discount,
  });
  const lineItems: LineItem[] = lines.map((line, index) => {
    const priced = pricing.lines[index] as PricedLine;
    return {
      id: newId(),
      product_id: line.product_id,
      name: line.name,
      description: line.description,
      quantity: line.quantity,
      unit_amount: line.unit_amount,
      tax_rate: line.tax_rate,
      tax_rate_ids:
        line.version1 !== null
          ? []
          : ordered.filter((rate) => line.rateIds.includes(rate.terms.key)).map((rate) => rate.terms.key),
      discount: line.discount,
      discount_amount: Number(priced.discount_amount),
      amount: Number(priced.amount),
      tax_amount: Number(priced.tax_amount),
      taxes: priced.taxes.map((entry) => {
        const snapshot = snapshots.get(entry.key) as RateSnapshot;
        return {
          tax_rate_id: snapshot.tax_rate_id,
          name: snapshot.name,
          percentage: snapshot.percentage,
          compound: snapshot.terms.compound,
          amount: Number(entry.amount),
        };
      }),
      unit_code: line.unit_code,
      unit_cost_amount: line.unit_cost_amount,
      time_entry_ids: line.time_entry_ids,
    };
  });
  const breakdown: TaxBreakdown = pricing.breakdown.map((row) => {
    const snapshot = snapshots.get(row.key) as RateSnapshot;
    return {
      tax_rate_id: snapshot.tax_rate_id,
      name: snapshot.name,
      registration_number: snapshot.registration_number,
      percentage: snapshot.percentage,
      compound: snapshot.terms.compound,
      taxable_amount: Number(row.taxable_amount),
      tax_amount: Number(row.tax_amount),
    };
  });
  return {
    line_items: JSON.stringify(lineItems),
    subtotal_amount: Number(pricing.subtotal_amount),
    tax_amount: Number(pricing.tax_amount),
    total_amount: Number(pricing.total_amount),
    prices_include_tax: settings.prices_include_tax ? 1 : 0,
    rounding: settings.rounding,
    discount: settings.discount === null ? null : JSON.stringify(settings.discount),
    discount_amount: Number(pricing.discount_amount),
    tax_breakdown: JSON.stringify(breakdown),
  };
}

function keptOf(stored: Pick<StoredPricing, 'line_items'> | undefined) {
  const lines = stored ? storedLines(stored) : [];
  return {
    keptRates: new Set(lines.flatMap((line) => line.tax_rate_ids)),
    keptProducts: new Set(lines.flatMap((line) => line.product_id ?? [])),
  };
}

/**
 * The figures of a new document: its own lines, or a source's (a quote's, a job's) copied with the rates and
 * products they carry and, when the body does not say, the source's settings; else the account's defaults.
 */
export async function pricingForNew(
  tx: Context,
  input: PricingInput,
  basis: { currency: string; propertyId: string | null; source?: StoredPricing | undefined },
): Promise<PricedColumns> {
  const source = input.line_items === undefined ? basis.source : undefined;
  const account = await findAccount(tx.db, tx.accountId);
  const settings: PricingSettings = {
    prices_include_tax:
      input.prices_include_tax ??
      (source ? Number(source.prices_include_tax) === 1 : Number(account?.prices_include_tax ?? 0) === 1),
    rounding: input.rounding ?? ((source?.rounding ?? account?.rounding ?? 'per_line') as Rounding),
    discount:
      input.discount !== undefined
        ? input.discount
        : source?.discount
          ? fromJson<DiscountInput>(source.discount)
          : null,
  };
  const lines = input.line_items ?? (source ? storedLines(source).map(copiedInputOf) : []);
  // A copied line keeps the terms its source was sent with, even when a rate changed while the source was a
  // draft (allowed then): an approved quote becomes a job or invoice with the figures the client saw.
  const sourceTerms = new Map(
    (source ? storedLines(source) : []).flatMap((line) =>
      line.taxes.flatMap((tax) =>
        tax.tax_rate_id ? [[tax.tax_rate_id, { percentage: tax.percentage, compound: tax.compound }] as const] : [],
      ),
    ),
  );
  return priceLines(tx, lines, settings, {
    currency: basis.currency,
    propertyId: basis.propertyId,
    ...keptOf(source),
    sourceTerms,
  });
}

/**
 * The figures after an update, or nothing when the body changes none of lines, discount, rounding or
 * prices_include_tax. Without new lines the stored ones are priced again with the new settings.
 */
export async function pricingForUpdate(
  tx: Context,
  current: StoredPricing,
  input: PricingInput,
  propertyId: string | null,
): Promise<Partial<PricedColumns>> {
  if (
    input.line_items === undefined &&
    input.prices_include_tax === undefined &&
    input.rounding === undefined &&
    input.discount === undefined
  )
    return {};
  const settings: PricingSettings = {
    prices_include_tax: input.prices_include_tax ?? Number(current.prices_include_tax) === 1,
    rounding: input.rounding ?? (current.rounding as Rounding),
    discount:
      input.discount !== undefined
        ? input.discount
        : current.discount
          ? fromJson<DiscountInput>(current.discount)
          : null,
  };
  const lines =
    input.line_items !== undefined
      ? matchTimeLines(storedLines(current), input.line_items)
      : storedLines(current).map(inputOf);
  return priceLines(tx, lines, settings, { currency: current.currency, propertyId, ...keptOf(current) });
}

/** The figures of a document with `added` lines after its stored ones (each added line's `kept` says what it keeps). */
export async function pricingWithAddedLines(
  tx: Context,
  current: StoredPricing,
  added: readonly LineItemInput[],
  propertyId: string | null,
): Promise<PricedColumns> {
  const settings: PricingSettings = {
    prices_include_tax: Number(current.prices_include_tax) === 1,
    rounding: current.rounding as Rounding,
    discount: current.discount ? fromJson<DiscountInput>(current.discount) : null,
  };
  const lines = [...storedLines(current).map(inputOf), ...added];
  return priceLines(tx, lines, settings, { currency: current.currency, propertyId, ...keptOf(current) });
}

/** The document's property after an update's patch (`propertyOnUpdate`'s answer). */
export function propertyAfter(current: { property_id: string | null }, patch: { property_id?: string | null }) {
  return 'property_id' in patch ? (patch.property_id ?? null) : current.property_id;
}
