// Property rules (docs/api-contract.md §16): made for a client and never moved to another, an IANA time zone
// (the account's when omitted, stored as it was at creation: §21), an external id unique among the
// account's properties, archived rather than deleted while a document names it, and the checks a document's
// `property_id` must pass. A property's access notes are for the crew: the service address printed on
// documents (serviceAddressOf) never carries them.
import { newId } from '../../core/deps.js';
import { conflict, fieldError, notFound, type Precondition } from '../../core/errors.js';
import { canonicalTimeZone } from '../../core/time.js';
import { type Executor, fromJson, type Page, pageRequest, toPage } from '../../db/index.js';
import type { PropertyPatch, PropertyRow } from '../../db/types.js';
import { inTransaction, type Context } from '../../kernel/context.js';
import { findAccountTimezone } from '../accounts/index.js';
import { requireClientReference } from '../clients/index.js';
import { requireTaxRates } from '../catalog/index.js';
import {
  createdCustomFields,
  customFieldConditions,
  deleteCustomFieldValues,
  storedValues,
  updatedCustomFields,
} from '../custom-fields/index.js';
import { deleteObjectTags, storedTags, tagConditions, writeTags } from '../tags/index.js';
import { deleteAttachmentsOf } from '../attachments/index.js';
import { recordChange, recordEvent } from '../events/index.js';
import { guardExternalId, presentAddress, requireReference, requireRow, type Address } from '../shared/index.js';
import * as repository from './properties.repository.js';
import type { CreatePropertyInput, ListPropertiesInput, Property, UpdatePropertyInput } from './properties.schemas.js';

const ADDRESS_KEYS = ['line1', 'line2', 'city', 'region', 'postal_code', 'country'] as const;
type AddressInput = CreatePropertyInput['address'];

