// Client rules: creation, partial update (null clears), and delete refused while other records refer to it.
import { newId } from '../../core/deps.js';
import { conflict, notFound, type Precondition } from '../../core/errors.js';
import { inTransaction, type Context } from '../../kernel/context.js';
import { type Page, pageRequest, type PageRequest, toPage } from '../../db/index.js';
import type { ClientPatch, ClientRow } from '../../db/types.js';
import { recordChange, recordEvent, recordEvents } from '../events/index.js';
import { einvoicingProblems, mergeEinvoicing, serializeAddress, type EinvoicingInput } from '../shared/index.js';
import { validationError } from '../../core/errors.js';
import { findExternalIdHolders, guardExternalId, requireReference, requireRow } from '../shared/index.js';
import {
  customFieldShapes,
  deleteCustomFieldValues,
  updatedCustomFields,
  writeCustomFields,
} from '../custom-fields/index.js';
import { deleteObjectTags, tagShapes, writeTags } from '../tags/index.js';
import { deleteAttachmentsOf } from '../attachments/index.js';
import {
  clientDefinitions,
  listClientRecords,
  presentClient,
  readClientRecord,
  showWith,
  type PresentableClient,
} from './client-cache.js';
import * as repository from './clients.repository.js';
import type { Client, CreateClientInput, ListClientsInput, UpdateClientInput } from './clients.schemas.js';

/** A client row with the ids of its properties, as the client object lists them. */
export type ClientRecord = repository.ClientRecord;
export { presentClient, type PresentableClient };

/**
 * What else goes when a client is deleted: its properties (docs/api-contract.md §16), which live in a module
 * above this one; app.ts passes their delete in.
 */
export interface ClientDependents {
  /** Deletes what belongs to the client, with its events, in the caller's transaction. */
  deleteWithClient(tx: Context, clientId: string): Promise<void>;
}

async function withPropertyIds(ctx: Context, rows: ClientRow[]): Promise<ClientRecord[]> {
  const ids = await repository.propertyIdsOfClients(
    ctx.db,
    ctx.accountId,
    rows.map((row) => row.id),
  );
  return rows.map((row) => ({ ...row, property_ids: ids.get(row.id) ?? [] }));
}

/** The client's record, to be shown with the account's current definitions. */
async function clientRecord(ctx: Context, row: ClientRow): Promise<ClientRecord> {
  const definitions = await clientDefinitions(ctx.db, ctx.accountId);
  return showWith((await withPropertyIds(ctx, [row]))[0]!, definitions);
}

/** The client addressed by id (404 when there is none in the account). */
export function getClientRow(ctx: Context, id: string, lock = false): Promise<ClientRow> {
  return requireRow('client', id, (found) => repository.findClient(ctx.db, ctx.accountId, found, lock));
}

/**
 * The client a body's `client_id` names (422 on that field when there is none in the account), locked
 * until the transaction ends so it cannot be deleted under the document being made for it.
 */
export function requireClientReference(ctx: Context, clientId: string): Promise<ClientRow> {
  return requireReference('client_id', 'client', clientId, (id) =>
    repository.findClient(ctx.db, ctx.accountId, id, true),
  );
}

/** The buyer's e-invoicing fields of a body (docs/api-contract.md §31), checked; undefined members: absent. */
function partyInput(input: UpdateClientInput, stored: string | null | undefined): EinvoicingInput {
  const { vat_id, registration_id, registration_scheme, electronic_address, buyer_reference, einvoice_format } = input;
  const party = { vat_id, registration_id, registration_scheme, electronic_address, buyer_reference, einvoice_format };
  const problems = einvoicingProblems(party, stored);
  if (problems.length > 0) throw validationError(problems);
  return party;
}

