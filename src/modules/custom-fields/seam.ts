// The one seam through which every kind but clients carries its custom fields (docs/api-contract.md §27). A kind's
// presenter answers `custom_fields` as its row stores them (storedValues: the keys set); the seam completes that
// where an object leaves BMS: its routes' answers and list pages (http/resource-routes.ts takes `customFieldSeam`),
// its events' objects (events' completeEventObjectsWith, set here), and MCP tools' results
// (completeCustomFieldAnswers). Completed, an object answers every live definition's key in order, null when unset,
// and no deleted field's key. The same seam checks a body's values beside the native fields (the 422's
// `custom_fields.<key>` details). Clients complete in their presenter already (their kept copies need it).
import { completeEventObjectsWith } from '../events/index.js';
import type { Executor } from '../../db/index.js';
import type { Context } from '../../kernel/context.js';
import type { ReferenceChecks } from '../shared/index.js';
import { CUSTOM_FIELD_RESOURCES, type CustomFieldResource } from './custom-fields.schemas.js';
import { type Definitions, readDefinitions } from './definitions.js';
import { customFieldChecks, presentCustomFields } from './values.js';

/** The kinds the seam completes: every kind but clients, whose presenter completes them. */
const COMPLETED = new Set<string>(CUSTOM_FIELD_RESOURCES.filter((kind) => kind !== 'client'));

type Holder = { object?: unknown; custom_fields?: unknown };

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** Completes one object's `custom_fields` in place with these definitions. */
function complete(definitions: Definitions, item: Holder): void {
  if (isObject(item.custom_fields)) item.custom_fields = presentCustomFields(definitions, item.custom_fields);
}

/** What a kind's routes take (http/resource-routes.ts `customFields`). */
export interface CustomFieldSeam {
  /** The body's custom field problems, joined to `also` (the route's reference checks), for one 422. */
  checks(creating: boolean, also?: ReferenceChecks): ReferenceChecks;
  /** Completes the kind's answers: read once per request, then applied to each object (in place). */
  answers(ctx: Pick<Context, 'db' | 'accountId'>): Promise<<T>(item: T) => T>;
}

/** The seam of one kind. */
export function customFieldSeam(resource: CustomFieldResource): CustomFieldSeam {
  return {
    checks: (creating, also) => customFieldChecks(resource, creating, also),
    async answers(ctx) {
      const definitions = await readDefinitions(ctx.db, ctx.accountId, resource);
      return <T>(item: T): T => {
        complete(definitions, item as Holder);
        return item;
      };
    },
  };
}

/** The objects of the completed kinds in an answer (nested in objects and lists, a few levels deep). */
function collect(value: unknown, found: Holder[], depth: number): void {
  if (depth > 4 || value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    for (const one of value) collect(one, found, depth + 1);
    return;
  }
  const object = value as Record<string, unknown>;
  if (typeof object.object === 'string' && COMPLETED.has(object.object) && isObject(object.custom_fields))
    found.push(object);
  for (const [name, inner] of Object.entries(object))
    if (name !== 'custom_fields' && inner !== null && typeof inner === 'object') collect(inner, found, depth + 1);
}

/** Completes every object of a completed kind in an answer (an MCP tool's result), in place. */
export async function completeCustomFieldAnswers(db: Executor, accountId: string, answer: unknown): Promise<void> {
  const found: Holder[] = [];
  collect(answer, found, 0);
  const read = new Map<string, Definitions>();
  for (const object of found) {
    const kind = object.object as CustomFieldResource;
    let definitions = read.get(kind);
    if (definitions === undefined) {
      definitions = await readDefinitions(db, accountId, kind);
      read.set(kind, definitions);
    }
    complete(definitions, object);
  }
}

// An event's object is completed as its answers are (the object itself; what it embeds is answered as stored).
completeEventObjectsWith(async (ctx, object) => {
  const holder = object as Holder;
  if (typeof holder.object !== 'string' || !COMPLETED.has(holder.object) || !isObject(holder.custom_fields)) return;
  complete(await readDefinitions(ctx.db, ctx.accountId, holder.object as CustomFieldResource), holder);
});
