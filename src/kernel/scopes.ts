// The scopes, <resource>:<action>: the 16 of the seed, exactly, then those of the resources that the
// contract's version 2 adds (docs/api-contract.md §3).
export const SCOPES = [
  'clients:read',
  'clients:write',
  'clients:delete',
  'invoices:read',
  'invoices:write',
  'invoices:delete',
  'invoices:send',
  'quotes:read',
  'quotes:write',
  'quotes:delete',
  'quotes:send',
  'jobs:read',
  'jobs:write',
  'jobs:delete',
  'requests:read',
  'requests:write',
  'payments:read',
  'payments:write',
  'events:read',
  'webhooks:read',
  'webhooks:write',
  'account:read',
  'account:write',
  // Version 3 (docs/api-contract.md §15).
  'team:read',
  'team:write',
  // Version 3 (docs/api-contract.md §20): keys through the API.
  'api_keys:read',
  'api_keys:write',
  // Version 3 (docs/api-contract.md §17): visits and the calendar.
  'visits:read',
  'visits:write',
  'visits:delete',
  // Version 3 (docs/api-contract.md §18): repeating visits.
  'schedules:read',
  'schedules:write',
  // Version 3 (docs/api-contract.md §19): products and tax rates.
  'catalog:read',
  'catalog:write',
  // Version 4 (docs/api-contract.md §23): recurring invoices.
  'recurring_invoices:read',
  'recurring_invoices:write',
  // Version 4 (docs/api-contract.md §28): availability and booking.
  'availability:read',
  'availability:write',
  // Version 4 (docs/api-contract.md §22): credit notes (a prefix of their own, so that no key granted
  // invoices:* before version 4 may issue credit), the ledger and the client's balance.
  'credit_notes:read',
  'credit_notes:write',
  'credit_notes:delete',
  'credit_notes:send',
  'reports:read',
  // Version 4 (docs/api-contract.md §29): time entries; approve also locks pay periods.
  'time_entries:read',
  'time_entries:write',
  'time_entries:delete',
  'time_entries:approve',
  // Version 4 (docs/api-contract.md §25): publishing apps, install links, and the installs of others' apps.
  'apps:read',
  'apps:write',
  'apps:install',
  'app_installs:read',
  'app_installs:write',
  // Version 4 (docs/api-contract.md §27): custom field definitions, and tags renamed and deleted everywhere.
  'custom_fields:read',
  'custom_fields:write',
  'tags:read',
  'tags:write',
  // Version 4 (docs/api-contract.md §26): CSV imports (each also needs its kind's write scope).
  'imports:read',
  'imports:write',
  // Version 4 (docs/api-contract.md §30): attachments, beside the read scope of the object they are on.
  'attachments:read',
  'attachments:write',
  'attachments:delete',
] as const;

export type Scope = (typeof SCOPES)[number];

/**
 * What an app may ask for and be granted (docs/api-contract.md §25): nothing an app makes may outlive its
 * install or widen access, so no keys, webhook endpoints, apps or installs.
 */
export const GRANTABLE_SCOPES: readonly Scope[] = SCOPES.filter(
  (scope) => !/^(api_keys|webhooks|apps|app_installs):/.test(scope),
);

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

/** `all` or a comma-separated list; throws with the unknown names. */
export function parseScopeList(text: string): Scope[] {
  if (text.trim() === 'all') return [...SCOPES];
  const names = text
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  const unknown = names.filter((name) => !isScope(name));
  if (unknown.length > 0)
    throw new Error(`Unknown scope(s): ${unknown.join(', ')}. Valid scopes: ${SCOPES.join(', ')}, or all.`);
  if (names.length === 0) throw new Error('Give at least one scope, or all.');
  return [...new Set(names)] as Scope[];
}