/** A new client's row from a create's body (its custom fields and tags written apart). */
function newClientRow(ctx: Context, input: CreateClientInput): ClientRow {
  const now = ctx.clock.now().toISOString();
  const einvoicing = mergeEinvoicing(null, partyInput(input, null)) ?? null;
  return {
    id: newId(),
    account_id: ctx.accountId,
    name: input.name,
    sort_name: repository.sortName(input.name),
    email: input.email ?? null,
    phone: input.phone ?? null,
    company_name: input.company_name ?? null,
    address: serializeAddress(input.address),
    notes: input.notes ?? null,
    einvoicing,
    external_id: input.external_id ?? null,
    metadata: JSON.stringify(input.metadata ?? {}),
    custom_fields: '{}',
    tags: '[]',
    created_at: now,
    updated_at: now,
  };
}

/** The client presented from its new row, given its (no) property ids: the row itself, not a copy (a property after a spread is slow in V8). */
function presentNew(row: ClientRow, definitions: Awaited<ReturnType<typeof clientDefinitions>>): Client {
  const record = row as ClientRow & { property_ids: string[] };
  record.property_ids = [];
  return presentClient(showWith(record, definitions));
}

export async function createClient(ctx: Context, input: CreateClientInput): Promise<Client> {
  const row = newClientRow(ctx, input);
  return guardExternalId(ctx, 'clients', input.external_id, () =>
    inTransaction(ctx, async (tx) => {
      const definitions = await clientDefinitions(tx.db, tx.accountId);
      row.custom_fields = (await writeCustomFields(tx, definitions, row, input.custom_fields, undefined, true)) ?? '{}';
      row.tags = (await writeTags(tx, 'client', row, input.tags, undefined)) ?? '[]';
      const inserted = repository.insertClient(tx.db, row);
      const client = presentNew(row, definitions);
      // Sent with the row, not after its answer: on PostgreSQL, one round trip (and one socket write) for both.
      await Promise.all([inserted, recordEvent(tx, 'client.created', client)]);
      return client;
    }),
  );
}

/**
 * Several clients made in one transaction, in their order, each as `createClient` makes it (the same checks,
 * row, custom fields, tags and event), their rows and events written by statements of many rows (an import's
 * chunk of creates). An external id held already, or named twice, is refused (409) for the whole call, as is any
 * other refusal: the caller makes them one by one to learn which.
 */
export async function createClients(ctx: Context, inputs: readonly CreateClientInput[]): Promise<Client[]> {
  const rows = inputs.map((input) => newClientRow(ctx, input));
  const externalIds = inputs.flatMap((input) => (input.external_id ? [input.external_id] : []));
  return inTransaction(ctx, async (tx) => {
    const held = await findExternalIdHolders(tx.db, 'clients', tx.accountId, externalIds);
    if (held.size > 0 || new Set(externalIds).size < externalIds.length)
      throw conflict('An external_id of these clients is held or named twice.');
    const definitions = await clientDefinitions(tx.db, tx.accountId);
    for (const [index, row] of rows.entries()) {
      const input = inputs[index] as CreateClientInput;
      row.custom_fields = (await writeCustomFields(tx, definitions, row, input.custom_fields, undefined, true)) ?? '{}';
      row.tags = (await writeTags(tx, 'client', row, input.tags, undefined)) ?? '[]';
    }
    await repository.insertClients(tx.db, rows);
    const clients = rows.map((row) => presentNew(row, definitions));
    await recordEvents(tx, 'client.created', clients);
    return clients;
  });
}

export async function getClient(ctx: Context, id: string): Promise<Client> {
  return presentClient(await requireRow('client', id, (found) => readClientRecord(ctx.db, ctx.accountId, found)));
}

export async function updateClient(
  ctx: Context,
  id: string,
  input: UpdateClientInput,
  precondition?: Precondition,
): Promise<Client> {
  return guardExternalId(
    ctx,
    'clients',
    input.external_id,
    () => inTransaction(ctx, (tx) => applyClientUpdate(tx, id, input, precondition)),
    id,
  );
}

