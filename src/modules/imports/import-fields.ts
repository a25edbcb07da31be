// What a CSV row becomes (docs/api-contract.md §26): each kind's route and columns, and a cell turned into the value
// its field takes in the route's own body schema (a number, a boolean, a list joined by `|`, metadata as JSON),
// so that each row goes through the API's validation as a request would. A cell the schema cannot read is passed
// on as text, for the route to refuse with its own message.
import type { TSchema } from '@sinclair/typebox';
import { minorDigits, minorUnits, unescapeFormula } from '../../core/csv-cells.js';
import { CreateProductBody } from '../catalog/index.js';
import { CreateClientBody } from '../clients/index.js';
import { CreateInvoiceBody } from '../invoices/index.js';
import { CreatePropertyBody } from '../properties/index.js';
import type { Scope } from '../../kernel/scopes.js';
import type { ExternalIdTable } from '../shared/index.js';
import type { ImportKind, ImportOptions, RowError } from './imports.schemas.js';

/** A column that names another object by its external id or code, resolved in this account to an id field. */
interface Reference {
  /** The list that finds it, and the filter that names it. */
  list: string;
  filter: string;
  /** The body field (or line field, for `line.*`) that takes its id. */
  field: string;
}

export interface KindSpec {
  path: string;
  /** The table of the kind's objects, where a chunk's external ids are looked up at once. */
  table: ExternalIdTable;
  writeScope: Scope;
  body: TSchema;
  /** The resource of GET /v1/custom-fields/schema, for kinds that carry custom fields. */
  customFields?: string;
  references: Record<string, Reference>;
  /** Invoices: a row per line (`line.*` columns), consecutive rows sharing an `external_id` one invoice. */
  lines: boolean;
  /** Fields besides `id` and `external_id` that two objects of the account may not share (a product's code). */
  unique: readonly string[];
}

export const KIND_SPECS: Record<ImportKind, KindSpec> = {
  client: {
    path: '/v1/clients',
    table: 'clients',
    writeScope: 'clients:write',
    body: CreateClientBody,
    customFields: 'client',
    references: {},
    lines: false,
    unique: [],
  },
  property: {
    path: '/v1/properties',
    table: 'properties',
    writeScope: 'clients:write',
    body: CreatePropertyBody,
    customFields: 'property',
    references: { client_external_id: { list: '/v1/clients', filter: 'external_id', field: 'client_id' } },
    lines: false,
    unique: [],
  },
  product: {
    path: '/v1/products',
    table: 'products',
    writeScope: 'catalog:write',
    body: CreateProductBody,
    customFields: 'product',
    references: {},
    lines: false,
    unique: ['code'],
  },
  invoice: {
    path: '/v1/invoices',
    table: 'invoices',
    writeScope: 'invoices:write',
    body: CreateInvoiceBody,
    customFields: 'invoice',
    references: {
      client_external_id: { list: '/v1/clients', filter: 'external_id', field: 'client_id' },
      property_external_id: { list: '/v1/properties', filter: 'external_id', field: 'property_id' },
      'line.product_code': { list: '/v1/products', filter: 'code', field: 'product_id' },
    },
    lines: true,
    unique: [],
  },
};

type Json = Record<string, unknown>;

/** The schema without its `null` alternative (`Nullable` gives a type list or an anyOf with null). */
function unwrap(schema: Json | undefined): Json | undefined {
  if (!schema) return undefined;
  const options = (schema.anyOf ?? schema.oneOf) as Json[] | undefined;
  if (options) return unwrap(options.find((option) => option.type !== 'null'));
  return schema;
}

function typeOf(schema: Json | undefined): string | undefined {
  const type = schema?.type;
  if (Array.isArray(type)) return type.find((name) => name !== 'null') as string | undefined;
  return type as string | undefined;
}

