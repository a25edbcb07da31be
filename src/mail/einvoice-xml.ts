// What the UBL and CII writers share: elements made with xmlbuilder2 under a namespace known by its prefix,
// and the serialisation (UTF-8, indented, the same bytes for the same model).
import { create } from 'xmlbuilder2';
import type { XMLBuilder } from 'xmlbuilder2/lib/interfaces.js';

const XMLNS = 'http://www.w3.org/2000/xmlns/';

export type Node = XMLBuilder;

/** A document whose root is `name` in `namespace`, declaring `prefixes` once on the root. */
export function xmlDocument(namespace: string, name: string, prefixes: Record<string, string>): Node {
  const root = create({ version: '1.0', encoding: 'UTF-8' }).ele(namespace, name);
  for (const [prefix, uri] of Object.entries(prefixes)) root.att(XMLNS, `xmlns:${prefix}`, uri);
  return root;
}

/**
 * Makes element builders for the namespaces of `prefixes`: `element(parent, 'cac:Party')` adds a container;
 * `element(parent, 'cbc:ID', text, attributes)` adds a value, and nothing at all when the value is null or
 * undefined (an optional element left out, never written empty).
 */
export function elementMaker(prefixes: Record<string, string>) {
  return function element(
    parent: Node,
    name: string,
    ...value: [text?: string | null, attributes?: Record<string, string>]
  ): Node {
    const [text, attributes] = value;
    if (value.length > 0 && (text === null || text === undefined)) return parent;
    const prefix = name.slice(0, name.indexOf(':'));
    const node = parent.ele(prefixes[prefix] as string, name);
    if (attributes) for (const [key, attribute] of Object.entries(attributes)) node.att(key, attribute);
    if (text !== undefined && text !== null) node.txt(text);
    return node;
  };
}

export function serialize(root: Node): Buffer {
  return Buffer.from(root.end({ prettyPrint: true, indent: '  ' }), 'utf8');
}
