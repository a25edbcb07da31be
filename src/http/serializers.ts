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

/** Fastify's default serializer factory, compiling each distinct shape once per encapsulation context. */
export function buildSerializer(
  externalSchemas?: unknown,
  options?: Parameters<ReturnType<typeof SerializerSelector>>[1],
) {
  const compile = SerializerSelector()(externalSchemas, options);
  const compiled = new Map<string, ReturnType<Compile>>();
  return (route: Parameters<Compile>[0]) => {
    const key = serializationKey(route.schema);
    let serializer = compiled.get(key);
    if (serializer === undefined) {
      serializer = compile(route);
      compiled.set(key, serializer);
    }
    return serializer;
  };
}