/** The schema of a field path (`address.city`; `line.quantity` in the line items' schema), or undefined. */
export function schemaAt(spec: KindSpec, path: string): Json | undefined {
  let parts = path.split('.');
  let schema = unwrap(spec.body as unknown as Json);
  if (spec.lines && parts[0] === 'line') {
    const items = unwrap((schema?.properties as Json | undefined)?.line_items as Json | undefined);
    schema = unwrap(items?.items as Json | undefined);
    parts = parts.slice(1);
  }
  for (const part of parts) {
    if (typeOf(schema) !== 'object') return undefined;
    const properties = schema?.properties as Json | undefined;
    schema = unwrap(properties?.[part] as Json | undefined);
    if (!schema) return undefined;
  }
  return schema;
}

/** Whether a column may name `path`: a field of the body or a line, a reference column, `id`, a custom field. */
export function isTarget(spec: KindSpec, path: string): boolean {
  if (path === 'id' || path in spec.references) return true;
  if (path.startsWith('custom_fields.') && spec.customFields && path.length > 'custom_fields.'.length) return true;
  if (path === 'line_items' || path === 'custom_fields') return false;
  const schema = schemaAt(spec, path);
  // An object other than metadata is written through its fields (`address.city`), not as one cell.
  return schema !== undefined && (typeOf(schema) !== 'object' || path === 'metadata' || path.endsWith('.metadata'));
}

const DECIMAL = /^-?\d+(\.\d+)?$/;

export interface CellContext {
  options: ImportOptions;
  /** The currency whose digits a decimal amount has: the row's `currency`, else the account's. */
  currency: string;
  /** The account's custom fields of the kind as JSON Schema (`properties` by key), for their types. */
  customSchema: Json | undefined;
}

/** The value of one cell for its field, or an error for the row. */
export function cellValue(
  spec: KindSpec,
  path: string,
  cell: string,
  context: CellContext,
): { value: unknown } | { error: RowError } {
  const text = unescapeFormula(cell);
  const schema = path.startsWith('custom_fields.')
    ? unwrap((context.customSchema?.properties as Json | undefined)?.[path.slice('custom_fields.'.length)] as Json)
    : schemaAt(spec, path);
  return convert(path, text, schema, context);
}

function convert(
  path: string,
  text: string,
  schema: Json | undefined,
  context: CellContext,
): { value: unknown } | { error: RowError } {
  const type = typeOf(schema);
  if (type === 'integer' || type === 'number') {
    const field = path.slice(path.lastIndexOf('.') + 1);
    if (context.options.amounts === 'decimal' && field.endsWith('amount') && DECIMAL.test(text)) {
      const amount = minorUnits(text, minorDigits(context.currency));
      if (amount === undefined)
        return {
          error: {
            field: path,
            code: 'VALIDATION_ERROR',
            message: `${path} has more decimals than ${context.currency} has minor units`,
          },
        };
      return { value: amount };
    }
    return { value: DECIMAL.test(text) || /^-?\d+(\.\d+)?e[+-]?\d+$/i.test(text) ? Number(text) : text };
  }
  if (type === 'boolean') {
    const lower = text.toLowerCase();
    return { value: lower === 'true' ? true : lower === 'false' ? false : text };
  }
  if (type === 'array') {
    const items = unwrap(schema?.items as Json | undefined);
    const values: unknown[] = [];
    for (const part of text.split('|')) {
      const converted = convert(path, part, items, context);
      if ('error' in converted) return converted;
      values.push(converted.value);
    }
    return { value: values };
  }
  if (type === 'object') {
    try {
      return { value: JSON.parse(text) as unknown };
    } catch {
      return { error: { field: path, code: 'VALIDATION_ERROR', message: `${path} must be a JSON object` } };
    }
  }
  return { value: text };
}

/** Sets `value` at a dotted path of `target`, making the objects on the way. */
export function setPath(target: Json, path: string, value: unknown): void {
  const parts = path.split('.');
  let at = target;
  for (const part of parts.slice(0, -1)) {
    if (typeof at[part] !== 'object' || at[part] === null) at[part] = {};
    at = at[part] as Json;
  }
  at[parts[parts.length - 1] as string] = value;
}

/** The value at a dotted path of an answer, or undefined. */
export function getPath(source: unknown, path: string): unknown {
  let at: unknown = source;
  for (const part of path.split('.')) {
    if (at === null || typeof at !== 'object') return undefined;
    at = (at as Json)[part];
  }
  return at;
}
