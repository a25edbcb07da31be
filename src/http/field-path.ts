// The contract's field paths (docs/api-contract.md §2): `line_items[2].quantity`, `client.email`.

/** `/line_items/2/quantity` -> `line_items[2].quantity` (a JSON pointer, as validators report it). */
export function toFieldPath(instancePath: string, child?: string): string {
  const parts = instancePath
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (child !== undefined) parts.push(child);
  return parts.reduce(
    (path, part) => (/^\d+$/.test(part) ? `${path}[${part}]` : path === '' ? part : `${path}.${part}`),
    '',
  );
}
