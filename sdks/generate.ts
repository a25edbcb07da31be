// Generates the typed part of both SDKs from the API's OpenAPI document: the object and parameter types
// and one method per endpoint, grouped by resource. `npm run sdk:generate` writes the files; the SDK test
// regenerates them from a running server's /v1/openapi.json and fails when the committed files differ,
// so the SDKs cannot drift from the API.

type Schema = {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  not?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  additionalProperties?: boolean | Schema;
  description?: string;
  format?: string;
  /**
   * Read from the document, not in it: a query parameter that takes a list (`type: array`, sent as `a,b`:
   * the `status` filters, `assignee_id`) is typed as one item or a list of them; this is the item's schema.
   */
  listOf?: Schema;
  /** Read from the document's `oneOf` of required fields: one of these is required (an invoice's client). */
  requiredOneOf?: string[];
};

interface Operation {
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  parameters?: { name: string; in: string; required?: boolean; description?: string; schema: Schema }[];
  requestBody?: {
    content: { 'application/json'?: { schema: Schema } } & Record<string, { schema: Schema } | undefined>;
  };
  responses: Record<string, Response>;
}

type Response = { $ref?: string; content?: Record<string, { schema: Schema } | undefined> };

export interface OpenApiDocument {
  paths: Record<string, Record<string, Operation>>;
  /** `responses`: the shared error answers the operations refer to (`#/components/responses/NotFound`). */
  components: { schemas: Record<string, Schema>; responses?: Record<string, Response> };
}

/** A body given as a reference to a named schema (`#/components/schemas/InvoiceCreate`): that schema. */
function resolved(document: OpenApiDocument, schema: Schema): Schema {
  const name = refName(schema);
  const target = name ? document.components.schemas[name] : undefined;
  if (name && !target) throw new Error(`${schema.$ref} is not in the document`);
  return target ?? schema;
}

/**
 * `oneOf: [{required: [client_id]}, {required: [job_id], properties: {client_id: false, …}}]` (each branch one
 * required field, the ones before it refused) → `requiredOneOf: [client_id, job_id]`.
 */
function withRequiredOneOf(schema: Schema): Schema {
  const options = schema.oneOf;
  const fields = options?.map((option) =>
    option.required?.length === 1 && Object.keys(option).every((key) => ['required', 'properties'].includes(key))
      ? option.required[0]
      : undefined,
  );
  if (!options || !fields?.every((field) => field !== undefined)) return schema;
  const { oneOf: _oneOf, ...rest } = schema;
  return { ...rest, requiredOneOf: fields as string[] };
}

/** An array query parameter (sent `a,b`, `style: form, explode: false`) as its item's list. */
function queryParameterSchema(schema: Schema): Schema {
  if (schema.type !== 'array' || !schema.items) return schema;
  const { items, type: _type, ...rest } = schema;
  return { ...rest, listOf: items };
}

/** What a method gives back: a page of objects (iterable over every page), bytes (a PDF), or one JSON object. */
/** `file`: a binary answer streamed to a file on disk (the method `<name>ToFile` beside the one for bytes). */
type Returns = 'page' | 'bytes' | 'json' | 'file';

interface Endpoint {
  /** The method's name: the operationId without the resource's name (`sendInvoice` → `send`). */
  name: string;
  operationId: string;
  httpMethod: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /**
   * A POST that takes no `Idempotency-Key` (the operation declares no such header: creating or rolling an API
   * key, whose answer holds a secret the server does not keep for a replay). The SDKs send none, and do not
   * retry such a call that got no answer, since it may have been carried out.
   */
  unkeyed: boolean;
  path: string;
  operation: Operation;
  /** The path's parameters, in order: `id`, then any other (`/v1/visits/{id}/assignees/{team_member_id}`). */
  pathParams: string[];
  returns: Returns;
  /** The answer's `data` is an array without a page (`GET /v1/visit-schedules/{id}/occurrences`). */
  array: boolean;
  query?: Record<string, Schema & { description?: string }>;
  /** The query parameters the operation requires (`from`, `to` of a window). */
  queryRequired: string[];
  body?: Schema;
  /** The component schema the response's `data` is (or, for pages, holds). */
  model?: string;
  /** The components the data (or an item) is one of (`anyOf`/`oneOf` of references): a calendar's visits. */
  union?: string[];
  /**
   * An answer (or, for an array, its item) that is no component (`{requeued: 3}`): typed as `<Model><Name>Result`
   * (an array's item as `<Model><Name>Item`).
   */
  result?: Schema;
  /** A bytes answer's media type when it is no PDF: a report's CSV (`text/csv`), a method of its own. */
  accept?: string;
  /** A body that is text, not JSON (an import's CSV file): its media type; the method takes the text. */
  textBody?: string;
  /**
   * A `multipart/form-data` body (an upload): the name of its one binary part. The method takes the file (a
   * path, bytes or a stream, sent streamed by the transport) and the form's other fields as its params.
   */
  filePart?: string;
}

interface Resource {
  segment: string;
  model: string;
  endpoints: Endpoint[];
}

const HEADER = 'Generated by sdks/generate.ts from /v1/openapi.json. Do not edit; run `npm run sdk:generate`.';

// --- reading the document ---------------------------------------------------------------------------

/**
 * Values a request body's enum lists that the server refuses there, by operationId and property: a quote's or
 * a service request's `converted` is set by the server when a job or an invoice is made from it, and an update
 * asking for it is a 409 INVALID_STATE. The document validates the body with the whole enum (the lifecycle,
 * not the schema, refuses the move), so the SDK types leave these values out here.
 */
const SERVER_SET_VALUES: Record<string, Record<string, unknown[]>> = {
  updateQuote: { status: ['converted'] },
  updateServiceRequest: { status: ['converted'] },
};

/** The body schema without the values SERVER_SET_VALUES names for its operation. */
function withoutServerSetValues(operationId: string, body: Schema): Schema {
  const refused = SERVER_SET_VALUES[operationId];
  if (!refused) return body;
  const properties = { ...body.properties };
  for (const [key, values] of Object.entries(refused)) {
    const property = properties[key];
    if (!property?.enum) throw new Error(`${operationId}: ${key} has no enum to narrow`);
    properties[key] = { ...property, enum: property.enum.filter((value) => !values.includes(value)) };
  }
  return { ...body, properties };
}

function refName(schema: Schema | undefined): string | undefined {
  return schema?.$ref?.replace('#/components/schemas/', '');
}

/** Paths under /v1 that are no resource's: the document itself. */
const NOT_RESOURCES = new Set(['/v1/openapi.json']);

