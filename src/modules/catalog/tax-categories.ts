// A tax rate's VAT category and exemption (docs/api-contract.md §31), and how they must agree with its
// percentage: S above 0 %; Z, E, AE, K, G and O at 0 %; E, AE, K, G and O with a reason or a code, S and Z
// without. EN 16931 states the same as BR-S-05, BR-Z-05, BR-E-05, BR-AE-05, BR-IC-05, BR-G-05, BR-O-05 and
// their -10 rules; refusing a rate that breaks them keeps every e-invoice that uses it valid.
import type { ErrorDetail } from '../../core/errors.js';

/** The VAT terms of a rate, frozen with its percentage once a document that is not a draft used it. */
export const VAT_TERMS = ['tax_category', 'exemption_reason', 'exemption_reason_code'] as const;

export interface VatTerms {
  /** Ten-thousandths of a percent. */
  percentage: bigint;
  tax_category: string | null;
  exemption_reason: string | null;
  exemption_reason_code: string | null;
}

const RULES: Record<string, { positive: boolean; exempt: boolean; rule: string }> = {
  S: { positive: true, exempt: false, rule: 'BR-S-05' },
  Z: { positive: false, exempt: false, rule: 'BR-Z-05' },
  E: { positive: false, exempt: true, rule: 'BR-E-05' },
  AE: { positive: false, exempt: true, rule: 'BR-AE-05' },
  K: { positive: false, exempt: true, rule: 'BR-IC-05' },
  G: { positive: false, exempt: true, rule: 'BR-G-05' },
  O: { positive: false, exempt: true, rule: 'BR-O-05' },
};

export function categoryProblems(terms: VatTerms): ErrorDetail[] {
  const { tax_category: category, exemption_reason: reason, exemption_reason_code: code } = terms;
  const exempted = reason !== null || code !== null;
  if (category === null)
    return exempted
      ? [{ field: 'tax_category', message: 'is required with exemption_reason or exemption_reason_code' }]
      : [];
  const rule = RULES[category];
  if (rule === undefined) return [{ field: 'tax_category', message: 'must be one of S, Z, E, AE, K, G, O' }];
  const details: ErrorDetail[] = [];
  if (rule.positive && terms.percentage <= 0n)
    details.push({ field: 'percentage', message: `must be above 0 for category ${category} (${rule.rule})` });
  if (!rule.positive && terms.percentage !== 0n)
    details.push({ field: 'percentage', message: `must be 0 for category ${category} (${rule.rule})` });
  if (rule.exempt && !exempted)
    details.push({
      field: 'exemption_reason',
      message: `category ${category} needs exemption_reason or exemption_reason_code`,
    });
  if (!rule.exempt && exempted)
    details.push({
      field: reason !== null ? 'exemption_reason' : 'exemption_reason_code',
      message: `category ${category} takes no exemption`,
    });
  return details;
}
