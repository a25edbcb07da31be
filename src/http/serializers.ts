// Response serializers (fast-json-stringify), compiled once per distinct shape instead of once per route and
// status. Most routes' response schemas are the same error envelope and the same resources again, and
// compiling each of them would be most of start-up's work.
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';

type Compile = ReturnType<ReturnType<typeof SerializerSelector>>;

/** Keywords that document a schema and never change what fast-json-stringify writes. */
const ANNOTATIONS = new Set(['description', 'example', 'examples', 'title', '$comment', 'deprecated']);
/** Keywords under which fast-json-stringify validates (to pick a branch), so an `enum` there matters. */
const VALIDATING = /"(anyOf|oneOf|if)":/;

/**
 * What makes two response schemas serialize alike: the schema without its annotations, and without `enum`
 * where nothing validates (an error envelope lists the codes its route can answer; each code is written
 * as the string it is).
 */
export function serializationKey(schema: unknown): string {
  const key = JSON.stringify(schema, (name, value) => (ANNOTATIONS.has(name) ? undefined : value));
  if (VALIDATING.test(key)) return key;
  return JSON.stringify(schema, (name, value) => (ANNOTATIONS.has(name) || name === 'enum' ? undefined : value));
}

/**
 * The serializers compiled in this process, by the external schemas and options they were compiled with, then
 * by shape. A serializer is a pure function of those, so an app built again in the same process (the tests build
 * one per suite, the SDK generator its own) reuses the first one's instead of compiling every shape again.
 */
const compiledInProcess = new Map<string, Map<string, ReturnType<Compile>>>();

/**
 * Each external schema's JSON, written once (Fastify asks for a factory per plugin context, each with a copy of the
 * same schemas); null for one that holds a function, which JSON cannot compare.
 */
const schemaJson = new WeakMap<object, string | null>();

function jsonOf(value: unknown): string | null {
  if (typeof value !== 'object' || value === null)
    return typeof value === 'function' ? null : JSON.stringify(value ?? null);
  let written = schemaJson.get(value);
  if (written === undefined) {
    let comparable = true;
    const text = JSON.stringify(value, (_name, inner) => {
      if (typeof inner === 'function') comparable = false;
      return inner;
    });
    written = comparable ? text : null;
    schemaJson.set(value, written);
  }
  return written;
}

/**
 * Each distinct JSON of `jsonOf` by a small number, so a context's key is a short list of numbers rather than
 * every external schema written out again (Fastify asks for a factory per plugin context, a few hundred a start).
 */
const jsonNumbers = new Map<string, number>();

function numberOf(json: string): number {
  let number = jsonNumbers.get(json);
  if (number === undefined) {
    number = jsonNumbers.size;
    jsonNumbers.set(json, number);
  }
  return number;
}

/** The key of a compile context, or undefined when it holds a function. */
function contextKey(externalSchemas: unknown, options: unknown): string | undefined {
  const parts = [jsonOf(options ?? null)];
  for (const [id, schema] of Object.entries((externalSchemas ?? {}) as Record<string, unknown>))
    parts.push(JSON.stringify(id), jsonOf(schema));
  return parts.includes(null) ? undefined : parts.map((part) => numberOf(part as string)).join(',');
}

/** Fastify's default serializer factory, compiling each distinct shape once per process. */
export function buildSerializer(
  externalSchemas?: unknown,
  options?: Parameters<ReturnType<typeof SerializerSelector>>[1],
) {
  const compile = SerializerSelector()(externalSchemas, options);
  const key = contextKey(externalSchemas, options);
  let compiled = key === undefined ? undefined : compiledInProcess.get(key);
  if (compiled === undefined) {
    compiled = new Map<string, ReturnType<Compile>>();
    if (key !== undefined) compiledInProcess.set(key, compiled);
  }
  const shapes = compiled;
  return (route: Parameters<Compile>[0]) => {
    const shape = serializationKey(route.schema);
    let serializer = shapes.get(shape);
    if (serializer === undefined) {
      serializer = compile(route);
      shapes.set(shape, serializer);
    }
    return serializer;
  };
}

/**
 * `buildSerializer`'s serializers, each compiled when its route first answers with it, not at start-up
 * (AppDependencies.compileOnFirstUse: the tests' apps, and `COMPILE_SCHEMAS=on-first-use`): a process that serves
 * a few of its hundreds of routes writes their answers with the same serializers, compiled from the same schemas.
 */
export function buildSerializerOnFirstUse(
  externalSchemas?: unknown,
  options?: Parameters<ReturnType<typeof SerializerSelector>>[1],
) {
  const compile = buildSerializer(externalSchemas, options);
  return (route: Parameters<Compile>[0]) => {
    let serializer: ReturnType<Compile> | undefined;
    return (data: unknown) => {
      serializer ??= compile(route);
      return serializer(data);
    };
  };
}