/**
 * Every operation of `/v1/<resource>…`, grouped by resource (the path's first segment), named by its
 * operationId: a new resource's paths become a new resource class with no change here. Any path parameters
 * (`{id}`, then others such as `{team_member_id}`) become the method's leading arguments. The unauthenticated
 * System operations (health, readiness, outside /v1) are for operators, not integrators, and are left out.
 */
export function readResources(document: OpenApiDocument): Resource[] {
  const resources = new Map<string, Resource>();
  for (const [path, operations] of Object.entries(document.paths)) {
    if (!path.startsWith('/v1/') || NOT_RESOURCES.has(path)) continue;
    const match = /^\/v1\/([a-z-]+)((?:\/(?:[a-z-]+(?:\.[a-z]+)?|\{[A-Za-z_]+\}))*)$/.exec(path);
    // A path the SDK cannot make a method of fails the generation rather than silently missing from the SDKs.
    if (!match) throw new Error(`${path}: not /v1/<resource>[/{id}][/<action or {parameter}>…]`);
    const segment = match[1]!;
    const pathParams = [...match[2]!.matchAll(/\{([A-Za-z_]+)\}/g)].map((parameter) => parameter[1]!);
    for (const [httpMethod, operation] of Object.entries(operations)) {
      if (!operation.operationId) throw new Error(`${httpMethod.toUpperCase()} ${path} has no operationId`);
      const success = operation.responses['200'] ?? operation.responses['201'] ?? operation.responses['202'];
      // An e-invoice (XML, or a Factur-X PDF) is a download too, asked for with both media types; so is an answer
      // that is only text (an import's errors.csv, an export), asked for by its media types.
      const xml = Boolean(success?.content?.['application/xml']);
      const textAnswer = success?.content?.['application/json']
        ? undefined
        : Object.keys(success?.content ?? {}).filter((media) => media.startsWith('text/') || media.endsWith('ndjson'));
      const binary = success?.content?.['application/pdf'] ? undefined : success?.content?.['application/octet-stream'];
      const returns: Returns =
        success?.content?.['application/pdf'] || xml || binary || (textAnswer && textAnswer.length > 0)
          ? 'bytes'
          : success?.content?.['application/json']?.schema.properties?.meta?.properties?.pagination &&
              success.content['application/json'].schema.properties.data?.type === 'array'
            ? 'page'
            : 'json';
      const data = success?.content?.['application/json']?.schema.properties?.data;
      const array = returns === 'json' && data?.type === 'array';
      const item = data?.type === 'array' ? data.items : data;
      const model = refName(item);
      const options = item?.anyOf ?? (item as { oneOf?: Schema[] } | undefined)?.oneOf;
      const union = options?.every((option) => refName(option)) ? options.map((option) => refName(option)!) : undefined;
      const queryParameters = (operation.parameters ?? []).filter((parameter) => parameter.in === 'query');
      const query = Object.fromEntries(
        queryParameters.map((parameter) => [
          parameter.name,
          { ...queryParameterSchema(parameter.schema), description: parameter.description },
        ]),
      );
      // A multipart body (an upload): its binary part is the method's file, its other fields the params (the
      // query that a raw upload may carry instead is left to `bms.request`).
      const form = operation.requestBody?.content['multipart/form-data']?.schema;
      const filePart = Object.entries(form?.properties ?? {}).find(([, schema]) => schema.format === 'binary')?.[0];
      const reference = operation.requestBody?.content['application/json']?.schema;
      const body = reference
        ? withRequiredOneOf(resolved(document, reference))
        : form && filePart
          ? {
              ...form,
              properties: Object.fromEntries(Object.entries(form.properties!).filter(([name]) => name !== filePart)),
              required: (form.required ?? []).filter((name) => name !== filePart),
            }
          : undefined;
      const textBody = reference || filePart ? undefined : Object.keys(operation.requestBody?.content ?? {})[0];
      const endpoint: Endpoint = {
        name: '',
        operationId: operation.operationId,
        httpMethod: httpMethod.toUpperCase() as Endpoint['httpMethod'],
        unkeyed:
          httpMethod === 'post' &&
          !(operation.parameters ?? []).some(
            (parameter) => parameter.in === 'header' && parameter.name.toLowerCase() === 'idempotency-key',
          ),
        path,
        operation,
        pathParams,
        returns,
        // Bytes of any type (an attachment's content): asked for as they are.
        ...(binary ? { accept: '*/*' } : {}),
        array,
        ...(xml ? { accept: 'application/xml, application/pdf' } : {}),
        ...(Object.keys(query).length > 0 && !filePart ? { query } : {}),
        queryRequired: filePart
          ? []
          : queryParameters.filter((parameter) => parameter.required).map((parameter) => parameter.name),
        ...(body
          ? {
              body: withoutServerSetValues(
                operation.operationId,
                body.anyOf?.find((option) => option.type === 'object') ?? body,
              ),
            }
          : {}),
        ...(model ? { model } : {}),
        ...(union ? { union } : {}),
        ...(textBody ? { textBody } : {}),
        ...(filePart ? { filePart } : {}),
        ...(textAnswer && textAnswer.length > 0 ? { accept: textAnswer.join(', ') } : {}),
        // An answer that is no component (`{requeued: 3}`, the two schedules a split answers, the items of an
        // array or a page) gets a type of its own; a delete's `{id, deleted}` is DeletedObject.
        ...(!model && !union && item && returns !== 'bytes' && httpMethod !== 'delete' ? { result: item } : {}),
      };
      const resource = resources.get(segment) ?? { segment, model: '', endpoints: [] };
      if (
        endpoint.httpMethod === 'GET' &&
        returns === 'json' &&
        !array &&
        model &&
        (!resource.model || operation.operationId === `get${model}`) &&
        // A sub-resource's GET (`/clients/{id}/balance`) never names the resource's model, nor does a named
        // answer beside others (`/reports/revenue`): those name the resource `Report`.
        path.split('/').filter(Boolean).length <= 3
      )
        resource.model = segment === 'reports' ? 'Report' : model;
      resource.endpoints.push(endpoint);
      // A binary answer (an attachment's bytes) gets a method beside it that streams it to a file.
      if (binary)
        resource.endpoints.push({
          ...endpoint,
          operationId: `${operation.operationId}ToFile`,
          operation: {
            ...operation,
            summary: `${operation.summary ?? ''}, to a file`,
            description:
              'The same bytes streamed to the file at `destination`: written under a temporary name beside it, flushed to disk, then renamed over it, so a failed download leaves no partial file. Answers what the server answered (status, headers, ETag).',
          },
          returns: 'file',
        });
      // An answer also offered as CSV (a report, `Accept: text/csv`) gets a download method beside it.
      if (success?.content?.['text/csv'] && success.content['application/json']) {
        const { model: _model, result: _result, ...rest } = endpoint;
        resource.endpoints.push({
          ...rest,
          operationId: `${operation.operationId}Csv`,
          operation: {
            ...operation,
            summary: `${operation.summary ?? ''}, as CSV`,
            description:
              'Every row (at most 100,000) as RFC 4180 CSV bytes, totals last as TOTAL; the BMS-Ledger-Sequence header of lastResponse names the books it read.',
          },
          returns: 'bytes',
          array: false,
          accept: 'text/csv',
        });
      }
      resources.set(segment, resource);
    }
  }
  for (const resource of resources.values()) {
    // A resource without a GET of its own (change sets) is named by its segment's singular.
    for (const endpoint of resource.endpoints)
      endpoint.name = methodName(endpoint.operationId, [
        pascal(resource.segment),
        resource.model,
        singular(pascal(resource.segment)),
      ]);
    const names = resource.endpoints.map((endpoint) => endpoint.name);
    const twice = names.find((name, index) => names.indexOf(name) !== index);
    if (twice) throw new Error(`two methods named ${resource.segment}.${twice}`);
  }
  return [...resources.values()];
}

