// Query parameters shared by the document lists: a client id, a comma-separated status list.
import { Type } from '@sinclair/typebox';
import { fieldError } from '../../core/errors.js';

/** `status=sent,paid`: each name must be a status of the resource. */
export function parseStatusFilter<S extends string>(text: string | undefined, statuses: readonly S[]): S[] | undefined {
  if (text === undefined) return undefined;
  const names = text.split(',').map((name) => name.trim());
  const unknown = names.filter((name) => !(statuses as readonly string[]).includes(name));
  if (unknown.length > 0 || names.length === 0)
    throw fieldError('status', `must be a comma-separated list of: ${statuses.join(', ')}`);
  return names as S[];
}

/** A query parameter naming another object by id (a UUID). */
export function idFilter(description: string) {
  return Type.Optional(Type.String({ format: 'uuid', description, example: '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f01' }));
}

export function statusFilter(statuses: readonly string[]) {
  return Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 200,
      description: `Comma-separated statuses: ${statuses.join(', ')}.`,
      example: statuses.slice(0, 2).join(','),
      'x-comma-list': { type: 'string', enum: statuses },
    }),
  );
}
