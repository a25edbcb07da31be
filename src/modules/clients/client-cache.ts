// The client's kept copies, every one declared here (docs/architecture.md, "Kept copies").
//
// The rule they rest on: A CLIENT OBJECT IS A PURE FUNCTION OF ITS ROW AS READ AND ITS ACCOUNT'S CUSTOM FIELD
// DEFINITIONS (`clientOf` below). The row's columns (its custom field values among them, a JSON column the one
// writer keeps, modules/custom-fields/values.ts), on SQLite its property ids (a column of the row, which triggers
// on properties keep), and its tags' names (read with the row from its links and the tags' rows, modules/tags
// `tagNamesColumn`) are all a client is made of, with the definitions that say which keys it answers: not the
// time, not the caller beyond the account the row belongs to. A field that would break the rule (derived from the
// clock or the key) cannot be added to the client while these copies exist: take the client out of them first.
// The tags' names are the one part another table's write changes without moving the row's version (a tag's
// rename or delete): a copy is current only while its definitions are, and on SQLite those are a new object after
// any commit (modules/custom-fields/definitions.ts), so the rename's commit makes every copy stale
// (test/tags-kept-copies.test.ts).
//
// What is kept, on SQLite outside a transaction only (PostgreSQL and a transaction read every client whole):
// - copies: per database, by client id, the record read at its row's `version`, the frozen client it presents
//   and, made at first need by the routes, that client's JSON and ETag as the answers carry them. Lists (their
//   page's ids and versions read first) and GET read through them. Stale when the row's version moved: a
//   trigger raises it after every UPDATE of the row (BMS's, the property triggers', any other connection's);
//   a deleted row is not listed; stale too when it was made with other definitions than the current ones
//   (modules/custom-fields/definitions.ts answers the same `Definitions` object while nothing was committed).
//   10,000 at most, the least recently read out first.
// - answers: per database, by account and id, GET's copy with the read connection's data_version read before
//   its row (and before the definitions). Stale when data_version moved: SQLite changes it after any commit by another connection, and
//   BMS's own writer is another connection. 1,000 at most, the oldest kept out first.
// No writer calls in here: both stamps are the database's own, so a write by another process or by hand
// makes a copy stale exactly as BMS's own write does. Tests: test/client-cache.test.ts (after random writes
// through the API, another connection and the CLI, every cached read equals an uncached one),
// test/clients-fresh.test.ts, test/kept-answers.test.ts.
import { Lru } from '../../core/lru.js';
import {
  type Executor,
  fromJsonShared,
  type Listed,
  type PageRequest,
  readDataVersion,
  readsCommittedVersions,
} from '../../db/index.js';
import type { ClientRow } from '../../db/types.js';
import { type Definitions, presentCustomFields, readDefinitions, storedValues } from '../custom-fields/index.js';
import type { Address, EinvoiceFormat, ElectronicAddress } from '../shared/index.js';
import * as repository from './clients.repository.js';
import type { Client } from './clients.schemas.js';

/** What presentClient reads of a client: a list's rows leave out the account and, unless sorted by name, sort_name. */
export type PresentableClient = repository.ListedClient;
type ClientRecord = repository.ClientRecord;

/** The definitions a row read by a list or a write was read with, for presentClient (rows are not copied). */
const definitionsOfRow = new WeakMap<object, Definitions>();

/** Remembers the definitions `row` is to be shown with (a list's rows, a write's row). */
export function showWith<Row extends object>(row: Row, definitions: Definitions): Row {
  definitionsOfRow.set(row, definitions);
  return row;
}

/** The account's client custom fields: what a client is shown with. */
export function clientDefinitions(db: Executor, accountId: string): Promise<Definitions> {
  return readDefinitions(db, accountId, 'client');
}

/** The buyer's e-invoicing fields of the row's JSON (modules/shared/einvoicing.ts), each null when unset. */
function partyOf(stored: string | null | undefined) {
  const party =
    stored === null || stored === undefined
      ? undefined
      : fromJsonShared<{
          vat_id?: string | null;
          registration_id?: string | null;
          registration_scheme?: string | null;
          electronic_address?: ElectronicAddress | null;
          buyer_reference?: string | null;
          einvoice_format?: EinvoiceFormat | null;
        }>(stored);
  return {
    vat_id: party?.vat_id ?? null,
    registration_id: party?.registration_id ?? null,
    registration_scheme: party?.registration_scheme ?? null,
    electronic_address: party?.electronic_address ?? null,
    buyer_reference: party?.buyer_reference ?? null,
    einvoice_format: party?.einvoice_format ?? null,
  };
}

