// Filters shared by the lists: the date bounds every list takes, and client and status for documents.
import { Type } from '@sinclair/typebox';
import type { AnySelect } from '../../db/account-table.js';
import { normalizeInstant } from '../../db/values.js';
import { fieldError } from '../../http/errors.js';

export interface CommonFilters {
  created_after?: string | undefined;
  created_before?: string | undefined;
  updated_after?: string | undefined;
}

export interface DocumentFilters extends CommonFilters {
  client_id?: string | undefined;
  status?: string | undefined;
}

export function applyCommonFilters(query: AnySelect, filters: CommonFilters): AnySelect {
  let result = query;
  if (filters.created_after !== undefined) result = result.where('created_at', '>=', normalizeInstant(filters.created_after));
  if (filters.created_before !== undefined) result = result.where('created_at', '<', normalizeInstant(filters.created_before));
  if (filters.updated_after !== undefined) result = result.where('updated_at', '>=', normalizeInstant(filters.updated_after));
  return result;
}

/** `status=sent,paid`: each name must be a status of the resource. */
export function parseStatusFilter<S extends string>(text: string | undefined, statuses: readonly S[]): S[] | undefined {
  if (text === undefined) return undefined;
  const names = text.split(',').map((name) => name.trim());
  const unknown = names.filter((name) => !(statuses as readonly string[]).includes(name));
  if (unknown.length > 0 || names.length === 0) throw fieldError('status', `must be a comma-separated list of: ${statuses.join(', ')}`);
  return names as S[];
}

export function applyDocumentFilters(query: AnySelect, filters: DocumentFilters, statuses: readonly string[]): AnySelect {
  let result = applyCommonFilters(query, filters);
  if (filters.client_id !== undefined) result = result.where('client_id', '=', filters.client_id);
  const wanted = parseStatusFilter(filters.status, statuses);
  if (wanted) result = result.where('status', 'in', wanted);
  return result;
}

/** A query parameter naming another object by id (a UUID). */
export function idFilter(description: string) {
  return Type.Optional(Type.String({ format: 'uuid', description, example: '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f01' }));
}

export function statusFilter(statuses: readonly string[]) {
  return Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: `Comma-separated statuses: ${statuses.join(', ')}.`, example: statuses.slice(0, 2).join(',') }));
}
