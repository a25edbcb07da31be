// The one helper every kind calls for its `custom_fields` (docs/api-contract.md §27): checks a body's values
// against the account's definitions (each problem a detail on `custom_fields.<key>`, in the same 422 as the
// native fields), merges them into the stored ones (a PUT changes only the keys it names; null clears), writes
// the typed value rows the filters read, and presents every defined key (null when unset).
import { type ErrorDetail, validationError } from '../../core/errors.js';
import type { Executor } from '../../db/index.js';
import type { CustomFieldValueRow } from '../../db/types.js';
import type { Context } from '../../kernel/context.js';
import type { ReferenceChecks } from '../shared/index.js';
import * as repository from './custom-fields.repository.js';
import type { CustomFieldResource } from './custom-fields.schemas.js';
import { type Definition, type Definitions, readDefinitions } from './definitions.js';

/** An object's values by key, as stored and answered. */
export type CustomFieldValues = Record<string, unknown>;

/** Text values are indexed by their first this many characters, lower case: a filter's value is shorter. */
export const INDEXED_TEXT = 250;
/** The most JSON an object's values may take (docs/api-contract.md §32). */
const MAX_JSON = 16 * 1024;
/** The default max_length of a text field. */
export const DEFAULT_MAX_LENGTH = 500;

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Whether `text` is a real calendar date `YYYY-MM-DD`. */
export function isDate(text: string): boolean {
  const match = DATE.exec(text);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(2000, month - 1, day));
  date.setUTCFullYear(year);
  return year >= 1 && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/** The significant digits and decimal places of a number as JSON writes it (its shortest exact form). */
export function digitsOf(value: number): { significant: number; decimals: number } {
  const [mantissa = '', exponentText] = Math.abs(value).toExponential().split('e');
  const exponent = Number(exponentText);
  const digits = mantissa.replace('.', '').replace(/0+$/, '') || '0';
  return { significant: digits.length, decimals: Math.max(0, digits.length - 1 - exponent) };
}

/** What is wrong with `value` for the field, or undefined (value is not null). */
function problemOf(field: Definition, value: unknown): string | undefined {
  const { bounds } = field;
  switch (field.type) {
    case 'text': {
      if (typeof value !== 'string') return 'must be a string';
      const max = bounds.max_length ?? DEFAULT_MAX_LENGTH;
      if ([...value].length > max) return `must be at most ${max} characters`;
      if (!bounds.multiline && /[\r\n]/.test(value)) return 'must be one line (the field is not multiline)';
      return undefined;
    }
    case 'number': {
      if (typeof value !== 'number' || !Number.isFinite(value)) return 'must be a number';
      const { significant, decimals } = digitsOf(value);
      if (significant > 15) return 'must have at most 15 significant digits';
      if (bounds.decimals != null && decimals > bounds.decimals)
        return `must have at most ${bounds.decimals} decimal places`;
      if (bounds.min != null && value < bounds.min) return `must be at least ${bounds.min}`;
      if (bounds.max != null && value > bounds.max) return `must be at most ${bounds.max}`;
      return undefined;
    }
    case 'money': {
      if (typeof value !== 'number' || !Number.isSafeInteger(value)) return 'must be an integer amount in minor units';
      if (bounds.min_amount != null && value < bounds.min_amount) return `must be at least ${bounds.min_amount}`;
      if (bounds.max_amount != null && value > bounds.max_amount) return `must be at most ${bounds.max_amount}`;
      return undefined;
    }
    case 'date': {
      if (typeof value !== 'string' || !isDate(value)) return 'must be a date, YYYY-MM-DD';
      if (bounds.min_date != null && value < bounds.min_date) return `must be on or after ${bounds.min_date}`;
      if (bounds.max_date != null && value > bounds.max_date) return `must be on or before ${bounds.max_date}`;
      return undefined;
    }
    case 'boolean':
      return typeof value === 'boolean' ? undefined : 'must be true or false';
    case 'select':
      return typeof value === 'string' ? optionProblem(field, value) : 'must be one of the field’s option values';
    case 'multi_select': {
      if (!Array.isArray(value) || value.some((one) => typeof one !== 'string'))
        return 'must be a list of the field’s option values';
      if (new Set(value).size !== value.length) return 'must not hold an option twice';
      if (bounds.max_selected != null && value.length > bounds.max_selected)
        return `must hold at most ${bounds.max_selected} options`;
      for (const one of value as string[]) {
        const problem = optionProblem(field, one);
        if (problem) return problem;
      }
      return undefined;
    }
  }
}

