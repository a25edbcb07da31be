// Product rules (docs/api-contract.md §19): the code unique among active products and the external_id per
// account (409 naming the holder, also when two writes race: the unique indexes decide); tax_rate_ids name
// active rates of the account; editing a product never changes a document (lines copy what they take);
// delete refused while a document line refers to it (deactivate instead).
import { newId } from '../../core/deps.js';
import {
  AppError,
  conflict,
  type ErrorDetail,
  fieldError,
  fieldProblems,
  type Precondition,
  validationError,
} from '../../core/errors.js';
import { fromJson, type Page, pageRequest, toPage } from '../../db/index.js';
import type { ProductPatch, ProductRow } from '../../db/types.js';
import { inTransaction, type Context } from '../../kernel/context.js';
import {
  createdCustomFields,
  customFieldConditions,
  deleteCustomFieldValues,
  storedValues,
  updatedCustomFields,
} from '../custom-fields/index.js';
import { recordChange, recordEvent } from '../events/index.js';
import { externalIdConflict, guardUnique, requireRow } from '../shared/index.js';
import * as repository from './products.repository.js';
import type {
  CreateProductInput,
  ListProductsInput,
  Product,
  ProductType,
  UpdateProductInput,
} from './products.schemas.js';
import { requireTaxRates } from './tax-rate-references.js';
import { countDocumentsNaming } from './tax-rates.repository.js';

