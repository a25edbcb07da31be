// Percentages with at most four decimals, held as integer ten-thousandths of a percent (9.975 % → 99750):
// how tax rates are stored and how the calculation (documents/tax.ts) takes them.

const HUNDRED_PERCENT = 1_000_000n;

/** A percentage 0–100 with at most four decimals, as ten-thousandths; undefined otherwise. */
export function parsePercentage(value: number): bigint | undefined {
  if (!Number.isFinite(value)) return undefined;
  const match = /^(\d+)(?:\.(\d+))?$/.exec(String(value));
  if (!match) return undefined;
  const [, whole, fraction = ''] = match;
  if (fraction.length > 4) return undefined;
  const scaled = BigInt(`${whole}${fraction.padEnd(4, '0')}`);
  return scaled > HUNDRED_PERCENT ? undefined : scaled;
}

/** Ten-thousandths of a percent as the JSON number (99750n → 9.975, exact in its shortest form). */
export function percentageNumber(scaled: bigint): number {
  return Number(scaled) / 10_000;
}
