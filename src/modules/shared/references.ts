// The ids a body names, looked up together so that one 422 names every wrong field (docs/api-contract.md §21):
// run beside the schema's and the service's findings when either refuses a body (http/error-handler.ts), since
// the service stops at the first reference it cannot find. Only existence in the caller's account is checked
// here (another account's id is unknown too); what else a reference must satisfy (the same client, not
// archived) stays the service's. An id whose resource needs a scope the key lacks is not looked up, so a 422
// cannot tell such a key whether it exists (docs/api-contract.md §3).
import type { ErrorDetail } from '../../core/errors.js';
import { isUuid } from '../../core/deps.js';
import type { Context } from '../../kernel/context.js';
import type { Scope } from '../../kernel/scopes.js';

/** The tables a body's ids name: each has an `id` and an `account_id`. */
export type ReferencedTable =
  | 'clients'
  | 'properties'
  | 'jobs'
  | 'quotes'
  | 'service_requests'
  | 'team_members'
  | 'products'
  | 'tax_rates'
  | 'invoices'
  | 'visits';

export interface ReferencedField {
  table: ReferencedTable;
  /** As the services' messages name it: `client`, `service request`. */
  kind: string;
  /** The scope the key needs for this id to be looked up (the route's link scope), if any. */
  scope?: Scope;
}

/** What a route gives its config (`referenceChecks`): the body's unknown ids, one detail each. */
export type ReferenceChecks = (ctx: Context, body: unknown, scopes: ReadonlySet<string>) => Promise<ErrorDetail[]>;

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** The id fields of a quote's, job's or invoice's lines. */
export const LINE_REFERENCES = {
  product_id: { table: 'products', kind: 'product' },
  tax_rate_ids: { table: 'tax_rates', kind: 'tax rate' },
} as const satisfies Record<string, ReferencedField>;

/**
 * Checks of the ids at `fields` (top-level names; a list of ids is checked id by id, `assignee_ids[1]`) and,
 * with `lines`, those of each of `line_items` (`line_items[0].product_id`, `line_items[0].tax_rate_ids[1]`).
 */
export function referenceChecks(
  fields: Record<string, ReferencedField>,
  lines?: Record<string, ReferencedField>,
): ReferenceChecks {
  return async (ctx, body, scopes) => {
    if (!isObject(body)) return [];
    const wanted: Array<{ field: string; id: string; reference: ReferencedField }> = [];
    const collect = (object: Record<string, unknown>, prefix: string, named: Record<string, ReferencedField>) => {
      for (const [name, reference] of Object.entries(named)) {
        if (reference.scope !== undefined && !scopes.has(reference.scope)) continue;
        const value = object[name];
        if (typeof value === 'string') wanted.push({ field: `${prefix}${name}`, id: value, reference });
        else if (Array.isArray(value))
          value.forEach((id, index) => {
            if (typeof id === 'string') wanted.push({ field: `${prefix}${name}[${index}]`, id, reference });
          });
      }
    };
    collect(body, '', fields);
    if (lines && Array.isArray(body.line_items))
      body.line_items.forEach((line, index) => {
        if (isObject(line)) collect(line, `line_items[${index}].`, lines);
      });
    const found = new Map<ReferencedTable, Set<string>>();
    for (const table of new Set(wanted.map((one) => one.reference.table))) {
      const ids = [
        ...new Set(wanted.filter((one) => one.reference.table === table && isUuid(one.id)).map((one) => one.id)),
      ];
      const rows =
        ids.length === 0
          ? []
          : await ctx.db
              .selectFrom(table)
              .select('id')
              .where('account_id', '=', ctx.accountId)
              .where('id', 'in', ids)
              .execute();
      found.set(table, new Set(rows.map((row) => row.id)));
    }
    return wanted
      .filter((one) => !found.get(one.reference.table)?.has(one.id))
      .map((one) => ({
        field: one.field,
        message: `no ${one.reference.kind} with id '${one.id}' exists in this account`,
      }));
  };
}
