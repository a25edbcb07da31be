// A list of tax rate ids in a body (a product's, a property's, the account's, a line's): distinct, each a
// rate of the account (422 naming the position otherwise), active unless the object already had it (an
// inactive rate stays valid where it is used, docs/api-contract.md §19).
import { Type } from '@sinclair/typebox';
import { validationError, type ErrorDetail } from '../../core/errors.js';
import type { Executor } from '../../db/index.js';
import type { TaxRateRow } from '../../db/types.js';
import { findTaxRates } from './tax-rates.repository.js';

export const MAX_TAX_RATE_IDS = 5;

export const TaxRateIdsSchema = (description: string) =>
  Type.Array(Type.String({ format: 'uuid', description: 'A tax rate id.' }), {
    maxItems: MAX_TAX_RATE_IDS,
    uniqueItems: true,
    description,
    example: ['019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f02'],
  });

/** The rates named, in the order given; throws VALIDATION_ERROR naming each bad position. */
export async function requireTaxRates(
  db: Executor,
  accountId: string,
  field: string,
  ids: readonly string[],
  kept: ReadonlySet<string> = new Set(),
): Promise<TaxRateRow[]> {
  const details: ErrorDetail[] = [];
  const rows = new Map((await findTaxRates(db, accountId, ids)).map((row) => [row.id, row]));
  ids.forEach((id, index) => {
    const row = rows.get(id);
    if (!row) details.push({ field: `${field}[${index}]`, message: `no tax rate with id '${id}' exists` });
    else if (Number(row.active) !== 1 && !kept.has(id))
      details.push({ field: `${field}[${index}]`, message: `tax rate '${row.name}' is inactive and takes no new use` });
  });
  if (details.length > 0) throw validationError(details);
  return ids.map((id) => rows.get(id) as TaxRateRow);
}
