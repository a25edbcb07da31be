// What every MCP tool is made of (docs/api-contract.md §20): its shape, the scopes it needs, how it acts, the
// objects it involves (for replays and confirmations, §32), and the small helpers the tool lists share.
import type { CustomFieldResource } from '../modules/custom-fields/index.js';
import type { EinvoiceValidator } from '../modules/einvoices/index.js';
import type { TSchema } from '@sinclair/typebox';
import { COMMA_LIST, REQUIRED_ONE_OF } from '../http/openapi-document.js';
import type { Context } from '../kernel/context.js';
import type { Scope } from '../kernel/scopes.js';
import type { SelfDispatch } from '../http/self-dispatch.js';
import type { ObjectRef } from './versions.js';

export type ToolKind = 'read' | 'preview' | 'write' | 'confirm';

// Tool inputs are plain JSON; each operation's own schema has validated them before `run` sees them.
export type Args = Record<string, unknown>;

/** An object a confirmation's summary describes, as it was read for the summary. */
export interface Described extends ObjectRef {
  object: unknown;
}

/**
 * What a tool may use of the call beyond its context: requests to the app as the caller (a change set's), and
 * the app's rendering pool (an e-invoice's validation runs there).
 */
export interface ToolCall {
  dispatch: SelfDispatch;
  pdf: EinvoiceValidator;
}

export interface Tool {
  name: string;
  title: string;
  description: string;
  /** The scope the tool needs; none for a tool whose parts each need their own (a change set). */
  scope?: Scope;
  /** For a tool without a scope: whether a key with these scopes sees it. */
  visibleTo?(scopes: ReadonlySet<string>): boolean;
  /** For a `confirm` tool: whether these arguments need the confirmation (else it acts as a write). */
  confirmWhen?(args: Args): boolean;
  /** Scopes needed beyond `scope` (the REST body's links: a job from a quote also converts the quote). */
  alsoNeeds?: Scope[];
  /** Scopes that some arguments need beyond these (checked per call; the tool stays listed without them). */
  needsFor?(args: Args): Scope[];
  kind: ToolKind;
  /**
   * The kind whose custom fields the input's `custom_fields` carries: at every tools/list it is the account's
   * schema of them (docs/api-contract.md §27), labels and descriptions only as each property's title and description.
   */
  customFields?: CustomFieldResource;
  /**
   * The tool merges `custom_fields` into a stored object (an update): a required field binds only the keys a
   * write names (§32), so the schema asks for none.
   */
  customFieldsMerged?: boolean;
  /** The arguments' JSON schema, without dry_run and confirmation_token (added by the server). */
  input: JsonSchema;
  /** Whether acting twice with the same arguments leaves the same state (a read, or nothing new). */
  idempotent?: boolean;
  run(ctx: Context, args: Args, call: ToolCall): Promise<unknown>;
  /**
   * For writes: the objects the call reads or writes, from its arguments and its result. A repeat is answered
   * from memory only while each is at the version the call left it in (docs/api-contract.md §32).
   */
  touches?(args: Args, result: unknown): ObjectRef[];
  /** For `confirm` tools: the objects the summary describes, read now; the token binds each one's version. */
  describes?(ctx: Context, args: Args): Promise<Described[]>;
  /**
   * For `confirm` tools: what the call will do, in one sentence, from the described objects and its dry run's
   * result. Text that clients or customers wrote appears only as a JSON string literal (see `quoted`).
   */
  summary?(args: Args, result: unknown, described: Described[]): string;
}

export interface JsonSchema {
  type: 'object';
  properties: Record<string, unknown>;
  required?: string[];
  additionalProperties?: boolean;
  [keyword: string]: unknown;
}

/** Every scope a tool needs: a key sees and calls it only with all of them. */
export const scopesOf = (tool: Tool): Scope[] => [...(tool.scope ? [tool.scope] : []), ...(tool.alsoNeeds ?? [])];

/** A TypeBox object schema as plain JSON, less the fields a tool does not offer, with more fields required. */
export function objectSchema(
  schema: TSchema,
  options: { omit?: string[]; pick?: string[]; require?: string[] } = {},
): JsonSchema {
  const plain = JSON.parse(JSON.stringify(schema)) as JsonSchema;
  for (const field of options.omit ?? []) delete plain.properties[field];
  if (options.pick)
    for (const field of Object.keys(plain.properties))
      if (!options.pick.includes(field)) delete plain.properties[field];
  // Our validator's markers (http/openapi-document.ts) are no JSON Schema an MCP client knows: left out here,
  // as the published document leaves them out; the descriptions say the same in words.
  delete plain[REQUIRED_ONE_OF];
  // Custom field filters are matched by pattern on the REST lists; the tools take none.
  delete plain.patternProperties;
  for (const property of Object.values(plain.properties)) delete (property as Record<string, unknown>)[COMMA_LIST];
  const required = [...new Set([...(plain.required ?? []), ...(options.require ?? [])])].filter(
    (field) => field in plain.properties,
  );
  delete plain.required;
  return { ...plain, ...(required.length > 0 ? { required } : {}) };
}

export const id = (description: string) => ({ type: 'string', format: 'uuid', description });
export const pageFields = {
  limit: { type: 'integer', minimum: 1, maximum: 25, default: 10, description: 'How many to answer, 1 to 25.' },
  cursor: { type: 'string', maxLength: 1000, description: 'The next_cursor of the previous answer, for more.' },
};

export const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
export const num = (value: unknown): number | undefined => (typeof value === 'number' ? value : undefined);

export function page<T, R>(
  result: { items: T[]; hasMore: boolean; nextCursor: string | null },
  present: (item: T) => R,
) {
  return { items: result.items.map(present), has_more: result.hasMore, next_cursor: result.nextCursor };
}

/** `{kind, id}` of an answer's object, when it has an id. */
export function refOf(kind: ObjectRef['kind'], value: unknown): ObjectRef[] {
  const found = (value as { id?: unknown } | null)?.id;
  return typeof found === 'string' ? [{ kind, id: found }] : [];
}

/** The refs of the string ids among `values` (optional arguments). */
export function refsOf(kind: ObjectRef['kind'], ...values: unknown[]): ObjectRef[] {
  return values.filter((value): value is string => typeof value === 'string').map((value) => ({ kind, id: value }));
}

/** The client, property and products (its lines') a document names: what a create reads. */
export function documentReads(args: Args): ObjectRef[] {
  const lines = Array.isArray(args.line_items) ? (args.line_items as Array<{ product_id?: unknown }>) : [];
  return [
    ...refsOf('client', args.client_id),
    ...refsOf('property', args.property_id),
    ...refsOf('product', ...lines.map((line) => line.product_id)),
  ];
}

/**
 * Text a client or customer wrote, inside a summary: a JSON string literal, so quotes, newlines and anything
 * shaped like an instruction stay inside its delimiters (docs/api-contract.md §32; docs/decisions.md, Access).
 */
export const quoted = (text: string): string => JSON.stringify(text);

/** The client a document goes to, its name and e-mail address quoted. */
export function clientLine(client: { name: string; email: string | null }): string {
  return `the client named ${quoted(client.name)}${client.email ? ` at the e-mail address ${quoted(client.email)}` : ' (no e-mail address on file)'}`;
}

/** The described object of a kind (the summary's own reading of it). */
export function describedOf<T>(described: Described[], kind: ObjectRef['kind']): T {
  const found = described.find((one) => one.kind === kind);
  if (!found) throw new Error(`a summary without its ${kind}`);
  return found.object as T;
}