async function applyClientUpdate(
  tx: Context,
  id: string,
  input: UpdateClientInput,
  precondition?: Precondition,
): Promise<Client> {
  const current = await clientRecord(tx, await getClientRow(tx, id, true));
  precondition?.(presentClient(current));
  const patch: ClientPatch = {};
  if (input.name !== undefined) Object.assign(patch, { name: input.name, sort_name: repository.sortName(input.name) });
  if (input.email !== undefined) patch.email = input.email;
  if (input.phone !== undefined) patch.phone = input.phone;
  if (input.company_name !== undefined) patch.company_name = input.company_name;
  if (input.address !== undefined) patch.address = serializeAddress(input.address);
  if (input.notes !== undefined) patch.notes = input.notes;
  const einvoicing = mergeEinvoicing(current.einvoicing, partyInput(input, current.einvoicing));
  if (einvoicing !== undefined) patch.einvoicing = einvoicing;
  if (input.external_id !== undefined) patch.external_id = input.external_id;
  if (input.metadata !== undefined) patch.metadata = JSON.stringify(input.metadata);
  const definitions = await clientDefinitions(tx.db, tx.accountId);
  const values = await updatedCustomFields(tx, definitions, current, input.custom_fields, current.custom_fields);
  if (values !== undefined) patch.custom_fields = values;
  const tags = await writeTags(tx, 'client', current, input.tags, current.tags);
  if (tags !== undefined) patch.tags = tags;
  if (Object.keys(patch).length === 0) return presentClient(current);
  patch.updated_at = tx.clock.now().toISOString();
  const updated = await repository.updateClient(tx.db, tx.accountId, current.id, patch);
  if (!updated) throw notFound('client', id);
  const client = presentClient(showWith({ ...updated, property_ids: current.property_ids }, definitions));
  await recordChange(tx, { resource: 'client', before: presentClient(current), after: client });
  return client;
}

/**
 * The reference check and the delete share one transaction, so no new reference slips in between. A client
 * that only has properties takes them with it (`dependents`, each with its event, before the client's).
 */
export async function deleteClient(
  ctx: Context,
  id: string,
  precondition: Precondition | undefined,
  dependents: ClientDependents,
): Promise<{ id: string; deleted: true }> {
  return inTransaction(ctx, async (tx) => {
    const row = await clientRecord(tx, await getClientRow(tx, id, true));
    precondition?.(presentClient(row));
    const references = await repository.countClientReferences(tx.db, tx.accountId, row.id);
    if (references.length > 0) {
      const list = references.map(({ label, count }) => `${count} ${label}${count === 1 ? '' : 's'}`).join(', ');
      throw conflict(`This client cannot be deleted while ${list} refer to it. Delete or reassign them first.`);
    }
    await dependents.deleteWithClient(tx, row.id);
    await deleteCustomFieldValues(tx.db, tx.accountId, 'client', row.id);
    await deleteObjectTags(tx, 'client', row.id);
    await deleteAttachmentsOf(tx, 'client', row.id);
    await repository.deleteClient(tx.db, tx.accountId, row.id);
    await recordEvent(tx, 'client.deleted', presentClient(row));
    return { id: row.id, deleted: true as const };
  });
}

export async function listClients(ctx: Context, query: ListClientsInput): Promise<Page<PresentableClient>> {
  const page = pageRequest(query, repository.CLIENT_SORTS);
  // Read once for the filters' checks and the rows' values (on PostgreSQL each read is a round trip).
  const definitions = await clientDefinitions(ctx.db, ctx.accountId);
  const shaped = [
    ...(await customFieldShapes(ctx.db, ctx.accountId, 'client', 'clients', query, definitions)),
    ...(await tagShapes(ctx.db, ctx.accountId, 'client', 'clients', query)),
  ];
  const filters = shaped.length > 0 ? { ...query, shaped } : query;
  const { rows, resumeAfter } = await listClientRecords(ctx.db, ctx.accountId, filters, page, definitions);
  return toPage<PresentableClient>(rows, page as unknown as PageRequest<PresentableClient>, resumeAfter);
}
