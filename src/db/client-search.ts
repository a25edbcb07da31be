// The text a client search (`q`) reads, as SQL expressions. Both the client_search migration (the PostgreSQL
// trigram index's expression, the SQLite FTS5 table's body and its triggers) and clients.repository.ts (the
// LIKE that must match the very expression the index was built on, or PostgreSQL will not use the index)
// need the same text, so it lives here rather than in the migration, which application code must not
// import at run time. An applied migration is not run again: changing either constant changes what the
// repository queries but not the index already built, so a change here needs a new migration too.

/** SQLite: name, e-mail, phone and company of the row alias `row`, one per line (a query cannot span two). */
export const SQLITE_BODY = (row: string) =>
  `${row}.name || char(10) || coalesce(${row}.email, '') || char(10) || coalesce(${row}.phone, '') || char(10) || coalesce(${row}.company_name, '')`;

/** PostgreSQL: the same four fields, one per line, in lower case (the expression of clients_search_trgm_idx). */
export const POSTGRES_SEARCH_TEXT = `lower(name || E'\\n' || coalesce(email, '') || E'\\n' || coalesce(phone, '') || E'\\n' || coalesce(company_name, ''))`;
