// Tax rate rules (docs/api-contract.md §19): percentage with at most four decimals; percentage, compound and
// priority frozen once a document that is not a draft used the rate (409 INVALID_STATE: make a new rate);
// delete refused while anything names the rate (409 CONFLICT: deactivate it instead).
import { newId } from '../../core/deps.js';
import {
  conflict,
  validationError,
  type ErrorDetail,
  fieldError,
  fieldProblems,
  invalidState,
  type Precondition,
} from '../../core/errors.js';
import { fromJson, type Page, pageRequest, toPage } from '../../db/index.js';
import type { TaxRatePatch, TaxRateRow } from '../../db/types.js';
import { inTransaction, type Context } from '../../kernel/context.js';
import { recordChange, recordEvent } from '../events/index.js';
import { guardExternalId, requireRow } from '../shared/index.js';
import { parsePercentage, percentageNumber } from './percentages.js';
import * as repository from './tax-rates.repository.js';
import type {
  CreateTaxRateInput,
  ListTaxRatesInput,
  TaxCategory,
  TaxRate,
  UpdateTaxRateInput,
} from './tax-rates.schemas.js';
import { categoryProblems, VAT_TERMS } from './tax-categories.js';

export function presentTaxRate(row: TaxRateRow): TaxRate {
  return {
    id: row.id,
    object: 'tax_rate',
    name: row.name,
    percentage: percentageNumber(BigInt(row.percentage)),
    compound: Number(row.compound) === 1,
    priority: Number(row.priority),
    registration_number: row.registration_number,
    tax_category: (row.tax_category ?? null) as TaxCategory | null,
    exemption_reason: row.exemption_reason ?? null,
    exemption_reason_code: row.exemption_reason_code ?? null,
    active: Number(row.active) === 1,
    external_id: row.external_id,
    metadata: fromJson<Record<string, string>>(row.metadata),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

function getRow(ctx: Context, id: string, lock = false): Promise<TaxRateRow> {
  return requireRow('tax rate', id, (found) => repository.findTaxRate(ctx.db, ctx.accountId, found, lock));
}

function scaledPercentage(value: number): number {
  const scaled = parsePercentage(value);
  if (scaled === undefined) throw fieldError('percentage', 'must be 0 to 100 with at most 4 decimals');
  return Number(scaled);
}

/** A tax rate body's own field check, for a body the schema refused too: the percentage. */
export async function taxRateFieldChecks(body: unknown): Promise<ErrorDetail[]> {
  const { percentage } = body as { percentage?: unknown };
  return fieldProblems(() => typeof percentage === 'number' && scaledPercentage(percentage));
}

/** The VAT category, its exemption and the percentage must agree (docs/api-contract.md §31): 422 otherwise. */
function assertCategoryAgrees(terms: Parameters<typeof categoryProblems>[0]): void {
  const details = categoryProblems(terms);
  if (details.length > 0) throw validationError(details);
}

export async function createTaxRate(ctx: Context, input: CreateTaxRateInput): Promise<TaxRate> {
  const percentage = scaledPercentage(input.percentage);
  assertCategoryAgrees({
    percentage: BigInt(percentage),
    tax_category: input.tax_category ?? null,
    exemption_reason: input.exemption_reason ?? null,
    exemption_reason_code: input.exemption_reason_code ?? null,
  });
  return guardExternalId(ctx, 'tax_rates', input.external_id, () =>
    inTransaction(ctx, async (tx) => {
      const now = tx.clock.now().toISOString();
      const row: TaxRateRow = {
        id: newId(),
        account_id: tx.accountId,
        name: input.name,
        percentage,
        compound: input.compound ? 1 : 0,
        priority: input.priority ?? 0,
        registration_number: input.registration_number ?? null,
        tax_category: input.tax_category ?? null,
        exemption_reason: input.exemption_reason ?? null,
        exemption_reason_code: input.exemption_reason_code ?? null,
        active: input.active === false ? 0 : 1,
        external_id: input.external_id ?? null,
        metadata: JSON.stringify(input.metadata ?? {}),
        created_at: now,
        updated_at: now,
      };
      await repository.insertTaxRate(tx.db, row);
      const rate = presentTaxRate(row);
      await recordEvent(tx, 'tax_rate.created', rate);
      return rate;
    }),
  );
}

export async function getTaxRate(ctx: Context, id: string): Promise<TaxRate> {
  return presentTaxRate(await getRow(ctx, id));
}

export async function updateTaxRate(
  ctx: Context,
  id: string,
  input: UpdateTaxRateInput,
  precondition?: Precondition,
): Promise<TaxRate> {
  const patch: TaxRatePatch = {};
  if (input.name !== undefined) patch.name = input.name;
  if (input.percentage !== undefined) patch.percentage = scaledPercentage(input.percentage);
  if (input.compound !== undefined) patch.compound = input.compound ? 1 : 0;
  if (input.priority !== undefined) patch.priority = input.priority;
  if (input.registration_number !== undefined) patch.registration_number = input.registration_number;
  for (const field of VAT_TERMS) if (input[field] !== undefined) patch[field] = input[field];
  if (input.active !== undefined) patch.active = input.active ? 1 : 0;
  if (input.external_id !== undefined) patch.external_id = input.external_id;
  if (input.metadata !== undefined) patch.metadata = JSON.stringify(input.metadata);
  return guardExternalId(
    ctx,
    'tax_rates',
    input.external_id,
    () =>
      inTransaction(ctx, async (tx) => {
        const current = await getRow(tx, id, true);
        precondition?.(presentTaxRate(current));
        if (Object.keys(patch).length === 0) return presentTaxRate(current);
        assertCategoryAgrees({
          percentage: BigInt(patch.percentage ?? current.percentage),
          tax_category: (patch.tax_category !== undefined ? patch.tax_category : current.tax_category) ?? null,
          exemption_reason:
            (patch.exemption_reason !== undefined ? patch.exemption_reason : current.exemption_reason) ?? null,
          exemption_reason_code:
            (patch.exemption_reason_code !== undefined ? patch.exemption_reason_code : current.exemption_reason_code) ??
            null,
        });
        const terms = [
          ...(['percentage', 'compound', 'priority'] as const).filter(
            (field) => patch[field] !== undefined && Number(patch[field]) !== Number(current[field]),
          ),
          // The VAT terms freeze with the percentage; a rate used before it had a category may take its first one.
          ...(current.tax_category === null || current.tax_category === undefined
            ? []
            : VAT_TERMS.filter((field) => patch[field] !== undefined && patch[field] !== (current[field] ?? null))),
        ];
        if (terms.length > 0) {
          const used = await repository.countDocumentsNaming(tx.db, tx.accountId, current.id, { pastDraft: true });
          if (used.length > 0)
            throw invalidState(
              `The ${terms.join(', ')} of this tax rate cannot change: ${describe(used)} that ${used.length === 1 && used[0]?.count === 1 ? 'is' : 'are'} not a draft used it. Create a new rate instead.`,
            );
        }
        const updated = await repository.updateTaxRate(tx.db, tx.accountId, current.id, {
          ...patch,
          updated_at: tx.clock.now().toISOString(),
        });
        const rate = presentTaxRate(updated ?? current);
        await recordChange(tx, { resource: 'tax_rate', before: presentTaxRate(current), after: rate });
        return rate;
      }),
    id,
  );
}

function describe(found: ReadonlyArray<{ label: string; count: number }>): string {
  return found.map(({ label, count }) => `${count} ${label}${count === 1 ? '' : 's'}`).join(', ');
}

/** Refused while a document, product, property or the account's defaults name the rate: deactivate it instead. */
export async function deleteTaxRate(
  ctx: Context,
  id: string,
  precondition?: Precondition,
): Promise<{ id: string; deleted: true }> {
  return inTransaction(ctx, async (tx) => {
    const row = await getRow(tx, id, true);
    precondition?.(presentTaxRate(row));
    const documents = await repository.countDocumentsNaming(tx.db, tx.accountId, row.id, {
      pastDraft: false,
      also: 'tax_breakdown',
    });
    const holders = [
      ...(documents.length > 0 ? [describe(documents)] : []),
      ...(await repository.countDefaultsNaming(tx.db, tx.accountId, row.id)),
    ];
    if (holders.length > 0)
      throw conflict(`This tax rate cannot be deleted while ${holders.join(', ')} name it. Deactivate it instead.`);
    await repository.deleteTaxRate(tx.db, tx.accountId, row.id);
    await recordEvent(tx, 'tax_rate.deleted', presentTaxRate(row));
    return { id: row.id, deleted: true as const };
  });
}

export async function listTaxRates(ctx: Context, query: ListTaxRatesInput): Promise<Page<TaxRateRow>> {
  const page = pageRequest(query, repository.TAX_RATE_SORTS);
  const { rows, resumeAfter } = await repository.listTaxRates(ctx.db, ctx.accountId, query, page);
  return toPage(rows, page, resumeAfter);
}