function optionProblem(field: Definition, value: string): string | undefined {
  const option = field.options.find((one) => one.value === value);
  if (option === undefined)
    return `must be one of ${field.options
      .filter((one) => !one.archived)
      .map((one) => `'${one.value}'`)
      .join(', ')}; '${value}' is not an option`;
  if (option.archived) return `'${value}' is an archived option: it stays on objects that hold it, but cannot be set`;
  return undefined;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * The problems of a body's `custom_fields` (undefined: not given): unknown keys, types, bounds, archived options,
 * and on a create a required field missing, on any write a required one set to null.
 */
export function customFieldProblems(
  definitions: Definitions,
  input: unknown,
  creating: boolean,
  stored: CustomFieldValues = {},
): ErrorDetail[] {
  return checked(definitions, input, creating, stored).problems;
}

/** customFieldProblems, and when there are none and values were given, the merged values and their JSON. */
function checked(
  definitions: Definitions,
  input: unknown,
  creating: boolean,
  stored: CustomFieldValues,
): { problems: ErrorDetail[]; merged?: CustomFieldValues; json?: string } {
  const problems: ErrorDetail[] = [];
  if (input !== undefined && !isObject(input))
    return { problems: [{ field: 'custom_fields', message: 'must be an object' }] };
  const given = input ?? {};
  for (const [key, value] of Object.entries(given)) {
    const field = definitions.byKey.get(key);
    const path = `custom_fields.${key}`;
    if (field === undefined) {
      const known = definitions.fields.map((one) => one.key);
      problems.push({
        field: path,
        message: `is not a custom field of ${definitions.resource.replace('_', ' ')}s${known.length > 0 ? ` (defined: ${known.join(', ')})` : ' (none is defined)'}`,
      });
      continue;
    }
    const cleared = value === null || (Array.isArray(value) && value.length === 0);
    if (cleared) {
      if (field.required) problems.push({ field: path, message: 'is required and cannot be cleared' });
      continue;
    }
    const problem = problemOf(field, value);
    if (problem) problems.push({ field: path, message: problem });
  }
  if (creating)
    for (const field of definitions.fields)
      if (field.required && !(field.key in given))
        problems.push({ field: `custom_fields.${field.key}`, message: 'is required' });
  if (problems.length > 0 || input === undefined) return { problems };
  const merged = mergeValues(stored, given);
  const json = JSON.stringify(merged);
  if (json.length > MAX_JSON)
    problems.push({ field: 'custom_fields', message: `must take at most ${MAX_JSON} bytes of JSON altogether` });
  return { problems, merged, json };
}

/** The stored values with the given ones merged in: named keys changed, null (or an empty list) cleared. */
function mergeValues(stored: CustomFieldValues, given: CustomFieldValues): CustomFieldValues {
  const merged: CustomFieldValues = { ...stored };
  for (const [key, value] of Object.entries(given)) {
    if (value === null || (Array.isArray(value) && value.length === 0)) delete merged[key];
    else merged[key] = value;
  }
  return merged;
}

/**
 * The object whose values are written: its id, and its created_at, which its value rows carry (the filters walk a
 * field's objects in the lists' default order by it; it never changes).
 */
export interface ValuesObject {
  id: string;
  created_at: string;
}

/** The typed value rows of a field's value (multi_select: one per option). */
function valueRows(accountId: string, object: ValuesObject, field: Definition, value: unknown): CustomFieldValueRow[] {
  const row = (text: string | null, number: number | null, amount: number | null): CustomFieldValueRow => ({
    account_id: accountId,
    field_id: field.id,
    object_id: object.id,
    text_value: text,
    number_value: number,
    amount_value: amount,
    object_created_at: object.created_at,
  });
  switch (field.type) {
    case 'text':
      return [row((value as string).toLowerCase().slice(0, INDEXED_TEXT), null, null)];
    case 'number':
      return [row(null, value as number, null)];
    case 'money':
      return [row(null, null, value as number)];
    case 'boolean':
      return [row(String(value), null, null)];
    case 'multi_select':
      return (value as string[]).map((one) => row(one, null, null));
    default:
      return [row(value as string, null, null)];
  }
}

/** The stored JSON of an object's values, parsed (an engine's jsonb text or SQLite's). */
export function storedValues(json: string | null | undefined): CustomFieldValues {
  return json === null || json === undefined || json === '{}' ? {} : (JSON.parse(json) as CustomFieldValues);
}

/**
 * Checks and writes a create's or an update's `custom_fields` in the caller's transaction: throws the 422 of
 * customFieldProblems; else replaces the value rows of the keys named and answers the JSON to store in the
 * object's row (undefined when the body names no custom field: the row keeps its JSON). `kind` is the object's
 * kind, or its definitions when the caller read them in the same transaction to show the object with them (one
 * read, not two, on a write's hot path).
 */
export async function writeCustomFields(
  tx: Context,
  kind: CustomFieldResource | Definitions,
  object: ValuesObject,
  input: CustomFieldValues | undefined,
  stored: string | null | undefined,
  creating: boolean,
  requireMissing = creating,
): Promise<string | undefined> {
  const definitions = typeof kind === 'string' ? await readDefinitions(tx.db, tx.accountId, kind) : kind;
  if (input === undefined && !(requireMissing && definitions.fields.some((field) => field.required))) return undefined;
  const { problems, merged, json } = checked(definitions, input, requireMissing, storedValues(stored));
  if (problems.length > 0) throw validationError(problems);
  if (input === undefined || merged === undefined || Object.keys(input).length === 0)
    return creating ? '{}' : undefined;
  const named = Object.keys(input).map((key) => definitions.byKey.get(key)!);
  const rows = named.flatMap((field) =>
    merged[field.key] === undefined ? [] : valueRows(tx.accountId, object, field, merged[field.key]),
  );
  await repository.replaceValues(tx.db, tx.accountId, object.id, creating ? [] : named.map((field) => field.id), rows);
  return json;
}

/** Takes an object's value rows with it (its delete, in the caller's transaction). */
export function deleteCustomFieldValues(
  db: Executor,
  accountId: string,
  resource: CustomFieldResource,
  objectId: string,
): Promise<void> {
  return repository.deleteObjectValues(db, accountId, resource, objectId);
}

/** The answer's `custom_fields`: every defined key in order, null when unset; a deleted field's key is gone. */
export function presentCustomFields(definitions: Definitions, stored: CustomFieldValues): CustomFieldValues {
  const shown: CustomFieldValues = {};
  for (const field of definitions.fields) shown[field.key] = stored[field.key] ?? null;
  return shown;
}

/**
 * A route's check of a body's custom fields, joined to a 422 that the schema or the service gave, so that one
 * answer names every wrong field (http/field-checks.ts: the same place as reference checks). `creating`: the
 * create's route (required fields missing count).
 */
export function customFieldChecks(
  resource: CustomFieldResource,
  creating: boolean,
  also?: ReferenceChecks,
): ReferenceChecks {
  return async (ctx, body, scopes) => {
    const found = also ? await also(ctx, body, scopes) : [];
    if (!isObject(body)) return found;
    const definitions = await readDefinitions(ctx.db, ctx.accountId, resource);
    return [...found, ...customFieldProblems(definitions, body.custom_fields, creating)];
  };
}

/**
 * A new object's `custom_fields` column: its values checked and their value rows written (writeCustomFields).
 * `madeByBms`: an object BMS makes by itself (a recurring invoice's, a schedule's visit), which no one could give
 * a required field's value: required fields are not asked of it (the other checks stand).
 */
export async function createdCustomFields(
  tx: Context,
  resource: CustomFieldResource,
  object: ValuesObject,
  input: CustomFieldValues | undefined,
  madeByBms = false,
): Promise<string> {
  return (await writeCustomFields(tx, resource, object, input, undefined, true, !madeByBms)) ?? '{}';
}

/**
 * An update's `custom_fields` column, merged into the stored values (writeCustomFields); undefined when the body
 * names none or changes nothing, so that the row and its `updated_at` stay.
 */
export async function updatedCustomFields(
  tx: Context,
  kind: CustomFieldResource | Definitions,
  object: ValuesObject,
  input: CustomFieldValues | undefined,
  stored: string | null | undefined,
): Promise<string | undefined> {
  const values = await writeCustomFields(tx, kind, object, input, stored, false);
  return values === undefined || values === JSON.stringify(storedValues(stored)) ? undefined : values;
}