/** A client as the API shows it: its row's columns and the definitions, nothing else (the rule above). */
function clientOf(row: PresentableClient, definitions: Definitions): Client {
  const party = partyOf(row.einvoicing);
  return {
    id: row.id,
    object: 'client',
    name: row.name,
    email: row.email,
    phone: row.phone,
    company_name: row.company_name,
    address: row.address === null ? null : fromJsonShared<Address>(row.address),
    notes: row.notes,
    vat_id: party.vat_id,
    registration_id: party.registration_id,
    registration_scheme: party.registration_scheme,
    electronic_address: party.electronic_address,
    buyer_reference: party.buyer_reference,
    einvoice_format: party.einvoice_format,
    property_ids: row.property_ids,
    external_id: row.external_id,
    metadata: fromJsonShared<Record<string, string>>(row.metadata),
    custom_fields: presentCustomFields(definitions, storedValues(row.custom_fields)),
    tags: fromJsonShared<string[]>(row.tags),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** A kept copy of a client: its record at its row's version, the client it presents, its JSON and ETag. */
interface Copy {
  version: number;
  /** What the client was shown with: the copy is current only while these are. */
  definitions: Definitions;
  record: ClientRecord;
  client: Client;
  json?: string;
  etag?: string;
}

/** The most copies kept per database (~1 KB each: the record, the client, its JSON). */
const MAX_COPIES = 10_000;
/** The most GET answers kept per database (each a copy, kept by the copies too while they have room). */
const MAX_ANSWERS = 1000;

/** copies (above): per database, by client id. */
const copiesByDatabase = new WeakMap<object, Lru<string, Copy>>();
/** answers (above): per database, by `account/id`. */
const answersByDatabase = new WeakMap<object, Map<string, { dataVersion: number; copy: Copy }>>();
/** Not a copy but the way to one: from a kept record, or a kept client, to its copy. */
const copyOf = new WeakMap<object, Copy>();

/**
 * The copies kept for `db` when it is a SQLite database itself (its reads run on the read connection, which
 * sees only committed rows); undefined on PostgreSQL and in a transaction.
 */
function copiesIn(db: Executor): Lru<string, Copy> | undefined {
  if (!readsCommittedVersions(db)) return undefined;
  let copies = copiesByDatabase.get(db);
  if (copies === undefined) {
    copies = new Lru(MAX_COPIES);
    copiesByDatabase.set(db, copies);
  }
  return copies;
}

/**
 * `text` made one flat string (V8 flattens a string in place when a character of it is read). A serializer
 * builds its JSON piece by piece, and a string of pieces is walked piece by piece every time it is copied: 25
 * kept clients' JSON joined into a page took 13 µs so, 1 µs once flat.
 */
function flattened(text: string): string {
  text.charCodeAt(0);
  return text;
}

/**
 * A client as the API shows it. A kept record is shown by its copy's client, the same frozen object each time;
 * any other row makes a new one. Its JSON columns come from fromJsonShared: the same text read again gives the
 * same frozen object, not a new parse.
 */
export function presentClient(row: PresentableClient): Client {
  const copy = copyOf.get(row);
  if (copy !== undefined && copy.record === row) return copy.client;
  const definitions = definitionsOfRow.get(row);
  if (definitions === undefined) throw new Error('a client row shown without its definitions (showWith)');
  return clientOf(row, definitions);
}

/**
 * The copies of a page's rows: kept when their version is the row's, else read whole by id (one query for
 * them all) and kept. The two reads are two snapshots: undefined when a row read whole was changed or deleted
 * since its version was read (another commit came between), so that a list reads its page again in one
 * statement rather than answer rows out of its order or end early; GET takes the newer copy (`exact` false),
 * or none when the row is gone.
 */
async function copiesOfRows(
  db: Executor,
  accountId: string,
  rows: readonly repository.VersionedClient[],
  copies: Lru<string, Copy>,
  exact: boolean,
  definitions: Definitions,
): Promise<Copy[] | undefined> {
  const found: Array<Copy | undefined> = [];
  let missing: string[] | undefined;
  for (const { id, version } of rows) {
    const copy = copies.peek(id);
    if (copy?.version === version && copy.definitions === definitions) found.push(copy);
    else {
      found.push(undefined);
      (missing ??= []).push(id);
    }
  }
  if (missing === undefined) return found as Copy[];
  const readById = new Map<string, Copy>();
  for (const row of await repository.findVersionedRecords(db, accountId, missing)) {
    const { version, ...record } = row;
    Object.freeze(record.property_ids);
    const copy: Copy = {
      version,
      definitions,
      record: Object.freeze(record),
      client: Object.freeze(clientOf(record, definitions)),
    };
    copyOf.set(copy.record, copy);
    copyOf.set(copy.client, copy);
    readById.set(record.id, copy);
    copies.set(record.id, copy);
  }
  const result: Copy[] = [];
  for (let index = 0; index < rows.length; index += 1) {
    const listed = rows[index]!;
    const fresh = found[index] === undefined ? readById.get(listed.id) : undefined;
    if (exact && found[index] === undefined && fresh?.version !== listed.version) return undefined;
    const copy = found[index] ?? fresh;
    if (copy !== undefined) result.push(copy);
  }
  return result;
}

/** GET's record of a client (with the ids of its properties, oldest first): its kept answer when still current. */
export function readClientRecord(
  db: Executor,
  accountId: string,
  id: string,
): ClientRecord | undefined | Promise<ClientRecord | undefined> {
  const dataVersion = readDataVersion(db);
  if (dataVersion === undefined) return readShownRecord(db, accountId, id);
  let answers = answersByDatabase.get(db);
  if (answers === undefined) {
    answers = new Map();
    answersByDatabase.set(db, answers);
  }
  const key = `${accountId}/${id}`;
  const kept = answers.get(key);
  if (kept !== undefined && kept.dataVersion === dataVersion) return kept.copy.record;
  return readAnswer(db, accountId, id, key, dataVersion, answers);
}

/** A client's record read whole, to be shown with the current definitions (both asked in one round trip). */
async function readShownRecord(db: Executor, accountId: string, id: string): Promise<ClientRecord | undefined> {
  const [definitions, record] = await Promise.all([
    clientDefinitions(db, accountId),
    repository.findClientRecord(db, accountId, id),
  ]);
  return record && showWith(record, definitions);
}

async function readAnswer(
  db: Executor,
  accountId: string,
  id: string,
  key: string,
  dataVersion: number,
  answers: Map<string, { dataVersion: number; copy: Copy }>,
): Promise<ClientRecord | undefined> {
  // Read after the data version: a commit in between makes the version kept older than the row, never newer.
  const definitions = await clientDefinitions(db, accountId);
  const listed = (await repository.findClientVersion(db, accountId, id))[0];
  const copy = listed && (await copiesOfRows(db, accountId, [listed], copiesIn(db)!, false, definitions))?.[0];
  if (copy === undefined) return undefined;
  if (answers.size >= MAX_ANSWERS) answers.delete(answers.keys().next().value as string);
  answers.set(key, { dataVersion, copy });
  return copy.record;
}

/** A page of clients: through the kept copies where they are kept (a list without `q` or `email`), else whole. */
export async function listClientRecords(
  db: Executor,
  accountId: string,
  filters: repository.ClientFilters,
  page: PageRequest<ClientRow>,
  /** The account's client definitions when the caller has read them already (its filters' checks). */
  read?: Definitions,
): Promise<Listed<PresentableClient>> {
  const definitions = read ?? (await clientDefinitions(db, accountId));
  const copies = copiesIn(db);
  if (copies !== undefined && filters.q === undefined && filters.email === undefined) {
    const listed = await repository.listClientVersions(db, accountId, filters, page);
    const found = await copiesOfRows(db, accountId, listed.rows, copies, true, definitions);
    if (found) return { rows: found.map((copy) => copy.record), resumeAfter: listed.resumeAfter };
  }
  const listed = await repository.listClients(db, accountId, filters, page);
  for (const row of listed.rows) showWith(row, definitions);
  return listed;
}

/**
 * The JSON and ETag of the clients the routes answer (http/resource-routes.ts, `kept`): a kept client's are
 * made once, by `write` and `tag`, and kept with its copy; any other client's are made each time.
 */
export const keptClientJson = {
  json(client: Client, write: (client: Client) => string): string {
    const copy = copyOf.get(client);
    if (copy === undefined || copy.client !== client) return write(client);
    copy.json ??= flattened(write(client));
    return copy.json;
  },
  etag(client: Client, json: string, tag: (json: string) => string): string {
    const copy = copyOf.get(client);
    if (copy === undefined || copy.client !== client) return tag(json);
    copy.etag ??= tag(json);
    return copy.etag;
  },
};
