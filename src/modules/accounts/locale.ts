// How the account's documents are printed: its locale (dates and amounts) and its paper size. The locale is a
// BCP 47 tag the runtime can format in; the paper size, when the business has not chosen one, follows its country.
import { fieldError } from '../../core/errors.js';

export const DEFAULT_LOCALE = 'en-US';
export const PAPER_SIZES = ['letter', 'a4'] as const;
export type PaperSize = (typeof PAPER_SIZES)[number];

/**
 * The countries that print on US Letter: CLDR's supplemental measurement data (`paperSize` "US-Letter":
 * BZ CA CL CO CR GT MX NI PA PH PR SV US VE). Everywhere else prints on A4.
 */
const LETTER_COUNTRIES = new Set(['BZ', 'CA', 'CL', 'CO', 'CR', 'GT', 'MX', 'NI', 'PA', 'PH', 'PR', 'SV', 'US', 'VE']);

/** A BCP 47 tag in its canonical form (`EN-us` -> `en-US`), or 422 on `field` when it is no tag or the runtime cannot format in it. */
export function canonicalLocale(field: string, value: string): string {
  let canonical: string | undefined;
  try {
    canonical = Intl.getCanonicalLocales(value)[0];
  } catch {
    canonical = undefined;
  }
  if (canonical === undefined)
    throw fieldError(field, `'${value}' is not a BCP 47 language tag (e.g. en-US, de-DE, fr-CA)`);
  const supported =
    Intl.DateTimeFormat.supportedLocalesOf([canonical], { localeMatcher: 'lookup' }).length > 0 &&
    Intl.NumberFormat.supportedLocalesOf([canonical], { localeMatcher: 'lookup' }).length > 0;
  if (!supported) throw fieldError(field, `'${value}' is a language this server cannot format dates and amounts in`);
  return canonical;
}

/**
 * The paper the documents print on: the account's choice, else Letter in the Letter countries and A4
 * elsewhere. The country is the business address's, else the region of its locale (`en-US` -> US).
 */
export function effectivePaperSize(
  chosen: string | null,
  country: string | null | undefined,
  locale: string | null | undefined,
): PaperSize {
  if (chosen === 'letter' || chosen === 'a4') return chosen;
  let region = country ?? undefined;
  if (!region) {
    try {
      region = new Intl.Locale(locale ?? DEFAULT_LOCALE).maximize().region;
    } catch {
      region = undefined;
    }
  }
  return region && LETTER_COUNTRIES.has(region.toUpperCase()) ? 'letter' : 'a4';
}