export function presentProperty(row: PropertyRow): Property {
  return {
    id: row.id,
    object: 'property',
    client_id: row.client_id,
    name: row.name,
    address: presentAddress(row.address) as Address,
    timezone: row.timezone,
    location: row.location === null ? null : fromJson<{ lat: number; lng: number }>(row.location),
    access_notes: row.access_notes,
    default_tax_rate_ids: fromJson<string[]>(row.default_tax_rate_ids ?? '[]'),
    archived: Number(row.archived) === 1,
    external_id: row.external_id,
    metadata: fromJson<Record<string, string>>(row.metadata),
    custom_fields: storedValues(row.custom_fields),
    tags: storedTags(row.tags),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** A postal code as the filter compares it: upper case, without spaces and hyphens (`sw1a-1aa` is `SW1A1AA`). */
export function postalCodeKey(postalCode: string | null | undefined): string | null {
  if (postalCode === null || postalCode === undefined) return null;
  const key = postalCode.replace(/[\s-]/g, '').toUpperCase();
  return key === '' ? null : key;
}

/** The columns an address sets: the address with every key present, its postal-code key, the search text. */
function addressColumns(address: AddressInput, name: string | null) {
  const complete = Object.fromEntries(ADDRESS_KEYS.map((key) => [key, address[key] ?? null])) as Address;
  const searchText = [name, ...ADDRESS_KEYS.map((key) => complete[key])]
    .filter((part): part is string => part !== null && part !== '')
    .join('\n')
    .toLowerCase();
  return {
    address: JSON.stringify(complete),
    postal_code_key: postalCodeKey(complete.postal_code),
    search_text: searchText,
  };
}

/**
 * The time zone a property gets when none is given: the account's (docs/api-contract.md §14); the value is
 * stored, so a later change of the account's zone does not move existing properties (§21).
 */
const accountTimeZone = findAccountTimezone;

function getRow(ctx: Context, id: string, lock = false): Promise<PropertyRow> {
  return requireRow('property', id, (found) => repository.findProperty(ctx.db, ctx.accountId, found, lock));
}

export async function createProperty(ctx: Context, input: CreatePropertyInput): Promise<Property> {
  // A second property with the same external_id is a 409 naming the holder (docs/api-contract.md §14).
  return guardExternalId(ctx, 'properties', input.external_id, () =>
    inTransaction(ctx, async (tx) => {
      await requireClientReference(tx, input.client_id);
      if (input.default_tax_rate_ids)
        await requireTaxRates(tx.db, tx.accountId, 'default_tax_rate_ids', input.default_tax_rate_ids);
      const now = tx.clock.now().toISOString();
      const name = input.name ?? null;
      const row: PropertyRow = {
        id: newId(),
        account_id: tx.accountId,
        client_id: input.client_id,
        name,
        ...addressColumns(input.address, name),
        timezone:
          input.timezone === undefined
            ? await accountTimeZone(tx.db, tx.accountId)
            : canonicalTimeZone('timezone', input.timezone),
        location: input.location ? JSON.stringify({ lat: input.location.lat, lng: input.location.lng }) : null,
        access_notes: input.access_notes ?? null,
        default_tax_rate_ids: JSON.stringify(input.default_tax_rate_ids ?? []),
        archived: input.archived ? 1 : 0,
        external_id: input.external_id ?? null,
        metadata: JSON.stringify(input.metadata ?? {}),
        custom_fields: '{}',
        tags: '[]',
        created_at: now,
        updated_at: now,
      };
      row.custom_fields = await createdCustomFields(tx, 'property', row, input.custom_fields);
      row.tags = (await writeTags(tx, 'property', row, input.tags, undefined)) ?? '[]';
      await repository.insertProperty(tx.db, row);
      const property = presentProperty(row);
      await recordEvent(tx, 'property.created', property);
      return property;
    }),
  );
}

export async function getProperty(ctx: Context, id: string): Promise<Property> {
  return presentProperty(await getRow(ctx, id));
}

export async function updateProperty(
  ctx: Context,
  id: string,
  input: UpdatePropertyInput,
  precondition?: Precondition,
): Promise<Property> {
  return guardExternalId(
    ctx,
    'properties',
    input.external_id,
    () =>
      inTransaction(ctx, async (tx) => {
        const current = await getRow(tx, id, true);
        precondition?.(presentProperty(current));
        if (input.client_id !== undefined && input.client_id !== current.client_id)
          throw fieldError('client_id', 'cannot change: a property stays with the client it was made for');
        const patch: PropertyPatch = {};
        const name = input.name !== undefined ? input.name : current.name;
        if (input.name !== undefined) patch.name = input.name;
        if (input.address !== undefined || input.name !== undefined) {
          const address = input.address ?? (presentAddress(current.address) as AddressInput);
          Object.assign(patch, addressColumns(address, name));
        }
        if (input.timezone !== undefined) patch.timezone = canonicalTimeZone('timezone', input.timezone);
        if (input.location !== undefined)
          patch.location =
            input.location === null ? null : JSON.stringify({ lat: input.location.lat, lng: input.location.lng });
        if (input.access_notes !== undefined) patch.access_notes = input.access_notes;
        if (input.default_tax_rate_ids !== undefined) {
          const kept = new Set(fromJson<string[]>(current.default_tax_rate_ids ?? '[]'));
          await requireTaxRates(tx.db, tx.accountId, 'default_tax_rate_ids', input.default_tax_rate_ids, kept);
          patch.default_tax_rate_ids = JSON.stringify(input.default_tax_rate_ids);
        }
        if (input.archived !== undefined) patch.archived = input.archived ? 1 : 0;
        if (input.external_id !== undefined) patch.external_id = input.external_id;
        if (input.metadata !== undefined) patch.metadata = JSON.stringify(input.metadata);
        const values = await updatedCustomFields(tx, 'property', current, input.custom_fields, current.custom_fields);
        if (values !== undefined) patch.custom_fields = values;
        const tags = await writeTags(tx, 'property', current, input.tags, current.tags);
        if (tags !== undefined) patch.tags = tags;
        if (Object.keys(patch).length === 0) return presentProperty(current);
        patch.updated_at = tx.clock.now().toISOString();
        const updated = await repository.updateProperty(tx.db, tx.accountId, current.id, patch);
        if (!updated) throw notFound('property', id);
        const property = presentProperty(updated);
        await recordChange(tx, { resource: 'property', before: presentProperty(current), after: property });
        return property;
      }),
    id,
  );
}

/** Refused (409 CONFLICT, saying what refers to it) while a document names the property: archive it instead. */
export async function deleteProperty(
  ctx: Context,
  id: string,
  precondition?: Precondition,
): Promise<{ id: string; deleted: true }> {
  return inTransaction(ctx, async (tx) => {
    const row = await getRow(tx, id, true);
    precondition?.(presentProperty(row));
    const references = await repository.countPropertyReferences(tx.db, tx.accountId, row.id);
    if (references.length > 0) {
      const list = references.map(({ label, count }) => `${count} ${label}${count === 1 ? '' : 's'}`).join(', ');
      throw conflict(
        `This property cannot be deleted while ${list} refer to it. Archive it instead (PUT {"archived": true}).`,
      );
    }
    await deleteCustomFieldValues(tx.db, tx.accountId, 'property', row.id);
    await deleteObjectTags(tx, 'property', row.id);
    await deleteAttachmentsOf(tx, 'property', row.id);
    await repository.deleteProperty(tx.db, tx.accountId, row.id);
    await recordEvent(tx, 'property.deleted', presentProperty(row));
    return { id: row.id, deleted: true as const };
  });
}

export async function listProperties(ctx: Context, query: ListPropertiesInput): Promise<Page<PropertyRow>> {
  const page = pageRequest(query, repository.PROPERTY_SORTS);
  const { postal_code: postalCode, ...filters } = query;
  const postal = postalCode === undefined ? undefined : (postalCodeKey(postalCode) ?? '');
  const custom = [
    ...(await customFieldConditions(ctx.db, ctx.accountId, 'property', 'properties', query)),
    ...(await tagConditions(ctx.db, ctx.accountId, 'property', 'properties', query)),
  ];
  const { rows, resumeAfter } = await repository.listProperties(
    ctx.db,
    ctx.accountId,
    { ...filters, postal_code_key: postal, custom },
    page,
  );
  return toPage(rows, page, resumeAfter);
}

/**
 * Deletes every property of a client being deleted (docs/api-contract.md §16: a client with properties and
 * nothing else takes them with it), each with its `property.deleted` event, in the caller's transaction.
 * The caller has checked that no document refers to the client; a document names a property only with its
 * own client, so none refers to these properties either.
 */
export async function deletePropertiesOfClient(tx: Context, clientId: string): Promise<void> {
  for (const row of await repository.findPropertiesOfClient(tx.db, tx.accountId, clientId)) {
    await deleteCustomFieldValues(tx.db, tx.accountId, 'property', row.id);
    await deleteObjectTags(tx, 'property', row.id);
    await deleteAttachmentsOf(tx, 'property', row.id);
    await repository.deleteProperty(tx.db, tx.accountId, row.id);
    await recordEvent(tx, 'property.deleted', presentProperty(row));
  }
}

/**
 * The property a document's `property_id` names, locked until the transaction ends: 422 on `field` when the
 * account has none with that id (the same answer for another account's, which is never revealed), when it
 * belongs to another client than the document's, or, unless the document already has it, when archived.
 */
export async function requirePropertyReference(
  tx: Context,
  propertyId: string,
  clientId: string,
  options: { kept?: string | null; field?: string } = {},
): Promise<PropertyRow> {
  const field = options.field ?? 'property_id';
  const row = await requireReference(field, 'property', propertyId, (id) =>
    repository.findProperty(tx.db, tx.accountId, id, true),
  );
  if (row.client_id !== clientId) throw fieldError(field, "belongs to another client than the document's client_id");
  if (Number(row.archived) === 1 && row.id !== options.kept)
    throw fieldError(field, 'is archived: an archived property takes no new documents (unarchive it first)');
  return row;
}

/**
 * The property of a new document: the one the body names (null: none), else the one of the document it is
 * made from (`inherited`), checked as requirePropertyReference says.
 */
export async function propertyForNewDocument(
  tx: Context,
  clientId: string,
  given: string | null | undefined,
  inherited: string | null | undefined,
): Promise<string | null> {
  const propertyId = given !== undefined ? given : (inherited ?? null);
  if (propertyId === null) return null;
  await requirePropertyReference(tx, propertyId, clientId);
  return propertyId;
}

/**
 * The property_id column of a document's update, or undefined when it stays. A new client needs a property
 * of its own: a document whose client changes while it keeps the old client's property is refused (422 on
 * property_id), so a PUT that moves a document to another client names its new property_id (or null).
 */
export async function propertyOnUpdate(
  tx: Context,
  current: { client_id: string; property_id: string | null },
  input: { client_id?: string | undefined; property_id?: string | null | undefined },
): Promise<{ property_id?: string | null }> {
  const clientId = input.client_id ?? current.client_id;
  if (input.property_id !== undefined) {
    if (input.property_id !== null)
      await requirePropertyReference(tx, input.property_id, clientId, { kept: current.property_id });
    return { property_id: input.property_id };
  }
  if (clientId !== current.client_id && current.property_id !== null)
    throw fieldError(
      'property_id',
      "belongs to the document's previous client: send property_id (one of the new client's properties, or null) with client_id",
    );
  return {};
}

/** The service address a document prints (name and address only: never the access notes), or null. */
export async function serviceAddressOf(
  db: Executor,
  accountId: string,
  propertyId: string | null | undefined,
): Promise<{ name: string | null; address: Address } | null> {
  if (propertyId === null || propertyId === undefined) return null;
  const row = await repository.findProperty(db, accountId, propertyId);
  if (!row) return null;
  return { name: row.name, address: presentAddress(row.address) as Address };
}

/** A property's default tax rates (docs/api-contract.md §19), the third of a line's tax sources; [] for none. */
export async function propertyDefaultTaxRateIds(
  db: Executor,
  accountId: string,
  propertyId: string | null,
): Promise<string[]> {
  if (propertyId === null) return [];
  const row = await repository.findProperty(db, accountId, propertyId);
  return row ? fromJson<string[]>(row.default_tax_rate_ids ?? '[]') : [];
}
