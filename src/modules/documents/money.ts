// Exact money arithmetic: amounts are integer minor units, quantities and tax rates are decimals with at
// most three places, held as integer thousandths. Everything is BigInt: no binary floating point.

/** The largest absolute amount any line or total may reach: below 2^53, so JSON numbers stay exact. */
export const MAX_AMOUNT = 99_999_999_999_999n;

/**
 * A JSON number with at most `places` decimals as an integer count of 10^-places units, or undefined when
 * it has more places or is not finite. JavaScript prints a parsed JSON number in its shortest exact
 * decimal form, so `String(1.005)` is "1.005", the digits the client wrote.
 */
export function toScaledInteger(value: number, places = 3): bigint | undefined {
  if (!Number.isFinite(value)) return undefined;
  const text = String(value);
  const match = /^(-?)(\d+)(?:\.(\d+))?$/.exec(text);
  if (!match) return undefined; // exponent forms (1e-7, 1e+21) are outside every range we accept
  const [, sign, whole, fraction = ''] = match;
  if (fraction.length > places) return undefined;
  const scaled = BigInt(`${whole}${fraction.padEnd(places, '0')}`);
  return sign === '-' ? -scaled : scaled;
}

/** round_half_up(a × b / divisor), halves rounded away from zero, exactly. */
export function multiplyDivideRounded(a: bigint, b: bigint, divisor: bigint): bigint {
  const product = a * b;
  const negative = product < 0n !== divisor < 0n;
  const absoluteProduct = product < 0n ? -product : product;
  const absoluteDivisor = divisor < 0n ? -divisor : divisor;
  const quotient = (absoluteProduct * 2n + absoluteDivisor) / (absoluteDivisor * 2n);
  return negative ? -quotient : quotient;
}

/** A line's amount: quantity (thousandths) × unit amount, rounded half up to a whole minor unit. */
export function lineAmount(quantityThousandths: bigint, unitAmount: bigint): bigint {
  return multiplyDivideRounded(quantityThousandths, unitAmount, 1000n);
}

/** A line's tax: amount × rate (thousandths of a percent) / 100, rounded half up. */
export function lineTax(amount: bigint, taxRateThousandths: bigint): bigint {
  return multiplyDivideRounded(amount, taxRateThousandths, 100_000n);
}
