// The calculation of docs/api-contract.md §19 (with §21's "Tax." readings) as a pure function: line
// discounts, the document's discount, named and compound tax rates, prices with or without tax, per-line or
// per-document rounding; exact rationals over BigInt, halves away from zero, and the invariants of §19.5
// checked on every computation. A version-1 `tax_rate` is one unnamed non-compound rate, so a document that
// uses only it (rounding per_line, prices without tax) keeps exactly the figures of version 1.
import { validationError, type ErrorDetail } from '../../core/errors.js';
import { fraction, roundHalfAway, shareInProportion, shareNear, sum, whole, type Fraction } from './fractions.js';
import { lineAmount, MAX_AMOUNT, multiplyDivideRounded, toScaledInteger } from './money.js';

/** Percentages are held as integer ten-thousandths of a percent (9.975 % → 99_750n). */
export const PERCENT_PLACES = 4;
/** 100 % in ten-thousandths of a percent: a rate's fraction is percentage / HUNDRED_PERCENT. */
const HUNDRED_PERCENT = 1_000_000n;

export type Rounding = 'per_line' | 'per_document';
export type Discount = { type: 'percent'; value: number } | { type: 'amount'; value: number };

/** A rate as the calculation needs it; `key` is its id, or `v1:<percent>` for a version-1 `tax_rate`. */
export interface RateTerms {
  key: string;
  percentage: bigint;
  compound: boolean;
}

export interface PricingLine {
  quantity: number;
  unit_amount: number;
  discount: Discount | null;
  /** Keys of `PricingInput.rates`; each at most once. */
  rate_keys: readonly string[];
}

export interface PricingInput {
  lines: readonly PricingLine[];
  /** Every rate the lines name, in the document's order (priority, then creation order). */
  rates: readonly RateTerms[];
  prices_include_tax: boolean;
  rounding: Rounding;
  discount: Discount | null;
}

export interface PricedLine {
  /** round(quantity × unit_amount), before discounts. */
  gross_amount: bigint;
  /** Its own discount plus its share of the document's. */
  discount_amount: bigint;
  /** After discounts, before tax: with prices including tax, the net. */
  amount: bigint;
  /** One per rate, in the document's order of rates. */
  taxes: Array<{ key: string; amount: bigint }>;
  tax_amount: bigint;
}

export interface BreakdownRow {
  key: string;
  taxable_amount: bigint;
  tax_amount: bigint;
}

export interface Pricing {
  lines: PricedLine[];
  breakdown: BreakdownRow[];
  discount_amount: bigint;
  subtotal_amount: bigint;
  tax_amount: bigint;
  total_amount: bigint;
}

/** A percentage with at most four decimals, 0–100, as ten-thousandths; undefined otherwise. */
export function parsePercentage(value: number): bigint | undefined {
  const scaled = toScaledInteger(value, PERCENT_PLACES);
  if (scaled === undefined || scaled < 0n || scaled > HUNDRED_PERCENT) return undefined;
  return scaled;
}

/** Ten-thousandths of a percent as the JSON number (99_750n → 9.975, exact in its shortest form). */
export function percentageNumber(scaled: bigint): number {
  return Number(scaled) / 10_000;
}

interface Discounted {
  gross: bigint;
  ownDiscount: bigint;
  amount: bigint;
}

function discountLines(input: PricingInput, details: ErrorDetail[]): Discounted[] {
  const lines: Discounted[] = input.lines.map((line, index) => {
    const field = `line_items[${index}]`;
    const quantity = toScaledInteger(line.quantity);
    if (quantity === undefined) {
      details.push({ field: `${field}.quantity`, message: 'must have at most 3 decimals' });
      return { gross: 0n, ownDiscount: 0n, amount: 0n };
    }
    const gross = lineAmount(quantity, BigInt(line.unit_amount));
    if (gross > MAX_AMOUNT || gross < -MAX_AMOUNT)
      details.push({ field: `${field}.amount`, message: `quantity × unit_amount must stay within ±${MAX_AMOUNT}` });
    const ownDiscount = line.discount === null ? 0n : discountOf(line.discount, gross, `${field}.discount`, details);
    if (line.discount !== null && gross < 0n)
      details.push({ field: `${field}.discount`, message: 'a credit line (below zero) takes no discount' });
    else if (line.discount !== null && gross - ownDiscount < 0n)
      details.push({ field: `${field}.discount`, message: 'the discount is larger than the line’s amount' });
    return { gross, ownDiscount, amount: gross - ownDiscount };
  });
  const discount = input.discount;
  if (discount === null || details.length > 0) return lines;
  let shares: bigint[];
  if (discount.type === 'percent') shares = lines.map((line) => discountOf(discount, line.amount, 'discount', details));
  else {
    // An amount is shared over the lines above zero, in proportion to their amounts (credit lines take none).
    const weights = lines.map((line) => (line.amount > 0n ? line.amount : 0n));
    const value = discountOf(discount, 0n, 'discount', details);
    if (details.length > 0) return lines;
    if (value > 0n && weights.every((weight) => weight === 0n)) {
      details.push({ field: 'discount.value', message: 'there is no line above zero to take the discount' });
      return lines;
    }
    shares = shareInProportion(value, weights);
  }
  const after = lines.map((line, index) => ({ ...line, amount: line.amount - (shares[index] as bigint) }));
  if (after.some((line, index) => line.amount < 0n && (lines[index] as Discounted).amount >= 0n))
    details.push({ field: 'discount.value', message: 'the discount is larger than the document’s amount' });
  return after;
}

