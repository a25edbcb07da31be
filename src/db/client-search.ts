// The text a client search (`q`) reads, as SQL expressions. Both the client_search migration (the PostgreSQL
// trigram index's expression, the SQLite FTS5 table's body and its triggers) and clients.repository.ts (the
// LIKE that must match the very expression the index was built on, or PostgreSQL will not use the index)
// need the same text, so it lives here rather than in the migration, which application code must not
// import at run time. An applied migration is not run again: changing either constant changes what the
// repository queries but not the index already built, so a change here needs a new migration too, which also
// makes PostgreSQL's bms_search_rows_statement anew (migration 20261201150000: it reads each word by the
// expression as it was then).

/** SQLite: name, e-mail, phone and company of the row alias `row`, one per line (a query cannot span two). */
export const SQLITE_BODY = (row: string) =>
  `${row}.name || char(10) || coalesce(${row}.email, '') || char(10) || coalesce(${row}.phone, '') || char(10) || coalesce(${row}.company_name, '')`;

/** PostgreSQL: the same four fields, one per line, in lower case (the expression of clients_search_trgm_idx). */
export const POSTGRES_SEARCH_TEXT = `lower(name || E'\\n' || coalesce(email, '') || E'\\n' || coalesce(phone, '') || E'\\n' || coalesce(company_name, ''))`;

/**
 * SQLite: the search rows of the clients queued in `client_search_pending` (migration 20261128080000), made
 * by the group commit's batch work just before COMMIT (clients.repository.ts registers it). CROSS JOIN keeps
 * the queue driving: left to itself the planner scanned every search key to join a few queued rows.
 */
export const SQLITE_INDEX_QUEUED = `insert into clients_fts (rowid, body) select q.search_id, ${SQLITE_BODY('c')} from client_search_pending q cross join client_search_keys k cross join clients c where k.search_id = q.search_id and c.id = k.client_id`;

/** SQLite: the queue emptied, after SQLITE_INDEX_QUEUED. */
export const SQLITE_CLEAR_QUEUED = 'delete from client_search_pending';
