// Custom field definitions (docs/api-contract.md §27): resource, key and type fixed once made; an option's value
// fixed, an option in use archived rather than removed (409); bounds and `required` bind later writes only
// (stored values stay); DELETE takes the field from every answer and filter at once (deleted_at) and leaves its
// values to the purge (purge.ts), its key taken until then.
import { newId } from '../../core/deps.js';
import { AppError, type ErrorDetail, type Precondition, validationError } from '../../core/errors.js';
import { fromJson, type Page, pageRequest, toPage } from '../../db/index.js';
import type { CustomFieldRow } from '../../db/types.js';
import { inTransaction, type Context } from '../../kernel/context.js';
import { recordChange, recordEvent } from '../events/index.js';
import { isUniqueViolation, requireRow } from '../shared/index.js';
import * as repository from './custom-fields.repository.js';
import type {
  CreateCustomFieldInput,
  CustomField,
  CustomFieldBounds,
  CustomFieldOption,
  CustomFieldResource,
  CustomFieldType,
  ListCustomFieldsInput,
  UpdateCustomFieldInput,
} from './custom-fields.schemas.js';
import { readDefinitions } from './definitions.js';
import { customFieldsJsonSchema } from './json-schema.js';
import { wakePurge } from './purge.js';
import { DEFAULT_MAX_LENGTH, isDate } from './values.js';

/** The most live fields per kind (docs/api-contract.md §32). */
const MAX_FIELDS = 50;
/** The bounds each type takes. */
const TYPE_BOUNDS: Record<CustomFieldType, ReadonlyArray<keyof CustomFieldBounds>> = {
  text: ['max_length', 'multiline'],
  number: ['min', 'max', 'decimals'],
  money: ['min_amount', 'max_amount'],
  date: ['min_date', 'max_date'],
  boolean: [],
  select: [],
  multi_select: ['max_selected'],
};
const PRINTABLE_RESOURCES: readonly CustomFieldResource[] = ['quote', 'invoice'];

