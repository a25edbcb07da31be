// Looking up the object a request names. The :id of a path that matches nothing is 404 NOT_FOUND; an id
// in a body (client_id, quote_id, job_id, request_id) that matches nothing in the caller's account is a
// 422 on that field, as the contract says. A malformed id is looked up nowhere: it matches nothing.
import { fieldError, notFound } from '../../core/errors.js';
import { isUuid } from '../../core/deps.js';

type Finder<Row> = (id: string) => Row | undefined | Promise<Row | undefined>;

/** The addressed object, or 404 NOT_FOUND naming its kind. */
export async function requireRow<Row>(kind: string, id: string, find: Finder<Row>): Promise<Row> {
  const row = isUuid(id) ? await find(id) : undefined;
  if (!row) throw notFound(kind, id);
  return row;
}

/** The object a body field refers to, or 422 VALIDATION_ERROR on that field. */
export async function requireReference<Row>(field: string, kind: string, id: string, find: Finder<Row>): Promise<Row> {
  const row = isUuid(id) ? await find(id) : undefined;
  if (!row) throw fieldError(field, `no ${kind} with id '${id}' exists in this account`);
  return row;
}
