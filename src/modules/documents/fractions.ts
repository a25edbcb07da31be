// Exact rational numbers over BigInt, and the largest-remainder sharing that docs/api-contract.md §19 uses
// wherever a rounded total must be split into whole minor units that sum to it exactly.

/** n / d with d > 0, not necessarily reduced (the numbers stay small enough: ≤ 200 lines, ≤ 5 rates). */
export interface Fraction {
  n: bigint;
  d: bigint;
}

export const ZERO: Fraction = { n: 0n, d: 1n };

function gcd(a: bigint, b: bigint): bigint {
  let x = a < 0n ? -a : a;
  let y = b < 0n ? -b : b;
  while (y !== 0n) [x, y] = [y, x % y];
  return x;
}

export function fraction(n: bigint, d: bigint): Fraction {
  if (d === 0n) throw new Error('fraction with a zero denominator');
  const sign = d < 0n ? -1n : 1n;
  const divisor = gcd(n, d) || 1n;
  return { n: (sign * n) / divisor, d: (sign * d) / divisor };
}

export function add(a: Fraction, b: Fraction): Fraction {
  return a.d === b.d ? fraction(a.n + b.n, a.d) : fraction(a.n * b.d + b.n * a.d, a.d * b.d);
}

export function subtract(a: Fraction, b: Fraction): Fraction {
  return add(a, { n: -b.n, d: b.d });
}

export function multiply(a: Fraction, b: Fraction): Fraction {
  return fraction(a.n * b.n, a.d * b.d);
}

export function divide(a: Fraction, b: Fraction): Fraction {
  return fraction(a.n * b.d, a.d * b.n);
}

export function whole(value: bigint): Fraction {
  return { n: value, d: 1n };
}

export function absolute(a: Fraction): Fraction {
  return a.n < 0n ? { n: -a.n, d: a.d } : a;
}

export function sum(values: readonly Fraction[]): Fraction {
  return values.reduce(add, ZERO);
}

/** Rounded to a whole number, halves away from zero (docs/api-contract.md §6). */
export function roundHalfAway(a: Fraction): bigint {
  const magnitude = a.n < 0n ? -a.n : a.n;
  const rounded = (magnitude * 2n + a.d) / (a.d * 2n);
  return a.n < 0n ? -rounded : rounded;
}

/** The largest whole number not above a. */
export function floor(a: Fraction): bigint {
  if (a.n >= 0n) return a.n / a.d;
  return -((-a.n + a.d - 1n) / a.d);
}

function compare(a: Fraction, b: Fraction): number {
  const left = a.n * b.d;
  const right = b.n * a.d;
  return left < right ? -1 : left > right ? 1 : 0;
}

/**
 * Whole parts from exact quotas that sum to the whole number `total`: each quota's floor, then one more
 * unit to the largest remainders until the parts reach the total, ties to the lower index (§21 "Tax.").
 */
export function apportion(total: bigint, quotas: readonly Fraction[]): bigint[] {
  const floors = quotas.map(floor);
  let missing = total - floors.reduce((a, b) => a + b, 0n);
  if (missing < 0n || missing > BigInt(quotas.length)) throw new Error(`apportion: the quotas do not sum to ${total}`);
  const order = quotas
    .map((quota, index) => ({ index, remainder: subtract(quota, whole(floors[index] as bigint)) }))
    .sort((a, b) => compare(b.remainder, a.remainder) || a.index - b.index);
  for (const { index } of order) {
    if (missing === 0n) break;
    floors[index] = (floors[index] as bigint) + 1n;
    missing -= 1n;
  }
  return floors;
}

/** `total` shared in proportion to non-negative weights (an amount discount over the lines' amounts). */
export function shareInProportion(total: bigint, weights: readonly bigint[]): bigint[] {
  const weightSum = weights.reduce((a, b) => a + b, 0n);
  if (weightSum === 0n)
    return apportion(
      total,
      weights.map(() => fraction(total, BigInt(weights.length || 1))),
    );
  return apportion(
    total,
    weights.map((weight) => fraction(total * weight, weightSum)),
  );
}

/**
 * A rounded total shared in proportion to the exact values it was rounded from. Each quota is the exact
 * value plus its share of the rounding difference by magnitude: for values of one sign that is exactly the
 * proportion total × value / Σ values; with a credit line among them it keeps every part near its own exact
 * value instead of magnifying opposite signs (docs/decisions.md).
 */
export function shareNear(total: bigint, exact: readonly Fraction[]): bigint[] {
  if (exact.length === 0) return [];
  const difference = subtract(whole(total), sum(exact));
  const magnitude = sum(exact.map(absolute));
  if (magnitude.n === 0n)
    return apportion(
      total,
      exact.map(() => fraction(total, BigInt(exact.length))),
    );
  return apportion(
    total,
    exact.map((value) => add(value, multiply(difference, divide(absolute(value), magnitude)))),
  );
}