export function discountOf(discount: Discount, amount: bigint, field: string, details: ErrorDetail[]): bigint {
  if (discount.type === 'amount') {
    if (!Number.isSafeInteger(discount.value) || discount.value < 0) {
      details.push({
        field: `${field}.value`,
        message: 'an amount discount is a whole number of minor units, 0 or more',
      });
      return 0n;
    }
    return BigInt(discount.value);
  }
  const percent = parsePercentage(discount.value);
  if (percent === undefined) {
    details.push({ field: `${field}.value`, message: 'a percent discount is 0 to 100 with at most 4 decimals' });
    return 0n;
  }
  return multiplyDivideRounded(amount, percent, HUNDRED_PERCENT);
}

/**
 * Each of a line's rates' exact tax. Without tax in the prices: non-compound rates on the amount, compound
 * rates on the amount plus the exact non-compound taxes. With tax included, the same on the exact net,
 * amount ÷ ((1 + Σ non-compound) × (1 + Σ compound)).
 */
function exactTaxes(
  amount: bigint,
  rates: readonly RateTerms[],
  inclusive: boolean,
): { net: Fraction; taxes: Fraction[] } {
  const simple = rates.filter((rate) => !rate.compound).reduce((total, rate) => total + rate.percentage, 0n);
  const compound = rates.filter((rate) => rate.compound).reduce((total, rate) => total + rate.percentage, 0n);
  const net = inclusive
    ? fraction(amount * HUNDRED_PERCENT * HUNDRED_PERCENT, (HUNDRED_PERCENT + simple) * (HUNDRED_PERCENT + compound))
    : whole(amount);
  const taxes = rates.map((rate) =>
    rate.compound
      ? fraction(net.n * (HUNDRED_PERCENT + simple) * rate.percentage, net.d * HUNDRED_PERCENT * HUNDRED_PERCENT)
      : fraction(net.n * rate.percentage, net.d * HUNDRED_PERCENT),
  );
  return { net, taxes };
}