/** `listWebhookEndpointDeliveries` of `webhook-endpoints` → `listDeliveries`; `getAccount` → `get`. */
function methodName(operationId: string, resourceNames: string[]): string {
  for (const noun of resourceNames) {
    const at = operationId.indexOf(noun);
    if (noun && at > 0) return camel(operationId.slice(0, at) + operationId.slice(at + noun.length));
  }
  throw new Error(`operationId ${operationId} does not name its resource (${resourceNames.join(' or ')})`);
}

/** The `data` of a delete's answer (the same for every resource), typed once as DeletedObject. */
function deletedSchema(resources: Resource[]): Schema | undefined {
  const endpoint = resources
    .flatMap((resource) => resource.endpoints)
    .find((candidate) => candidate.httpMethod === 'DELETE' && !candidate.model);
  return endpoint?.operation.responses['200']?.content?.['application/json']?.schema.properties?.data;
}

/**
 * The event schema split by the resource its types are about (`client.created` is about a Client): one
 * schema per resource whose `type` lists that resource's types and whose `data.object` is that resource's
 * component (named by the type's prefix: `service_request` → ServiceRequest; an untyped object when there is
 * none), so that `Event` can be a union narrowed by `type`. The document keeps one Event schema with
 * `data.object` an open object; the names carry the rest.
 */
function eventsByResource(document: OpenApiDocument): { name: string; schema: Schema }[] | undefined {
  const event = document.components.schemas.Event;
  const types = event?.properties?.type?.enum;
  const data = event?.properties?.data;
  if (!event || !types || !data?.properties?.object) return undefined;
  const groups = new Map<string, string[]>();
  for (const type of types.map(String)) {
    const resource = type.split('.')[0]!;
    groups.set(resource, [...(groups.get(resource) ?? []), type]);
  }
  return [...groups].map(([resource, members]) => {
    const component = pascal(resource);
    const object = document.components.schemas[component]
      ? { $ref: `#/components/schemas/${component}` }
      : data.properties!.object!;
    return {
      name: `${component}Event`,
      schema: {
        ...event,
        description: `An event of type ${members.join(', ')}: its data.object is the ${component}.`,
        properties: {
          ...event.properties,
          type: { ...event.properties!.type, enum: members },
          data: { ...data, properties: { ...data.properties, object } },
        },
      },
    };
  });
}

/** Every event pattern an endpoint's `enabled_events` takes: `*`, each type, and `<resource>.*`. */
function eventPatterns(document: OpenApiDocument): string[] {
  const types = (document.components.schemas.Event?.properties?.type?.enum ?? []).map(String);
  return ['*', ...types, ...new Set(types.map((type) => `${type.split('.')[0]}.*`))];
}

/** Properties typed as an event pattern though the document gives only a string (it lists them in prose). */
const EVENT_PATTERN_PROPERTIES = new Set(['enabled_events']);

// --- naming -------------------------------------------------------------------------------------------

const pascal = (text: string): string =>
  text
    .split(/[-_\s]/)
    .map((word) => word[0]!.toUpperCase() + word.slice(1))
    .join('');
const camel = (text: string): string => pascal(text).replace(/^./, (first) => first.toLowerCase());
const snake = (text: string): string => text.replace(/-/g, '_').replace(/[A-Z]/g, (upper) => `_${upper.toLowerCase()}`);
const singular = (text: string): string => text.replace(/ies$/, 'y').replace(/s$/, '');
// A resource without a model of its own (no GET of one object: change sets, the change feed) is named by its
// segment's singular.
const paramsName = (resource: Resource, endpoint: Endpoint): string =>
  `${resource.model || singular(pascal(resource.segment))}${pascal(twinName(endpoint))}Params`;
/** A `…ToFile` method takes the params of the method for bytes beside it (`downloadToFile`: `download`'s). */
const twinName = (endpoint: Endpoint): string =>
  endpoint.returns === 'file' ? endpoint.name.replace(/ToFile$/, '') : endpoint.name;
/**
 * The type an endpoint answers with (an array's item type): its component, an action's own result type, or
 * what a delete returns.
 */
const modelName = (
  resource: Resource,
  endpoint: Endpoint,
  oneOf: (names: string[]) => string = (names) => names.join(' | '),
): string =>
  endpoint.model ??
  (endpoint.union
    ? oneOf(endpoint.union)
    : endpoint.result
      ? `${resource.model}${pascal(endpoint.name)}${endpoint.array || endpoint.returns === 'page' ? 'Item' : 'Result'}`
      : 'DeletedObject');
/** A required field (of the body or the query), or one of several (`requiredOneOf`), makes params required. */
const requiresParams = (endpoint: Endpoint): boolean =>
  (paramsSchema(endpoint)?.required ?? []).length > 0 || (endpoint.body?.requiredOneOf ?? []).length > 0;
/**
 * The parameters an endpoint takes, as one object: its body's fields and its query parameters (a create that
 * also takes `?on_conflict=reject`); the generated method sends each where it belongs.
 */