export function presentProduct(row: ProductRow): Product {
  return {
    id: row.id,
    object: 'product',
    type: row.type as ProductType,
    name: row.name,
    description: row.description,
    code: row.code,
    unit_amount: row.unit_amount === null ? null : Number(row.unit_amount),
    currency: row.currency,
    unit_label: row.unit_label,
    unit_code: row.unit_code ?? null,
    default_quantity: Number(row.default_quantity) / 1000,
    tax_rate_ids: row.tax_rate_ids === null ? null : fromJson<string[]>(row.tax_rate_ids),
    taxable: Number(row.taxable) === 1,
    cost_amount: row.cost_amount === null ? null : Number(row.cost_amount),
    duration_minutes: row.duration_minutes === null ? null : Number(row.duration_minutes),
    active: Number(row.active) === 1,
    external_id: row.external_id,
    metadata: fromJson<Record<string, string>>(row.metadata),
    custom_fields: storedValues(row.custom_fields),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

function getRow(ctx: Context, id: string, lock = false): Promise<ProductRow> {
  return requireRow('product', id, (found) => repository.findProduct(ctx.db, ctx.accountId, found, lock));
}

function thousandths(value: number): number {
  const text = String(value);
  const match = /^(\d+)(?:\.(\d{1,3}))?$/.exec(text);
  if (!match) throw fieldError('default_quantity', 'must have at most 3 decimals');
  return Number(match[1]) * 1000 + Number((match[2] ?? '').padEnd(3, '0'));
}

interface Claims {
  code: string | null;
  active: boolean;
  external_id: string | null;
}

async function takenClaim(ctx: Context, claims: Claims, self?: string): Promise<AppError | undefined> {
  if (claims.code !== null && claims.active) {
    const holder = await repository.findActiveProductByCode(ctx.db, ctx.accountId, claims.code);
    if (holder !== undefined && holder !== self) {
      const message = `is already the code of active product ${holder}; codes are unique among active products`;
      return new AppError('CONFLICT', `code '${claims.code}' ${message}.`, [{ field: 'code', message }]);
    }
  }
  return claims.external_id === null ? undefined : externalIdConflict(ctx, 'products', claims.external_id, self);
}

function assertTaxable(taxable: boolean, taxRateIds: readonly string[] | null) {
  if (!taxable && taxRateIds !== null && taxRateIds.length > 0)
    throw fieldError('tax_rate_ids', 'a product that is not taxable names no tax rates');
}

/**
 * A product body's own field checks that need no database, for a body the schema refused too:
 * the default quantity's decimals, and tax rates on a product that is not taxable.
 */
export async function productFieldChecks(body: unknown): Promise<ErrorDetail[]> {
  const input = body as { default_quantity?: unknown; taxable?: unknown; tax_rate_ids?: unknown };
  return fieldProblems(
    () => typeof input.default_quantity === 'number' && thousandths(input.default_quantity),
    () => input.taxable === false && Array.isArray(input.tax_rate_ids) && assertTaxable(false, input.tax_rate_ids),
  );
}

export async function createProduct(ctx: Context, input: CreateProductInput): Promise<Product> {
  const taxRateIds = input.tax_rate_ids ?? null;
  const taxable = input.taxable ?? true;
  // Every field check that needs no database first, in one 422.
  const problems = await productFieldChecks(input);
  if (problems.length > 0) throw validationError(problems);
  const defaultQuantity = thousandths(input.default_quantity ?? 1);
  if (taxRateIds) await requireTaxRates(ctx.db, ctx.accountId, 'tax_rate_ids', taxRateIds);
  const now = ctx.clock.now().toISOString();
  const row: ProductRow = {
    id: newId(),
    account_id: ctx.accountId,
    type: input.type,
    name: input.name,
    sort_name: input.name.toLowerCase(),
    description: input.description ?? null,
    code: input.code ?? null,
    unit_amount: input.unit_amount ?? null,
    currency: input.currency ?? (await repository.findAccountCurrency(ctx.db, ctx.accountId)),
    unit_label: input.unit_label ?? null,
    unit_code: input.unit_code ?? null,
    default_quantity: defaultQuantity,
    tax_rate_ids: taxRateIds === null ? null : JSON.stringify(taxRateIds),
    taxable: taxable ? 1 : 0,
    cost_amount: input.cost_amount ?? null,
    duration_minutes: input.duration_minutes ?? null,
    active: input.active === false ? 0 : 1,
    external_id: input.external_id ?? null,
    metadata: JSON.stringify(input.metadata ?? {}),
    custom_fields: '{}',
    created_at: now,
    updated_at: now,
  };
  const claims: Claims = { code: row.code, active: row.active === 1, external_id: row.external_id };
  return guardUnique(
    ctx,
    (tx) => takenClaim(tx, claims),
    () =>
      inTransaction(ctx, async (tx) => {
        row.custom_fields = await createdCustomFields(tx, 'product', row, input.custom_fields);
        await repository.insertProduct(tx.db, row);
        const product = presentProduct(row);
        await recordEvent(tx, 'product.created', product);
        return product;
      }),
  );
}

export async function getProduct(ctx: Context, id: string): Promise<Product> {
  return presentProduct(await getRow(ctx, id));
}

export async function updateProduct(
  ctx: Context,
  id: string,
  input: UpdateProductInput,
  precondition?: Precondition,
): Promise<Product> {
  const patch: ProductPatch = {};
  const {
    name,
    default_quantity,
    tax_rate_ids,
    taxable,
    active,
    metadata,
    custom_fields: customFields,
    ...plain
  } = input;
  Object.assign(patch, plain);
  if (name !== undefined) Object.assign(patch, { name, sort_name: name.toLowerCase() });
  if (default_quantity !== undefined) patch.default_quantity = thousandths(default_quantity);
  if (tax_rate_ids !== undefined) patch.tax_rate_ids = tax_rate_ids === null ? null : JSON.stringify(tax_rate_ids);
  if (taxable !== undefined) patch.taxable = taxable ? 1 : 0;
  if (active !== undefined) patch.active = active ? 1 : 0;
  if (metadata !== undefined) patch.metadata = JSON.stringify(metadata);
  const claims = async (tx: Context): Promise<Claims> => {
    const current = await repository.findProduct(tx.db, tx.accountId, id);
    return {
      code: patch.code !== undefined ? (patch.code ?? null) : (current?.code ?? null),
      active: patch.active !== undefined ? patch.active === 1 : Number(current?.active ?? 0) === 1,
      external_id: patch.external_id !== undefined ? (patch.external_id ?? null) : (current?.external_id ?? null),
    };
  };
  const write = () =>
    inTransaction(ctx, async (tx) => {
      const current = await getRow(tx, id, true);
      precondition?.(presentProduct(current));
      const values = await updatedCustomFields(tx, 'product', current, customFields, current.custom_fields);
      if (Object.keys(patch).length === 0 && values === undefined) return presentProduct(current);
      const after = { ...current, ...patch } as ProductRow;
      const afterIds = after.tax_rate_ids === null ? null : fromJson<string[]>(after.tax_rate_ids);
      assertTaxable(Number(after.taxable) === 1, afterIds);
      if (tax_rate_ids) {
        const kept = new Set(current.tax_rate_ids === null ? [] : fromJson<string[]>(current.tax_rate_ids));
        await requireTaxRates(tx.db, tx.accountId, 'tax_rate_ids', tax_rate_ids, kept);
      }
      const updated = await repository.updateProduct(tx.db, tx.accountId, current.id, {
        ...patch,
        ...(values !== undefined ? { custom_fields: values } : {}),
        updated_at: tx.clock.now().toISOString(),
      });
      const product = presentProduct(updated ?? current);
      await recordChange(tx, { resource: 'product', before: presentProduct(current), after: product });
      return product;
    });
  if (patch.code === undefined && patch.active === undefined && patch.external_id === undefined) return write();
  return guardUnique(ctx, async (tx) => takenClaim(tx, await claims(tx), id), write);
}

/** Refused while a document line refers to the product: deactivate it instead. */
export async function deleteProduct(
  ctx: Context,
  id: string,
  precondition?: Precondition,
): Promise<{ id: string; deleted: true }> {
  return inTransaction(ctx, async (tx) => {
    const row = await getRow(tx, id, true);
    precondition?.(presentProduct(row));
    const used = await countDocumentsNaming(tx.db, tx.accountId, row.id, { pastDraft: false });
    if (used.length > 0) {
      const list = used.map(({ label, count }) => `${count} ${label}${count === 1 ? '' : 's'}`).join(', ');
      throw conflict(`This product cannot be deleted while lines of ${list} refer to it. Deactivate it instead.`);
    }
    await deleteCustomFieldValues(tx.db, tx.accountId, 'product', row.id);
    await repository.deleteProduct(tx.db, tx.accountId, row.id);
    await recordEvent(tx, 'product.deleted', presentProduct(row));
    return { id: row.id, deleted: true as const };
  });
}

export async function listProducts(ctx: Context, query: ListProductsInput): Promise<Page<ProductRow>> {
  const page = pageRequest(query, repository.PRODUCT_SORTS);
  const custom = await customFieldConditions(ctx.db, ctx.accountId, 'product', 'products', query);
  const { rows, resumeAfter } = await repository.listProducts(ctx.db, ctx.accountId, { ...query, custom }, page);
  return toPage(rows, page, resumeAfter);
}