/** Computes a document's figures exactly; throws VALIDATION_ERROR naming every offending field. */
export function priceDocument(input: PricingInput): Pricing {
  const details: ErrorDetail[] = [];
  const discounted = discountLines(input, details);
  const rateIndex = new Map(input.rates.map((rate, index) => [rate.key, index]));
  const lineRates = input.lines.map((line) =>
    [...line.rate_keys]
      .map((key) => {
        const index = rateIndex.get(key);
        if (index === undefined) throw new Error(`priceDocument: unknown rate ${key}`);
        return index;
      })
      .sort((a, b) => a - b),
  );
  if (details.length > 0) throw validationError(details);

  const inclusive = input.prices_include_tax;
  const exact = discounted.map((line, index) =>
    exactTaxes(
      line.amount,
      (lineRates[index] as number[]).map((rateIndex) => input.rates[rateIndex] as RateTerms),
      inclusive,
    ),
  );
  // taxes[line][position among the line's rates]
  const taxes: bigint[][] = exact.map((line) => line.taxes.map(() => 0n));
  if (input.rounding === 'per_line') {
    exact.forEach((line, index) => {
      const lineAmountValue = (discounted[index] as Discounted).amount;
      taxes[index] = inclusive
        ? shareNear(lineAmountValue - roundHalfAway(line.net), line.taxes)
        : line.taxes.map(roundHalfAway);
    });
  } else {
    input.rates.forEach((_rate, rateIndex) => {
      const holders: Array<[number, number]> = [];
      lineRates.forEach((rates, line) => {
        const position = rates.indexOf(rateIndex);
        if (position >= 0) holders.push([line, position]);
      });
      const parts = holders.map(
        ([line, position]) => (exact[line] as { taxes: Fraction[] }).taxes[position] as Fraction,
      );
      const shares = shareNear(roundHalfAway(sum(parts)), parts);
      holders.forEach(([line, position], holder) => {
        (taxes[line] as bigint[])[position] = shares[holder] as bigint;
      });
    });
  }

  const lines: PricedLine[] = discounted.map((line, index) => {
    const lineTaxes = taxes[index] as bigint[];
    const taxAmount = lineTaxes.reduce((a, b) => a + b, 0n);
    const amount = inclusive ? line.amount - taxAmount : line.amount;
    return {
      gross_amount: line.gross,
      discount_amount: line.gross - line.amount,
      amount,
      taxes: (lineRates[index] as number[]).map((rateIndex, position) => ({
        key: (input.rates[rateIndex] as RateTerms).key,
        amount: lineTaxes[position] as bigint,
      })),
      tax_amount: taxAmount,
    };
  });

  const breakdown: BreakdownRow[] = input.rates.map((rate) => {
    let taxable = 0n;
    let tax = 0n;
    lines.forEach((line) => {
      const own = line.taxes.find((entry) => entry.key === rate.key);
      if (!own) return;
      tax += own.amount;
      taxable += line.amount;
      // A compound rate's base is the amount plus the line's non-compound taxes.
      if (rate.compound)
        for (const entry of line.taxes) {
          const terms = input.rates[rateIndex.get(entry.key) as number] as RateTerms;
          if (!terms.compound) taxable += entry.amount;
        }
    });
    return { key: rate.key, taxable_amount: taxable, tax_amount: tax };
  });

  const subtotal = lines.reduce((total, line) => total + line.amount, 0n);
  const tax = breakdown.reduce((total, row) => total + row.tax_amount, 0n);
  const pricing: Pricing = {
    lines,
    breakdown,
    discount_amount: lines.reduce((total, line) => total + line.discount_amount, 0n),
    subtotal_amount: subtotal,
    tax_amount: tax,
    total_amount: subtotal + tax,
  };
  assertInvariants(input, discounted, pricing);
  const total = pricing.total_amount;
  if (total < 0n) throw validationError([{ field: 'line_items', message: 'the document total would be below zero' }]);
  if (total > MAX_AMOUNT || subtotal > MAX_AMOUNT || subtotal < -MAX_AMOUNT)
    throw validationError([{ field: 'line_items', message: `the document total must not exceed ${MAX_AMOUNT}` }]);
  return pricing;
}

/**
 * §19.5, checked on every computation: the lines' taxes sum to the breakdown, the breakdown to the tax, and
 * total = subtotal + tax (= the sum of the amounts entered, after discounts, when prices include tax). A
 * breach is a fault of this code, never of the request: it surfaces as a 500 with the request id logged.
 */
function assertInvariants(input: PricingInput, discounted: readonly Discounted[], pricing: Pricing): void {
  const fail = (what: string) => {
    throw new Error(`tax invariant broken: ${what}`);
  };
  for (const row of pricing.breakdown) {
    const fromLines = pricing.lines.reduce(
      (total, line) => total + line.taxes.filter((entry) => entry.key === row.key).reduce((a, b) => a + b.amount, 0n),
      0n,
    );
    if (fromLines !== row.tax_amount) fail(`the lines' ${row.key} taxes do not sum to the breakdown`);
  }
  pricing.lines.forEach((line, index) => {
    if (line.taxes.reduce((total, entry) => total + entry.amount, 0n) !== line.tax_amount)
      fail(`line ${index}'s taxes do not sum to its tax`);
    const entered = (discounted[index] as Discounted).amount;
    if ((input.prices_include_tax ? line.amount + line.tax_amount : line.amount) !== entered)
      fail(`line ${index}'s amount does not follow from what was entered`);
  });
  if (pricing.breakdown.reduce((total, row) => total + row.tax_amount, 0n) !== pricing.tax_amount)
    fail('the breakdown does not sum to the tax');
  if (pricing.subtotal_amount + pricing.tax_amount !== pricing.total_amount) fail('subtotal + tax is not the total');
  if (input.prices_include_tax) {
    const grossSum = discounted.reduce((total, line) => total + line.amount, 0n);
    if (grossSum !== pricing.total_amount) fail('the total is not the sum of the amounts entered');
  }
  if (
    input.discount?.type === 'amount' &&
    pricing.discount_amount !== sumOwnDiscounts(discounted) + BigInt(input.discount.value)
  )
    fail('the amount discount was not shared exactly');
}

function sumOwnDiscounts(lines: readonly Discounted[]): bigint {
  return lines.reduce((total, line) => total + line.ownDiscount, 0n);
}