function paramsSchema(endpoint: Endpoint): Schema | undefined {
  if (!endpoint.query) return endpoint.body;
  const required = endpoint.queryRequired;
  if (!endpoint.body) return { properties: endpoint.query, ...(required.length > 0 ? { required } : {}) };
  const twice = Object.keys(endpoint.query).find((key) => key in (endpoint.body!.properties ?? {}));
  if (twice) throw new Error(`${endpoint.operationId}: ${twice} is both a query parameter and a body field`);
  return {
    ...endpoint.body,
    properties: { ...endpoint.body.properties, ...endpoint.query },
    required: [...(endpoint.body.required ?? []), ...required],
  };
}
/** What the params' description says they are. */
const paramsKind = (endpoint: Endpoint): string =>
  endpoint.query && endpoint.body ? 'Body and query parameters' : endpoint.query ? 'Query parameters' : 'Body';
const documentation = (endpoint: Endpoint): string =>
  `${endpoint.operation.summary ?? ''}. ${endpoint.operation.description ?? ''}`.trim();

function types(schema: Schema): string[] {
  if (schema.anyOf) return schema.anyOf.flatMap(types);
  return Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
}

function comment(text: string | undefined, indent: string): string {
  return text ? `${indent}/** ${text.replace(/\*\//g, '*\\/')} */\n` : '';
}

/**
 * Named types for both languages: every nested object becomes its own exported type, named after where it
 * appears (`line_items` of an invoice's create → `InvoiceLineItemParams`), so callers can name it too.
 */
abstract class NamedTypes {
  readonly definitions = new Map<string, string>();

  define(name: string, text: string): string {
    const existing = this.definitions.get(name);
    if (existing !== undefined && existing !== text) throw new NameClash(`two different types named ${name}`);
    this.definitions.set(name, text);
    return name;
  }

  /**
   * The types of one endpoint's params, named from the resource (`VisitScheduleRecurrenceParams`) unless
   * another endpoint of it already gave that name to a different shape (a split's `recurrence` beside a
   * create's): then from the endpoint (`VisitScheduleSplitRecurrenceParams`), with nothing of the first try kept.
   */
  named<T>(make: (stem: string) => T, stem: string, fallback: string): T {
    const before = new Map(this.definitions);
    try {
      return make(stem);
    } catch (error) {
      if (!(error instanceof NameClash)) throw error;
      this.definitions.clear();
      for (const [name, text] of before) this.definitions.set(name, text);
      return make(fallback);
    }
  }
}

class NameClash extends Error {}

// --- TypeScript ---------------------------------------------------------------------------------------

class TypeScriptTypes extends NamedTypes {
  annotation(schema: Schema, name: string, suffix = ''): string {
    const ref = refName(schema);
    if (ref) return ref;
    if (schema.enum) return schema.enum.map((value) => JSON.stringify(value)).join(' | ');
    if (schema.listOf) {
      const one = this.annotation(schema.listOf, name, suffix);
      return `${one} | Array<${one}>`;
    }
    const parts = types(schema).map((type) => {
      switch (type) {
        case 'string':
          return 'string';
        case 'integer':
        case 'number':
          return 'number';
        case 'boolean':
          return 'boolean';
        case 'null':
          return 'null';
        case 'array':
          return `Array<${this.annotation(schema.items ?? {}, singular(name), suffix)}>`;
        case 'object':
          if (!schema.properties)
            return `Record<string, ${typeof schema.additionalProperties === 'object' ? this.annotation(schema.additionalProperties, name, suffix) : 'unknown'}>`;
          return this.interface(name + suffix, schema, { stem: name, suffix });
        default:
          throw new Error(`unsupported schema type ${type}`);
      }
    });
    return parts.length === 0 ? 'unknown' : parts.join(' | ');
  }

  /** An interface; its nested objects are named `<stem><Property><suffix>` (`InvoiceLineItemParams`). */
  interface(
    name: string,
    schema: Schema,
    {
      allOptional = false,
      stem = name,
      suffix = '',
      description,
    }: { allOptional?: boolean; stem?: string; suffix?: string; description?: string } = {},
  ): string {
    const required = new Set(allOptional ? [] : (schema.required ?? []));
    const lines = Object.entries(schema.properties ?? {})
      .map(
        ([key, property]) =>
          `${comment(property.description, '  ')}  ${key}${required.has(key) ? '' : '?'}: ${EVENT_PATTERN_PROPERTIES.has(key) ? 'Array<EventPattern>' : this.annotation(property, stem + pascal(key), suffix)};\n`,
      )
      .join('');
    const oneOf = schema.requiredOneOf;
    const doc = comment(description ?? schema.description, '');
    if (!oneOf) return this.define(name, `${doc}export interface ${name} {\n${lines}}\n`);
    // One of several fields is required: the fields, and a union that demands one of them.
    const choices = oneOf
      .map((key) => `{ ${key}: ${this.annotation(schema.properties![key]!, stem + pascal(key), suffix)} }`)
      .join(' | ');
    this.define(
      `${name}Fields`,
      `${comment(`The fields of ${name}.`, '')}export interface ${name}Fields {\n${lines}}\n`,
    );
    return this.define(
      name,
      `${doc ? doc.replace(/ \*\/\n$/, ` One of ${oneOf.join(', ')} is required. */\n`) : ''}export type ${name} = ${name}Fields & (${choices});\n`,
    );
  }
}

function tsMethod(resource: Resource, endpoint: Endpoint): string {
  const doc = comment(documentation(endpoint), '  ');
  const item = endpoint.returns === 'bytes' ? 'Uint8Array' : modelName(resource, endpoint);
  const model = endpoint.array ? (endpoint.union ? `Array<${item}>` : `${item}[]`) : item;
  const path = endpoint.pathParams.reduce(
    (text, parameter) => text.replace(`{${parameter}}`, `\${encodeURIComponent(${camel(parameter)})}`),
    endpoint.path,
  );
  const schema = paramsSchema(endpoint);
  const args = [
    ...endpoint.pathParams.map((parameter) => `${camel(parameter)}: string`),
    ...(endpoint.textBody ? ['text: string'] : []),
    ...(endpoint.filePart ? [`${camel(endpoint.filePart)}: UploadFile`] : []),
    ...(endpoint.returns === 'file' ? ['destination: string'] : []),
    ...(schema ? [`params: ${paramsName(resource, endpoint)}${requiresParams(endpoint) ? '' : ' = {}'}`] : []),
    'options?: RequestOptions',
  ].join(', ');
  // Both a body and a query (`?on_conflict=reject` on a create): the query's keys are taken out of params.
  const fields = [
    ...(endpoint.query && endpoint.body
      ? [`...splitParams(params, ${JSON.stringify(Object.keys(endpoint.query))})`]
      : endpoint.query
        ? ['query: { ...params }']
        : endpoint.body
          ? [endpoint.filePart ? `form: { fields: params, file: ${camel(endpoint.filePart)} }` : 'body: params']
          : []),
    ...(endpoint.textBody ? [`text: { body: text, contentType: '${endpoint.textBody}' }`] : []),
    ...(endpoint.unkeyed ? ['unkeyed: true'] : []),
  ];
  const parts =
    fields.length === 1 && fields[0]!.startsWith('...')
      ? fields[0]!.slice(3)
      : fields.length === 0
        ? '{}'
        : `{ ${fields.join(', ')} }`;
  if (endpoint.returns === 'page')
    return `${doc}  ${endpoint.name}(${args}): PagePromise<${model}> {\n    return this.transport.list<${model}>(\`${path}\`, { ...params }, options);\n  }\n`;
  const accept = endpoint.accept ? `, '${endpoint.accept}'` : '';
  if (endpoint.returns === 'file')
    return `${doc}  ${endpoint.name}(${args}): Promise<ResponseInfo> {\n    return this.transport.requestToFile('${endpoint.httpMethod}', \`${path}\`, destination, ${parts}, options${accept});\n  }\n`;
  const call = endpoint.returns === 'bytes' ? 'requestBytes' : `request<${model}>`;
  return `${doc}  ${endpoint.name}(${args}): Promise<WithResponse<${model}>> {\n    return this.transport.${call}('${endpoint.httpMethod}', \`${path}\`, ${parts}, options${accept});\n  }\n`;
}