export function presentCustomField(row: CustomFieldRow): CustomField {
  return {
    id: row.id,
    object: 'custom_field',
    resource: row.resource as CustomFieldResource,
    key: row.key,
    label: row.label,
    description: row.description,
    type: row.type as CustomFieldType,
    required: Number(row.required) === 1,
    options: fromJson<CustomFieldOption[]>(row.options),
    bounds: fromJson<CustomFieldBounds>(row.bounds),
    printable: Number(row.printable) === 1,
    position: Number(row.position),
    metadata: fromJson<Record<string, string>>(row.metadata),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** The bounds as stored and answered: the type's keys only, text's defaults filled in. */
function boundsOf(type: CustomFieldType, given: Partial<CustomFieldBounds> | undefined, problems: ErrorDetail[]) {
  const bounds: Record<string, unknown> = {};
  for (const name of Object.keys(given ?? {}))
    if (!TYPE_BOUNDS[type].includes(name as keyof CustomFieldBounds))
      problems.push({ field: `bounds.${name}`, message: `is not a bound of a ${type} field` });
  for (const name of TYPE_BOUNDS[type]) bounds[name] = given?.[name] ?? null;
  if (type === 'text') {
    bounds.max_length ??= DEFAULT_MAX_LENGTH;
    bounds.multiline ??= false;
  }
  const pairs: Array<[string, string]> = [
    ['min', 'max'],
    ['min_amount', 'max_amount'],
    ['min_date', 'max_date'],
  ];
  for (const [low, high] of pairs)
    if (
      bounds[low] != null &&
      bounds[high] != null &&
      (bounds[low] as number | string) > (bounds[high] as number | string)
    )
      problems.push({ field: `bounds.${high}`, message: `must not be below bounds.${low}` });
  for (const name of ['min_date', 'max_date'])
    if (typeof bounds[name] === 'string' && !isDate(bounds[name] as string))
      problems.push({ field: `bounds.${name}`, message: 'must be a date, YYYY-MM-DD' });
  return bounds as CustomFieldBounds;
}

function optionsOf(
  type: CustomFieldType,
  given: ReadonlyArray<{ value: string; label: string; archived?: boolean }> | undefined,
  problems: ErrorDetail[],
): CustomFieldOption[] {
  const choosing = type === 'select' || type === 'multi_select';
  if (!choosing) {
    if (given !== undefined)
      problems.push({ field: 'options', message: `are only for select and multi_select fields` });
    return [];
  }
  if (given === undefined) {
    problems.push({ field: 'options', message: `are required for a ${type} field (1–100)` });
    return [];
  }
  const seen = new Set<string>();
  given.forEach((option, index) => {
    if (seen.has(option.value))
      problems.push({ field: `options[${index}].value`, message: `'${option.value}' is given twice` });
    seen.add(option.value);
  });
  return given.map((option) => ({ value: option.value, label: option.label, archived: option.archived ?? false }));
}

function checkPrintable(resource: CustomFieldResource, printable: boolean | undefined, problems: ErrorDetail[]) {
  if (printable && !PRINTABLE_RESOURCES.includes(resource))
    problems.push({ field: 'printable', message: 'is only for quote and invoice fields' });
}

export async function createCustomField(ctx: Context, input: CreateCustomFieldInput): Promise<CustomField> {
  const problems: ErrorDetail[] = [];
  const options = optionsOf(input.type, input.options, problems);
  const bounds = boundsOf(input.type, input.bounds, problems);
  checkPrintable(input.resource, input.printable, problems);
  if (problems.length > 0) throw validationError(problems);
  const taken = () => taken409(input.resource, input.key);
  try {
    return await inTransaction(ctx, async (tx) => {
      const existing = await repository.findCustomFieldByKey(tx.db, tx.accountId, input.resource, input.key);
      if (existing) throw taken();
      const live = await repository.liveCustomFields(tx.db, tx.accountId, input.resource);
      if (live.length >= MAX_FIELDS)
        throw validationError([
          { field: 'resource', message: `already has ${MAX_FIELDS} custom fields, the most a kind may have` },
        ]);
      const now = tx.clock.now().toISOString();
      const row: CustomFieldRow = {
        id: newId(),
        account_id: tx.accountId,
        resource: input.resource,
        key: input.key,
        label: input.label,
        description: input.description ?? null,
        type: input.type,
        required: input.required ? 1 : 0,
        options: JSON.stringify(options),
        bounds: JSON.stringify(bounds),
        printable: input.printable ? 1 : 0,
        position: input.position ?? live.reduce((most, one) => Math.max(most, Number(one.position) + 1), 0),
        metadata: JSON.stringify(input.metadata ?? {}),
        deleted_at: null,
        created_at: now,
        updated_at: now,
      };
      await repository.insertCustomField(tx.db, row);
      const field = presentCustomField(row);
      await recordEvent(tx, 'custom_field.created', field);
      return field;
    });
  } catch (error) {
    // Two creates of one key at once: the unique index decides.
    if (isUniqueViolation(error)) throw taken();
    throw error;
  }
}

function taken409(resource: string, key: string): AppError {
  return new AppError('CONFLICT', `The key '${key}' is already taken among ${resource} custom fields.`, [
    { field: 'key', message: `is already taken (a deleted field's key is free once its values are purged)` },
  ]);
}

function getRow(ctx: Context, id: string, lock = false): Promise<CustomFieldRow> {
  return requireRow('custom field', id, (found) => repository.findCustomField(ctx.db, ctx.accountId, found, lock));
}

export async function getCustomField(ctx: Context, id: string): Promise<CustomField> {
  return presentCustomField(await getRow(ctx, id));
}

export async function updateCustomField(
  ctx: Context,
  id: string,
  input: UpdateCustomFieldInput,
  precondition?: Precondition,
): Promise<CustomField> {
  return inTransaction(ctx, async (tx) => {
    const row = await getRow(tx, id, true);
    const before = presentCustomField(row);
    precondition?.(before);
    const problems: ErrorDetail[] = [];
    const patch: Partial<CustomFieldRow> = {};
    if (input.label !== undefined) patch.label = input.label;
    if (input.description !== undefined) patch.description = input.description;
    if (input.required !== undefined) patch.required = input.required ? 1 : 0;
    if (input.position !== undefined) patch.position = input.position;
    if (input.metadata !== undefined) patch.metadata = JSON.stringify(input.metadata);
    if (input.printable !== undefined) {
      checkPrintable(before.resource, input.printable, problems);
      patch.printable = input.printable ? 1 : 0;
    }
    if (input.bounds !== undefined) patch.bounds = JSON.stringify(boundsOf(before.type, input.bounds, problems));
    let removed: string[] = [];
    if (input.options !== undefined) {
      const options = optionsOf(before.type, input.options, problems);
      const kept = new Set(options.map((option) => option.value));
      removed = before.options.map((option) => option.value).filter((value) => !kept.has(value));
      patch.options = JSON.stringify(options);
    }
    if (problems.length > 0) throw validationError(problems);
    for (const value of removed)
      if (await repository.optionInUse(tx.db, tx.accountId, row.id, value))
        throw new AppError(
          'CONFLICT',
          `The option '${value}' is held by objects and cannot be removed; archive it instead (archived: true).`,
          [{ field: 'options', message: `must keep '${value}', which objects hold (archive it instead)` }],
        );
    if (Object.keys(patch).length === 0) return before;
    patch.updated_at = tx.clock.now().toISOString();
    const updated = await repository.updateCustomField(tx.db, tx.accountId, row.id, patch);
    const after = presentCustomField(updated!);
    await recordChange(tx, { resource: 'custom_field', before, after });
    return after;
  });
}

export async function deleteCustomField(
  ctx: Context,
  id: string,
  precondition?: Precondition,
): Promise<{ id: string; deleted: true }> {
  const result = await inTransaction(ctx, async (tx) => {
    const row = await getRow(tx, id, true);
    const field = presentCustomField(row);
    precondition?.(field);
    await repository.updateCustomField(tx.db, tx.accountId, row.id, { deleted_at: tx.clock.now().toISOString() });
    await recordEvent(tx, 'custom_field.deleted', field);
    return { id: row.id, deleted: true as const };
  });
  wakePurge();
  return result;
}

export async function listCustomFields(ctx: Context, query: ListCustomFieldsInput): Promise<Page<CustomFieldRow>> {
  const page = pageRequest(query, repository.CUSTOM_FIELD_SORTS);
  const { rows, resumeAfter } = await repository.listCustomFields(ctx.db, ctx.accountId, query, page);
  return toPage(rows, page, resumeAfter);
}

/** GET /v1/custom-fields/schema: the account's JSON Schema of a kind's `custom_fields`. */
export async function customFieldsSchema(ctx: Context, resource: CustomFieldResource) {
  const definitions = await readDefinitions(ctx.db, ctx.accountId, resource);
  return { object: 'custom_fields_schema' as const, resource, schema: customFieldsJsonSchema(definitions) };
}
