// The exact arithmetic of the reports (docs/api-contract.md §24, §32 "Money"), kept with the ledger since its cash
// day totals are summed as entries post: the cumulative largest-remainder split of the cash basis and the half-away
// rounding of a rate's taxable share, in BigInt so that no product of two amounts ever passes 2^53.
import { multiplyDivideRounded } from '../documents/index.js';

/**
 * `amount` shared over `weights` pro rata by largest remainder, ties to the lower index: the shares sum to
 * `amount` exactly, and the amount of every weight together gives each weight exactly. Weights of 0 or less
 * take nothing; with no positive weight the first takes all.
 */
export function largestRemainder(amount: number, weights: readonly number[]): number[] {
  const positive = weights.map((weight) => (weight > 0 ? BigInt(weight) : 0n));
  const whole = positive.reduce((sum, weight) => sum + weight, 0n);
  if (whole === 0n) return weights.map((_, index) => (index === 0 ? amount : 0));
  const sign = amount < 0 ? -1n : 1n;
  const total = BigInt(Math.abs(amount));
  const shares = positive.map((weight) => (total * weight) / whole);
  const remainders = positive.map((weight) => (total * weight) % whole);
  let left = total - shares.reduce((sum, share) => sum + share, 0n);
  const order = remainders
    .map((remainder, index) => ({ remainder, index }))
    .sort((a, b) => (a.remainder > b.remainder ? -1 : a.remainder < b.remainder ? 1 : a.index - b.index));
  for (const { index } of order) {
    if (left === 0n) break;
    shares[index]! += 1n;
    left -= 1n;
  }
  return shares.map((share) => Number(sign * share));
}

/** amount × part / whole, rounded half away from zero (0 when whole is 0). */
export function proRata(amount: number, part: number, whole: number): number {
  if (whole === 0) return 0;
  return Number(multiplyDivideRounded(BigInt(amount), BigInt(part), BigInt(whole)));
}
