// The OpenAPI document as outside generators read it (openapi-typescript, @hey-api/openapi-ts, orval): only
// standard OpenAPI 3.1 and JSON Schema. The route schemas carry two markers for our own validation, which this
// rewrites once, when the document is built: `x-comma-list` (a query parameter that takes `a,b`) becomes an
// array parameter written `style: form, explode: false`, and `x-required-one-of` (a create that needs one of
// several fields) a `oneOf` of required fields. Request bodies become named schemas and the error
// answers shared responses, both under `components`, which also keeps the document small.

type Json = Record<string, unknown>;
type Operation = {
  operationId?: string;
  parameters?: Array<{ in: string; schema?: Json; style?: string; explode?: boolean }>;
  requestBody?: { content?: Record<string, { schema?: Json }> };
  responses?: Record<string, Json>;
};
interface Document {
  paths?: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, Json>; responses?: Record<string, Json> };
}

/** The marker of a query parameter that takes a comma-separated list: its value is the schema of one item. */
export const COMMA_LIST = 'x-comma-list';
/** The marker of a body that needs one of several fields: their names. */
export const REQUIRED_ONE_OF = 'x-required-one-of';

const REASONS: Record<string, string> = {
  '400': 'BadRequest',
  '401': 'Unauthorized',
  '403': 'Forbidden',
  '404': 'NotFound',
  '409': 'Conflict',
  '412': 'PreconditionFailed',
  '413': 'PayloadTooLarge',
  '415': 'UnsupportedMediaType',
  '422': 'ValidationError',
  '429': 'TooManyRequests',
  '500': 'InternalError',
  '503': 'ServiceUnavailable',
};

export function standardDocument<T extends object>(input: T): T {
  const document = input as Document;
  const operations = Object.values(document.paths ?? {}).flatMap((item) => Object.values(item));
  for (const operation of operations) {
    for (const parameter of operation.parameters ?? []) {
      if (parameter.in === 'query' && parameter.schema?.[COMMA_LIST]) {
        parameter.schema = commaListSchema(parameter.schema);
        parameter.style = 'form';
        parameter.explode = false;
      }
    }
  }
  const schemas = (document.components ??= {}).schemas ?? {};
  document.components.schemas = schemas;
  nameRequestBodies(operations, schemas);
  document.components.responses = shareErrorResponses(operations);
  return input;
}

/** `{type: string, x-comma-list: {enum}}` → `{type: array, items: {enum}}`, with the string's description. */
function commaListSchema(schema: Json): Json {
  const { [COMMA_LIST]: item, type: _type, minLength: _min, maxLength: _max, example, ...rest } = schema;
  const { maxItems, ...items } = item as Json;
  return {
    ...rest,
    type: 'array',
    items,
    minItems: 1,
    ...(maxItems === undefined ? {} : { maxItems }),
    ...(typeof example === 'string' ? { example: example.split(',') } : {}),
  };
}

/**
 * `x-required-one-of: [client_id, job_id]` as a `oneOf` whose branches each require one field and refuse the
 * ones before it (`client_id: false`), so that exactly one matches whenever any does: JSON Schema for "at least
 * one". Each branch names its field's schema: openapi-typescript, @hey-api/openapi-ts and orval then type the body
 * as its fields and `{client_id: string} | {client_id?: never; job_id: string}`; a branch with `required` alone
 * becomes `unknown` in openapi-typescript, and `not: {required}` draws Redocly's warnings.
 * A copy, never the route's own schema, which the validator and the MCP tools go on reading.
 */
function withoutRequiredOneOf(schema: Json): Json {
  const { [REQUIRED_ONE_OF]: fields, ...rest } = schema;
  if (!Array.isArray(fields)) return schema;
  const properties = rest.properties as Record<string, Json>;
  return {
    ...rest,
    oneOf: (fields as string[]).map((field, index) => ({
      required: [field],
      properties: {
        ...Object.fromEntries(fields.slice(0, index).map((before: string) => [before, false])),
        [field]: properties[field],
      },
    })),
  };
}

/** `createInvoice` → `InvoiceCreate`: the object first, then what is done with it. */
function bodyName(operationId: string): string {
  const verb = /^[a-z]+/.exec(operationId)?.[0] ?? '';
  return `${operationId.slice(verb.length)}${verb.charAt(0).toUpperCase()}${verb.slice(1)}`;
}

function nameRequestBodies(operations: Operation[], schemas: Record<string, Json>): void {
  for (const operation of operations) {
    const media = operation.requestBody?.content?.['application/json'];
    if (!media?.schema || media.schema.$ref || !operation.operationId) continue;
    let name = bodyName(operation.operationId);
    if (name in schemas) name = `${name}Request`;
    if (name in schemas) throw new Error(`${operation.operationId}: the body's name ${name} is taken`);
    schemas[name] = withoutRequiredOneOf(media.schema);
    media.schema = { $ref: `#/components/schemas/${name}` };
  }
}

/**
 * Every error answer (4xx, 5xx) that states its codes becomes a shared response, named after its status when it
 * has one form, else after its codes (`409` with CONFLICT alone: `Conflict`; with INVALID_STATE too:
 * `ConflictOrInvalidState`).
 */
function shareErrorResponses(operations: Operation[]): Record<string, Json> {
  const forms = new Map<string, Map<string, Json>>();
  for (const operation of operations)
    for (const [status, response] of Object.entries(operation.responses ?? {}))
      if (/^[45]/.test(status) && errorCodes(response))
        (forms.get(status) ?? forms.set(status, new Map()).get(status)!).set(JSON.stringify(response), response);
  const names = new Map<string, string>();
  const responses: Record<string, Json> = {};
  for (const [status, byText] of [...forms].sort(([a], [b]) => a.localeCompare(b))) {
    for (const [text, response] of byText) {
      const name =
        byText.size === 1 && REASONS[status]
          ? REASONS[status]
          : errorCodes(response)!
              .map((code) =>
                code.toLowerCase().replace(/(^|_)([a-z])/g, (_match, _start, letter) => letter.toUpperCase()),
              )
              .join('Or');
      if (name in responses) throw new Error(`two error responses named ${name}`);
      responses[name] = response;
      names.set(`${status} ${text}`, name);
    }
  }
  for (const operation of operations)
    for (const [status, response] of Object.entries(operation.responses ?? {})) {
      const name = names.get(`${status} ${JSON.stringify(response)}`);
      if (name) operation.responses![status] = { $ref: `#/components/responses/${name}` };
    }
  return responses;
}

function errorCodes(response: Json): string[] | undefined {
  const schema = (response.content as Record<string, { schema?: Json }> | undefined)?.['application/json']?.schema;
  const error = (schema?.properties as Record<string, Json> | undefined)?.error;
  const code = (error?.properties as Record<string, Json> | undefined)?.code;
  return Array.isArray(code?.enum) ? (code.enum as string[]) : undefined;
}
