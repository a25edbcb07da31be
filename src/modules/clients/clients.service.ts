// Client rules: creation, partial update (null clears), and delete refused while other records refer to it.
import type { Clock } from '../../core/deps.js';
import { newId } from '../../core/deps.js';
import { conflict, notFound, type Precondition } from '../../core/errors.js';
import type { Db, Executor } from '../../db/database.js';
import { pageRequest, toPage, type Page } from '../../db/keyset.js';
import type { ClientPatch, ClientRow } from '../../db/types.js';
import { fromJson } from '../../db/values.js';
import { recordChange, recordEvent } from '../events/events.service.js';
import { presentAddress, serializeAddress } from '../shared/address.js';
import { requireReference, requireRow } from '../shared/lookup.js';
import * as repository from './clients.repository.js';
import type { Client, CreateClientInput, ListClientsInput, UpdateClientInput } from './clients.schemas.js';

export function presentClient(row: ClientRow): Client {
  return {
    id: row.id,
    object: 'client',
    name: row.name,
    email: row.email,
    phone: row.phone,
    company_name: row.company_name,
    address: presentAddress(row.address),
    notes: row.notes,
    metadata: fromJson<Record<string, string>>(row.metadata),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** The client addressed by id (404 when there is none in the account). */
export function getClientRow(db: Executor, accountId: string, id: string, lock = false): Promise<ClientRow> {
  return requireRow('client', id, (found) => repository.findClient(db, accountId, found, lock));
}

/**
 * The client a body's `client_id` names (422 on that field when there is none in the account), locked
 * until the transaction ends so it cannot be deleted under the document being made for it.
 */
export function requireClientReference(trx: Executor, accountId: string, clientId: string): Promise<ClientRow> {
  return requireReference('client_id', 'client', clientId, (id) => repository.findClient(trx, accountId, id, true));
}

export async function createClient(db: Db, clock: Clock, accountId: string, input: CreateClientInput): Promise<Client> {
  const now = clock.now().toISOString();
  const row: ClientRow = {
    id: newId(),
    account_id: accountId,
    name: input.name,
    sort_name: repository.sortName(input.name),
    email: input.email ?? null,
    phone: input.phone ?? null,
    company_name: input.company_name ?? null,
    address: serializeAddress(input.address),
    notes: input.notes ?? null,
    metadata: JSON.stringify(input.metadata ?? {}),
    created_at: now,
    updated_at: now,
  };
  return db.transaction().execute(async (trx) => {
    await repository.insertClient(trx, row);
    const client = presentClient(row);
    await recordEvent(trx, clock, accountId, 'client.created', client);
    return client;
  });
}

export async function getClient(db: Executor, accountId: string, id: string): Promise<Client> {
  return presentClient(await getClientRow(db, accountId, id));
}

export async function updateClient(db: Db, clock: Clock, accountId: string, id: string, input: UpdateClientInput, precondition?: Precondition): Promise<Client> {
  return db.transaction().execute((trx) => applyClientUpdate(trx, clock, accountId, id, input, precondition));
}

async function applyClientUpdate(db: Executor, clock: Clock, accountId: string, id: string, input: UpdateClientInput, precondition?: Precondition): Promise<Client> {
  const current = await getClientRow(db, accountId, id, true);
  precondition?.(presentClient(current));
  const patch: ClientPatch = {};
  if (input.name !== undefined) Object.assign(patch, { name: input.name, sort_name: repository.sortName(input.name) });
  if (input.email !== undefined) patch.email = input.email;
  if (input.phone !== undefined) patch.phone = input.phone;
  if (input.company_name !== undefined) patch.company_name = input.company_name;
  if (input.address !== undefined) patch.address = serializeAddress(input.address);
  if (input.notes !== undefined) patch.notes = input.notes;
  if (input.metadata !== undefined) patch.metadata = JSON.stringify(input.metadata);
  if (Object.keys(patch).length === 0) return presentClient(current);
  patch.updated_at = clock.now().toISOString();
  const updated = await repository.updateClient(db, accountId, current.id, patch);
  if (!updated) throw notFound('client', id);
  const client = presentClient(updated);
  await recordChange(db, clock, accountId, 'client', presentClient(current), client);
  return client;
}

/** The reference check and the delete share one transaction, so no new reference slips in between. */
export async function deleteClient(db: Db, clock: Clock, accountId: string, id: string, precondition?: Precondition): Promise<{ id: string; deleted: true }> {
  return db.transaction().execute(async (trx) => {
    const row = await getClientRow(trx, accountId, id, true);
    precondition?.(presentClient(row));
    const references = await repository.countClientReferences(trx, accountId, row.id);
    if (references.length > 0) {
      const list = references.map(({ label, count }) => `${count} ${label}${count === 1 ? '' : 's'}`).join(', ');
      throw conflict(`This client cannot be deleted while ${list} refer to it. Delete or reassign them first.`);
    }
    await repository.deleteClient(trx, accountId, row.id);
    await recordEvent(trx, clock, accountId, 'client.deleted', presentClient(row));
    return { id: row.id, deleted: true as const };
  });
}

export async function listClients(db: Executor, accountId: string, query: ListClientsInput): Promise<Page<ClientRow>> {
  const page = pageRequest(query, repository.CLIENT_SORTS);
  const { rows, resumeAfter } = await repository.listClients(db, accountId, query, page);
  return toPage(rows, page, resumeAfter);
}