function generateTypeScript(document: OpenApiDocument, resources: Resource[]): string {
  const ts = new TypeScriptTypes();
  const events = eventsByResource(document);
  for (const [name, schema] of Object.entries(document.components.schemas)) {
    if (name === 'ErrorEnvelope') continue;
    if (name === 'Event' && events) {
      ts.interface('EventData', schema.properties!.data!);
      for (const event of events) ts.interface(event.name, event.schema);
      ts.define(
        'Event',
        `${comment(`${schema.description ?? ''} A union by the resource it is about: narrow on \`type\` for a typed \`data.object\`.`, '')}export type Event = ${events.map((event) => event.name).join(' | ')};\n`,
      );
      ts.define('EventType', `/** Every event type. */\nexport type EventType = Event['type'];\n`);
      ts.define(
        'EventPattern',
        `/** What an endpoint's \`enabled_events\` takes: \`*\`, a type, or \`<resource>.*\`. */\nexport type EventPattern = ${eventPatterns(
          document,
        )
          .map((pattern) => JSON.stringify(pattern))
          .join(' | ')};\n`,
      );
    } else ts.interface(name, schema);
  }
  const deleted = deletedSchema(resources);
  if (deleted) ts.interface('DeletedObject', deleted, { description: 'What a delete returns.' });
  for (const resource of resources) {
    for (const endpoint of resource.endpoints) {
      const schema = paramsSchema(endpoint);
      const name = paramsName(resource, endpoint);
      if (schema && endpoint.returns !== 'file')
        ts.named(
          (stem) =>
            ts.interface(name, schema, {
              stem,
              suffix: 'Params',
              description: `${paramsKind(endpoint)} of ${endpoint.httpMethod} ${endpoint.path}.`,
            }),
          resource.model,
          `${resource.model}${pascal(endpoint.name)}`,
        );
      if (endpoint.result)
        ts.interface(modelName(resource, endpoint), endpoint.result, {
          description: `What ${endpoint.httpMethod} ${endpoint.path} answers.`,
        });
    }
  }
  const splits = resources.some((resource) => resource.endpoints.some((endpoint) => endpoint.query && endpoint.body));
  const endpoints = resources.flatMap((resource) => resource.endpoints);
  const imported = [
    'RequestOptions',
    ...(endpoints.some((endpoint) => endpoint.returns === 'file') ? ['ResponseInfo'] : []),
    'Transport',
    ...(endpoints.some((endpoint) => endpoint.filePart) ? ['UploadFile'] : []),
    'WithResponse',
  ];
  let out = `// ${HEADER}\nimport type { PagePromise } from './pagination.js';\n${
    splits
      ? `import { splitParams, ${imported.map((name) => `type ${name}`).join(', ')} } from './transport.js';`
      : `import type { ${imported.join(', ')} } from './transport.js';`
  }\n\n`;
  out += [...ts.definitions.values()].join('\n');
  for (const resource of resources) {
    out += `\n/** ${resource.segment}: ${resource.endpoints.map((endpoint) => endpoint.name).join(', ')}. */\nexport class ${pascal(resource.segment)}Resource {\n  constructor(private readonly transport: Transport) {}\n\n`;
    out += resource.endpoints.map((endpoint) => tsMethod(resource, endpoint)).join('\n');
    out += '}\n';
  }
  out += `\n/** Every resource, as the properties of BmsClient. */\nexport class Resources {\n`;
  for (const resource of resources)
    out += `  readonly ${camel(resource.segment)}: ${pascal(resource.segment)}Resource;\n`;
  out += `\n  constructor(transport: Transport) {\n`;
  for (const resource of resources)
    out += `    this.${camel(resource.segment)} = new ${pascal(resource.segment)}Resource(transport);\n`;
  out += '  }\n}\n';
  return out;
}

/**
 * The error codes, in a file of their own that imports nothing: the errors module reads them, and the
 * generated resources import the transport, which imports the errors (one file for both was a loop).
 */
function generateTypeScriptErrorCodes(document: OpenApiDocument): string {
  const codes = readErrorCodes(document);
  return `// ${HEADER}\n\n/** Every error code the API answers with, and its HTTP status (null: not tied to one operation). */\nexport const ERROR_CODES = {\n${codes.map(([code, status]) => `  ${code}: ${status},\n`).join('')}} as const;\n\nexport type ErrorCode = keyof typeof ERROR_CODES;\n`;
}

// --- Python -------------------------------------------------------------------------------------------

/** Python's keywords: a field named so is the argument `<name>_` (`from_`) and is still sent as `<name>`. */
const PYTHON_KEYWORDS = new Set(
  (
    'False None True and as assert async await break class continue def del elif else except finally for from ' +
    'global if import in is lambda nonlocal not or pass raise return try while with yield'
  ).split(' '),
);
/** The SDK's own keyword arguments and the path's `id`: a field named so could not be passed. */
const PYTHON_OPTIONS = new Set([
  'timeout',
  'max_retries',
  'idempotency_key',
  'if_match',
  'if_none_match',
  'extra_headers',
  'extra_query',
  'id',
  'self',
]);

/** The argument a field is passed as: its own name, or `<name>_` for a Python keyword (`from_`). */
function pythonArgument(key: string): string {
  if (PYTHON_OPTIONS.has(key)) throw new Error(`parameter ${key} clashes with an SDK option`);
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(key)) throw new Error(`parameter ${key} is not a Python name`);
  return PYTHON_KEYWORDS.has(key) ? `${key}_` : key;
}

/** `_given(...)` of these fields: `name=name`, and a keyword's as `**{"from": from_}`. */
function pythonGiven(keys: string[]): string {
  const plain = keys.filter((key) => !PYTHON_KEYWORDS.has(key)).map((key) => `${key}=${key}`);
  const renamed = keys.filter((key) => PYTHON_KEYWORDS.has(key)).map((key) => `${JSON.stringify(key)}: ${key}_`);
  return `_given(${[...plain, ...(renamed.length > 0 ? [`**{${renamed.join(', ')}}`] : [])].join(', ')})`;
}

class PythonTypes extends NamedTypes {
  /** A Python annotation for the schema; nested objects become TypedDicts named after where they appear. */
  annotation(schema: Schema, name: string, suffix = ''): string {
    const ref = refName(schema);
    if (ref) return ref;
    if (schema.enum) {
      const values = schema.enum.filter((value) => value !== null);
      const literal = `Literal[${values.map((value) => (typeof value === 'boolean' ? (value ? 'True' : 'False') : JSON.stringify(value))).join(', ')}]`;
      return values.length < schema.enum.length ? `Optional[${literal}]` : literal;
    }
    if (schema.listOf) {
      const one = this.annotation(schema.listOf, name, suffix);
      return `Union[${one}, Sequence[${one}]]`;
    }
    const all = types(schema);
    const nullable = all.includes('null');
    const parts = all
      .filter((type) => type !== 'null')
      .map((type) => {
        switch (type) {
          case 'string':
            return 'str';
          case 'integer':
            return 'int';
          case 'number':
            return 'float';
          case 'boolean':
            return 'bool';
          case 'array':
            return `List[${this.annotation(schema.items ?? {}, singular(name), suffix)}]`;
          case 'object':
            if (!schema.properties)
              return `Dict[str, ${typeof schema.additionalProperties === 'object' ? this.annotation(schema.additionalProperties, name, suffix) : 'Any'}]`;
            return this.typedDict(name + suffix, schema, false, name);
          default:
            throw new Error(`unsupported schema type ${type}`);
        }
      });
    const inner = parts.length === 0 ? 'Any' : parts.length === 1 ? parts[0]! : `Union[${parts.join(', ')}]`;
    return nullable ? `Optional[${inner}]` : inner;
  }

  /** A TypedDict; optional keys go in a total=False subclass. */
  typedDict(name: string, schema: Schema, allOptional = false, stem = name): string {
    const required = new Set(allOptional ? [] : (schema.required ?? []));
    const line = (key: string, property: Schema): string =>
      `    ${key}: ${EVENT_PATTERN_PROPERTIES.has(key) ? 'List[EventPattern]' : this.annotation(property, stem + pascal(key), name.slice(stem.length))}\n`;
    const entries = Object.entries(schema.properties ?? {});
    const requiredLines = entries
      .filter(([key]) => required.has(key))
      .map(([key, property]) => line(key, property))
      .join('');
    const optionalLines = entries
      .filter(([key]) => !required.has(key))
      .map(([key, property]) => line(key, property))
      .join('');
    const doc = `    """${(schema.description ?? name).replace(/"""/g, "'''")}"""\n\n`;
    let text: string;
    if (entries.some(([key]) => PYTHON_KEYWORDS.has(key))) {
      // A key that is a Python keyword (`from`) cannot be a class attribute: the functional syntax, in a
      // required and an optional part that the class joins.
      const functional = (part: string, keys: Array<[string, Schema]>, total: boolean): string =>
        `${part} = TypedDict("${part}", {${keys.map(([key, property]) => `${JSON.stringify(key)}: ${line(key, property).slice(`    ${key}: `.length).trim()}`).join(', ')}}${total ? '' : ', total=False'})\n`;
      const requiredPart = functional(
        `_${name}Required`,
        entries.filter(([key]) => required.has(key)),
        true,
      );
      const optionalPart = functional(
        `_${name}Optional`,
        entries.filter(([key]) => !required.has(key)),
        false,
      );
      text = `${requiredPart}\n${optionalPart}\n\nclass ${name}(_${name}Required, _${name}Optional):\n${doc.trimEnd()}\n`;
      return this.define(name, text);
    }
    if (!optionalLines) text = `class ${name}(TypedDict):\n${doc}${requiredLines}`;
    else if (!requiredLines) text = `class ${name}(TypedDict, total=False):\n${doc}${optionalLines}`;
    else
      text = `class _${name}Required(TypedDict):\n${requiredLines}\n\nclass ${name}(_${name}Required, total=False):\n${doc}${optionalLines}`;
    return this.define(name, text);
  }
}

function pythonKeywordArguments(
  python: PythonTypes,
  resource: Resource,
  endpoint: Endpoint,
  schema: Schema,
): { signature: string[]; names: string[] } {
  const required = new Set(schema.required ?? []);
  const signature: string[] = [];
  const names: string[] = [];
  const entries = Object.entries(schema.properties ?? {});
  for (const [key, property] of [
    ...entries.filter(([key]) => required.has(key)),
    ...entries.filter(([key]) => !required.has(key)),
  ]) {
    const argument = pythonArgument(key);
    const annotation = EVENT_PATTERN_PROPERTIES.has(key)
      ? 'Sequence[EventPattern]'
      : python.named(
          (stem) => python.annotation(property, `${stem}${pascal(key)}`, 'Params'),
          resource.model,
          `${resource.model}${pascal(twinName(endpoint))}`,
        );
    signature.push(
      required.has(key) ? `${argument}: ${annotation}` : `${argument}: Union[${annotation}, NotGiven] = NOT_GIVEN`,
    );
    names.push(key);
  }
  return { signature, names };
}

/** One method, for the blocking client or (`flavor: 'async'`) the asyncio one. */
function pythonMethod(python: PythonTypes, resource: Resource, endpoint: Endpoint, flavor: 'sync' | 'async'): string {
  const item =
    endpoint.returns === 'bytes'
      ? 'bytes'
      : endpoint.returns === 'file'
        ? 'str'
        : modelName(resource, endpoint, (names) => `Union[${names.join(', ')}]`);
  const model = endpoint.array ? `List[${item}]` : item;
  if (endpoint.result)
    python.typedDict(item, {
      ...endpoint.result,
      description: `What ${endpoint.httpMethod} ${endpoint.path} answers${endpoint.array ? ' (one item of its array)' : ''}.`,
    });
  const doc = `        """${documentation(endpoint)}"""\n`;
  const pathArguments = endpoint.pathParams.map((parameter) => [parameter, snake(parameter)] as const);
  const pathExpression =
    pathArguments.length > 0
      ? `f"${pathArguments.reduce((text, [parameter, argument]) => text.replace(`{${parameter}}`, `{_quote(${argument})}`), endpoint.path)}"`
      : `"${endpoint.path}"`;
  const schema = paramsSchema(endpoint);
  const { signature, names } = schema
    ? pythonKeywordArguments(python, resource, endpoint, schema)
    : { signature: [], names: [] };
  const queryNames = names.filter((name) => endpoint.query && name in endpoint.query);
  const bodyNames = names.filter((name) => !queryNames.includes(name));
  const collected = pythonGiven(names);
  const options = [
    ...(endpoint.httpMethod === 'POST' && !endpoint.unkeyed ? ['idempotency_key: Optional[str] = None'] : []),
    ...(endpoint.httpMethod === 'PUT' || endpoint.httpMethod === 'DELETE' ? ['if_match: Optional[str] = None'] : []),
    ...((endpoint.returns === 'bytes' || endpoint.returns === 'file') && !endpoint.accept
      ? ['if_none_match: Optional[str] = None']
      : []),
    'extra_headers: Optional[Mapping[str, str]] = None',
    'extra_query: Optional[Mapping[str, Any]] = None',
    'timeout: Optional[float] = None',
    'max_retries: Optional[int] = None',
  ];
  const method = snake(endpoint.name);
  const positional = [
    'self',
    ...pathArguments.map(([, argument]) => `${argument}: str`),
    ...(endpoint.textBody ? ['text: str'] : []),
    ...(endpoint.filePart ? [`${snake(endpoint.filePart)}: UploadFile`] : []),
    ...(endpoint.returns === 'file' ? ['destination: Destination'] : []),
  ];
  const parameters = [...positional, '*', ...signature, ...options].join(',\n        ');
  const optionArguments = options
    .map((option) => option.split(':')[0])
    .map((name) => `${name}=${name}`)
    .join(', ');
  const [def, wait, page] = flavor === 'async' ? ['async def', 'await ', 'AsyncPage'] : ['def', '', 'Page'];
  if (endpoint.returns === 'page' && flavor === 'async') {
    // Not a coroutine: an AsyncPagePromise, which `await` gives the first page of and `async for` walks.
    return `    def ${method}(\n        ${parameters},\n    ) -> AsyncPagePromise[${model}]:\n${doc}        return AsyncPagePromise[${model}](lambda: self._transport.list(${pathExpression}, ${collected}, ${optionArguments}))\n`;
  }
  if (endpoint.returns === 'page') {
    return `    ${def} ${method}(\n        ${parameters},\n    ) -> ${page}[${model}]:\n${doc}        return cast(${page}[${model}], ${wait}self._transport.list(${pathExpression}, ${collected}, ${optionArguments}))\n`;
  }
  const parts = [
    `"${endpoint.httpMethod}"`,
    pathExpression,
    ...(endpoint.body
      ? [
          endpoint.filePart
            ? `form=(${snake(endpoint.filePart)}, ${pythonGiven(bodyNames)})`
            : `body=${pythonGiven(bodyNames)}`,
        ]
      : []),
    ...(endpoint.textBody ? [`text=(text, "${endpoint.textBody}")`] : []),
    ...(queryNames.length > 0 ? [`query=${pythonGiven(queryNames)}`] : []),
    ...(endpoint.returns === 'bytes' || endpoint.returns === 'file'
      ? [`accept="${endpoint.accept ?? 'application/pdf'}"`]
      : []),
    ...(endpoint.unkeyed ? ['unkeyed=True'] : []),
    optionArguments,
  ];
  // One of several fields is required (requiredOneOf): an overload per field that makes it required, so
  // mypy refuses a call with none; the implementation below them takes them all as optional.
  const oneOf = endpoint.body?.requiredOneOf ?? [];
  const overloads = oneOf
    .map((key) => {
      const argument = pythonArgument(key);
      const required = signature
        .find((entry) => entry.startsWith(`${argument}: `))!
        .replace(/^(\w+): Union\[(.*), NotGiven\] = NOT_GIVEN$/, '$1: $2');
      const rest = signature.filter((entry) => !entry.startsWith(`${argument}: `));
      const overloaded = [...positional, '*', required, ...rest, ...options].join(',\n        ');
      return `    @overload\n    ${def} ${method}(\n        ${overloaded},\n    ) -> ${model}: ...\n\n`;
    })
    .join('');
  const call =
    endpoint.returns === 'file' ? `request_to_file(destination, ${parts.join(', ')})` : `request(${parts.join(', ')})`;
  return `${overloads}    ${def} ${method}(\n        ${parameters},\n    ) -> ${model}:\n${doc}        return cast(${model}, ${wait}self._transport.${call})\n`;
}

function pythonResources(python: PythonTypes, resources: Resource[], flavor: 'sync' | 'async'): string {
  const [prefix, transport] = flavor === 'async' ? ['Async', 'AsyncTransport'] : ['', 'Transport'];
  let classes = '';
  for (const resource of resources) {
    classes += `\n\nclass ${prefix}${pascal(resource.segment)}Resource:\n    """${resource.segment}: ${resource.endpoints.map((endpoint) => snake(endpoint.name)).join(', ')}."""\n\n    def __init__(self, transport: ${transport}) -> None:\n        self._transport = transport\n`;
    for (const endpoint of resource.endpoints) classes += `\n${pythonMethod(python, resource, endpoint, flavor)}`;
  }
  classes += `\n\nclass ${prefix}Resources:\n    """Every resource, as the attributes of ${prefix}BmsClient."""\n\n    def __init__(self, transport: ${transport}) -> None:\n`;
  for (const resource of resources)
    classes += `        self.${snake(resource.segment)} = ${prefix}${pascal(resource.segment)}Resource(transport)\n`;
  return classes;
}

function generatePython(document: OpenApiDocument, resources: Resource[]): string {
  const python = new PythonTypes();
  const events = eventsByResource(document);
  python.define(
    'EventPattern',
    `# What an endpoint's enabled_events takes: "*", a type, or "<resource>.*".\nEventPattern = Literal[${eventPatterns(
      document,
    )
      .map((pattern) => JSON.stringify(pattern))
      .join(', ')}]`,
  );
  for (const [name, schema] of Object.entries(document.components.schemas)) {
    if (name === 'ErrorEnvelope') continue;
    if (name === 'Event' && events) {
      python.typedDict('EventData', schema.properties!.data!);
      for (const event of events) python.typedDict(event.name, event.schema);
      python.define(
        'Event',
        `# ${schema.description ?? ''} A union by the resource it is about: compare event["type"] for a typed\n# event["data"]["object"].\nEvent = Union[${events.map((event) => event.name).join(', ')}]`,
      );
    } else python.typedDict(name, schema);
  }
  const deleted = deletedSchema(resources);
  if (deleted) python.typedDict('DeletedObject', { ...deleted, description: 'What a delete returns.' });
  const classes = pythonResources(python, resources, 'sync') + pythonResources(python, resources, 'async');
  const endpoints = resources.flatMap((resource) => resource.endpoints);
  const files = endpoints.some((endpoint) => endpoint.returns === 'file');
  const uploads = endpoints.some((endpoint) => endpoint.filePart);
  const imports = [
    `# ${HEADER}`,
    'from __future__ import annotations',
    '',
    'from typing import Any, Dict, List, Literal, Mapping, Optional, Sequence, TypedDict, Union, cast, overload',
    'from urllib.parse import quote',
    '',
    'from ._pagination import AsyncPagePromise, Page',
    `from ._transport import NOT_GIVEN, AsyncTransport, ${files ? 'Destination, ' : ''}NotGiven, Transport, ${uploads ? 'UploadFile, ' : ''}given as _given`,
  ].join('\n');
  const exported = [...python.definitions.keys()].filter((name) => !name.startsWith('_'));
  return `${imports}\n\n__all__ = [\n${exported.map((name) => `    "${name}",\n`).join('')}]\n\n\ndef _quote(value: str) -> str:\n    return quote(value, safe="")\n\n\n${[...python.definitions.values()].join('\n\n')}${classes}`;
}

/** The error codes, in a module of their own that imports no other (see generateTypeScriptErrorCodes). */
function generatePythonErrorCodes(document: OpenApiDocument): string {
  const codes = readErrorCodes(document);
  const header = [
    `# ${HEADER}`,
    'from __future__ import annotations',
    '',
    'from typing import Dict, Literal, Optional',
    '',
    '__all__ = ["ErrorCode", "ERROR_CODES"]',
  ].join('\n');
  return `${header}\n\nErrorCode = Literal[${codes.map(([code]) => `"${code}"`).join(', ')}]\n\n# Every error code the API answers with, and its HTTP status (None: not tied to one operation).\nERROR_CODES: Dict[str, Optional[int]] = {\n${codes.map(([code, status]) => `    "${code}": ${status ?? 'None'},\n`).join('')}}\n`;
}

/**
 * Every error code of the document (the enum of ErrorEnvelope's `error.code`) with the HTTP status the
 * operations' responses declare for it; null for a code no operation lists (such as METHOD_NOT_ALLOWED,
 * answered for a path rather than an operation).
 */
export function readErrorCodes(document: OpenApiDocument): Array<[string, number | null]> {
  const envelope = document.components.schemas.ErrorEnvelope;
  const all = envelope?.properties?.error?.properties?.code?.enum ?? [];
  const statuses = new Map<string, number>();
  for (const operations of Object.values(document.paths)) {
    for (const operation of Object.values(operations)) {
      for (const [status, reference] of Object.entries(operation.responses)) {
        const response = reference.$ref
          ? document.components.responses?.[reference.$ref.replace('#/components/responses/', '')]
          : reference;
        for (const code of response?.content?.['application/json']?.schema.properties?.error?.properties?.code?.enum ??
          [])
          statuses.set(String(code), Number(status));
      }
    }
  }
  return all.map((code) => [String(code), statuses.get(String(code)) ?? null]);
}

/** The generated files, by path relative to `sdks/`. */
export function generateSdkSources(
  document: OpenApiDocument,
  readmes: Partial<Record<(typeof READMES)[number], string>> = {},
): Record<string, string> {
  const resources = readResources(document);
  // The named request bodies (`InvoiceCreate`) are the methods' params types already (`InvoiceCreateParams`).
  const bodies = new Set(
    Object.values(document.paths).flatMap((operations) =>
      Object.values(operations).map((operation) => refName(operation.requestBody?.content['application/json']?.schema)),
    ),
  );
  const schemas = Object.fromEntries(Object.entries(document.components.schemas).filter(([name]) => !bodies.has(name)));
  const models = { ...document, components: { ...document.components, schemas } };
  return {
    'js/src/generated.ts': generateTypeScript(models, resources),
    'js/src/error-codes.ts': generateTypeScriptErrorCodes(document),
    'python/bms_sdk/_generated.py': generatePython(models, resources),
    'python/bms_sdk/_error_codes.py': generatePythonErrorCodes(document),
    ...Object.fromEntries(
      Object.entries(readmes).map(([file, text]) => [
        file,
        withMethodTable(text, methodTable(resources, file === 'js/README.md' ? 'js' : 'python')),
      ]),
    ),
  };
}

// --- the READMEs' tables of methods --------------------------------------------------------------------

/** The READMEs whose table of resources and methods is generated (between the METHODS_* markers). */
export const READMES = ['js/README.md', 'python/README.md'] as const;
const METHODS_START = '<!-- methods: written by `npm run sdk:generate` from /v1/openapi.json -->';
const METHODS_END = '<!-- /methods -->';

/** Every resource and its methods, as the README's table: a new resource gets its row with no hand edit. */
function methodTable(resources: Resource[], language: 'js' | 'python'): string {
  const rows = resources.map((resource) => {
    const property = language === 'js' ? camel(resource.segment) : snake(resource.segment);
    const methods = resource.endpoints.map((endpoint) => {
      const name = language === 'js' ? endpoint.name : snake(endpoint.name);
      const kind =
        endpoint.returns === 'bytes'
          ? ' (bytes)'
          : endpoint.returns === 'file'
            ? ' (to a file)'
            : endpoint.filePart
              ? ' (a file upload)'
              : endpoint.array
                ? ' (a list)'
                : '';
      return `\`${name}\`${kind}`;
    });
    return `| \`bms.${property}\` | ${methods.join(', ')} |\n`;
  });
  return `| ${language === 'js' ? 'Property' : 'Attribute'} | Methods |\n|---|---|\n${rows.join('')}`;
}

function withMethodTable(readme: string, table: string): string {
  const start = readme.indexOf(METHODS_START);
  const end = readme.indexOf(METHODS_END);
  if (start < 0 || end < start) throw new Error(`the README has no ${METHODS_START} … ${METHODS_END} markers`);
  return `${readme.slice(0, start + METHODS_START.length)}\n${table}${readme.slice(end)}`;
}
