// Every JSON response the suites receive, checked against its schema in the OpenAPI document the app serves:
// the test context adds an onSend hook (below) that validates with Ajv and records each mismatch, and the
// context's close() fails the test file when there was one. So the document is tested against real answers
// (a null where it says string fails), at the cost of one validator compiled per operation and status.
import type { FastifyInstance } from 'fastify';
import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';

type Response = { $ref?: string; content?: Record<string, unknown> };
interface Document {
  paths: Record<string, Record<string, { responses: Record<string, Response> }>>;
  components: { responses: Record<string, Response> };
}

/** Validates response bodies against one document, compiling each operation's response schema once. */
export class ResponseSchemas {
  // Not strict: the document carries OpenAPI's and our own keywords (example) beside JSON Schema's.
  // inlineRefs off: a schema that many answers share (an invoice, the error envelope) is compiled once, as its own
  // function, not again inside each answer's validator.
  readonly #ajv = new Ajv.default({ strict: false, allErrors: true, allowUnionTypes: true, inlineRefs: false });
  readonly #validators = new Map<string, ValidateFunction | null>();

  constructor(private readonly document: Document) {
    addFormats.default(this.#ajv);
    // The server's own format (src/http/validation.ts): an ISO 4217 code the runtime knows.
    const currencies = new Set(Intl.supportedValuesOf('currency'));
    this.#ajv.addFormat('currency', { type: 'string', validate: (text: string) => currencies.has(text) });
    this.#ajv.addSchema(document as object, 'openapi.json');
  }

  /**
   * What is wrong with a response, or null when it matches (or the document has no JSON schema for it:
   * undocumented routes such as /docs, and statuses no operation declares, are not this check's business).
   */
  check(method: string, path: string, status: number, body: unknown): string | null {
    const key = `${method.toLowerCase()} ${path} ${status}`;
    let validate = this.#validators.get(key);
    if (validate === undefined) {
      let response = this.document.paths[path]?.[method.toLowerCase()]?.responses[String(status)];
      let pointer = `/paths/${escape(path)}/${method.toLowerCase()}/responses/${status}`;
      // A shared answer (the error responses) is a reference to components.responses.
      if (response?.$ref) {
        pointer = response.$ref.slice(1);
        response = this.document.components.responses[pointer.split('/').at(-1)!];
      }
      pointer += '/content/application~1json/schema';
      validate = response?.content?.['application/json']
        ? this.#ajv.compile({ $ref: `openapi.json#${pointer}` })
        : null;
      this.#validators.set(key, validate);
    }
    if (!validate || validate(body)) return null;
    return `${method.toUpperCase()} ${path} ${status}: ${this.#ajv.errorsText(validate.errors, { dataVar: 'body' })}`;
  }
}

function escape(path: string): string {
  return path.replace(/~/g, '~0').replace(/\//g, '~1');
}

/**
 * The validators of each document served in this process: the apps a suite builds serve the same document, and
 * each answer's validator is then compiled once, not once per app. A document is a function of the app's
 * configuration and its routes (`sameDocument` says which), so it is generated once per such key; with no key,
 * by its text.
 */
const byKey = new Map<string, ResponseSchemas>();

function schemasOf(app: FastifyInstance, sameDocument: string | undefined): ResponseSchemas {
  const routes = JSON.stringify(app.routeTable.routes);
  let key = sameDocument === undefined ? undefined : `${sameDocument}\n${routes}`;
  let schemas = key === undefined ? undefined : byKey.get(key);
  if (schemas !== undefined) return schemas;
  const text = JSON.stringify(app.swagger());
  key ??= text;
  schemas = byKey.get(text) ?? new ResponseSchemas(JSON.parse(text) as Document);
  byKey.set(key, schemas);
  byKey.set(text, schemas);
  return schemas;
}

/**
 * Adds the onSend hook to an app not yet ready; mismatches go into the returned list. `sameDocument`: a key that
 * is the same for two apps of this process only when they serve the same document given the same routes.
 */
export function validateResponses(app: FastifyInstance, sameDocument?: string): string[] {
  const mismatches: string[] = [];
  let schemas: ResponseSchemas | undefined;
  app.addHook('onSend', async (request, reply, payload) => {
    const route = request.routeOptions.url;
    const type = String(reply.getHeader('content-type') ?? '');
    if (!route || typeof payload !== 'string' || !type.startsWith('application/json')) return payload;
    // A response to a client that is gone reaches nobody: a body cut off by REQUEST_TIMEOUT_MS is answered 408
    // by Node, and the route's own 400 for the body it never got is written to a closed socket.
    if (request.raw.socket?.destroyed) return payload;
    schemas ??= schemasOf(app, sameDocument);
    let body: unknown;
    try {
      body = JSON.parse(payload);
    } catch {
      mismatches.push(`${request.method} ${route} ${reply.statusCode}: not JSON`);
      return payload;
    }
    const mismatch = schemas.check(request.method, route.replace(/:(\w+)/g, '{$1}'), reply.statusCode, body);
    if (mismatch) mismatches.push(mismatch);
    return payload;
  });
  return mismatches;
}
