// An account's live custom field definitions of one kind, as values.ts checks and presents them: read once per
// read connection's data version on SQLite (what was read is current while no other connection committed, and
// BMS's writer is another connection); else (PostgreSQL, a transaction) kept by the kind's stamp, which a trigger
// renews at every write of a definition (migration 20261130060100): each read asks for the stamp and gets the
// definitions' rows only when it moved, in one round trip. A kind's kept copies (modules/clients/client-cache.ts,
// SQLite only) compare the `Definitions` object they were made with: on SQLite the same object while nothing was
// committed since, a new one after any commit. Listed in docs/architecture.md, "Kept copies"; tested by
// test/custom-field-definitions-kept.test.ts.
import { type Executor, fromJson, readDataVersion } from '../../db/index.js';
import type { CustomFieldRow } from '../../db/types.js';
import * as repository from './custom-fields.repository.js';
import type {
  CustomFieldBounds,
  CustomFieldOption,
  CustomFieldResource,
  CustomFieldType,
} from './custom-fields.schemas.js';

/** A live definition as the values' checks read it. */
export interface Definition {
  id: string;
  key: string;
  label: string;
  description: string | null;
  type: CustomFieldType;
  required: boolean;
  options: CustomFieldOption[];
  bounds: CustomFieldBounds;
  printable: boolean;
  position: number;
}

/** A kind's live definitions in their order, and by key. Frozen; the same object while current. */
export interface Definitions {
  readonly resource: CustomFieldResource;
  readonly fields: readonly Definition[];
  readonly byKey: ReadonlyMap<string, Definition>;
}

export function definitionOf(row: CustomFieldRow): Definition {
  return {
    id: row.id,
    key: row.key,
    label: row.label,
    description: row.description,
    type: row.type as CustomFieldType,
    required: Number(row.required) === 1,
    options: fromJson<CustomFieldOption[]>(row.options),
    bounds: fromJson<CustomFieldBounds>(row.bounds),
    printable: Number(row.printable) === 1,
    position: Number(row.position),
  };
}

function definitionsOf(resource: CustomFieldResource, rows: readonly CustomFieldRow[]): Definitions {
  const fields = rows.map(definitionOf);
  return Object.freeze({
    resource,
    fields: Object.freeze(fields),
    byKey: new Map(fields.map((field) => [field.key, field])),
  });
}

/** Per SQLite database: by `account/resource`, the definitions read at a data version. */
const keptByDatabase = new WeakMap<object, Map<string, { dataVersion: number; definitions: Definitions }>>();
/** The most (account, kind) pairs kept per database. */
const MAX_KEPT = 1000;

/** By `account/resource`: the definitions read with a stamp (PostgreSQL, a transaction). */
const keptByStamp = new Map<string, { stamp: string; definitions: Definitions }>();

/**
 * The definitions kept with the kind's stamp while it has not moved. A stamp is random, renewed at every write,
 * so the same stamp is the same definitions in whichever database and transaction it was read (one written in a
 * transaction that rolled back is never read again).
 */
async function readStamped(db: Executor, accountId: string, resource: CustomFieldResource): Promise<Definitions> {
  const name = `${accountId}/${resource}`;
  const found = keptByStamp.get(name);
  const read = await repository.liveCustomFieldsUnlessStamped(db, accountId, resource, found?.stamp);
  if (read.rows === undefined && found !== undefined) return found.definitions;
  const definitions = definitionsOf(resource, read.rows ?? []);
  if (read.stamp === undefined) return definitions;
  if (keptByStamp.size >= MAX_KEPT && !keptByStamp.has(name))
    keptByStamp.delete(keptByStamp.keys().next().value as string);
  keptByStamp.set(name, { stamp: read.stamp, definitions });
  return definitions;
}

/** The account's live definitions of the kind (see above). */
export async function readDefinitions(
  db: Executor,
  accountId: string,
  resource: CustomFieldResource,
): Promise<Definitions> {
  const dataVersion = readDataVersion(db);
  if (dataVersion === undefined) return readStamped(db, accountId, resource);
  let kept = keptByDatabase.get(db);
  if (kept === undefined) {
    kept = new Map();
    keptByDatabase.set(db, kept);
  }
  const name = `${accountId}/${resource}`;
  const found = kept.get(name);
  if (found !== undefined && found.dataVersion === dataVersion) return found.definitions;
  // Read after the data version: a commit in between makes the version kept older than the rows, never newer.
  const definitions = definitionsOf(resource, await repository.liveCustomFields(db, accountId, resource));
  if (kept.size >= MAX_KEPT && !kept.has(name)) kept.delete(kept.keys().next().value as string);
  kept.set(name, { dataVersion, definitions });
  return definitions;
}
