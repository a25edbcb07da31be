// Row types of every table, as Kysely sees them. Timestamps are ISO 8601 strings in SQLite;
// JSON columns (metadata, address, scopes) hold serialized JSON text.
import type { Insertable, Selectable, Updateable } from 'kysely';

/** A stored timestamp: ISO text in SQLite, a Date from drivers that parse timestamptz. */
export type Timestamp = string | Date;

export interface AccountsTable {
  id: string;
  name: string;
  currency: string;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface ApiKeysTable {
  id: string;
  account_id: string;
  name: string;
  prefix: string;
  key_hash: string;
  scopes: string;
  expires_at: Timestamp | null;
  revoked_at: Timestamp | null;
  last_used_at: Timestamp | null;
  rate_limit_per_minute: number | null;
  rate_limit_per_day: number | null;
  rate_limit_burst: number | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface ClientsTable {
  id: string;
  account_id: string;
  name: string;
  email: string | null;
  phone: string | null;
  company_name: string | null;
  address: string | null;
  notes: string | null;
  metadata: string;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface Tables {
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
  clients: ClientsTable;
}

export type AccountRow = Selectable<AccountsTable>;
export type ApiKeyRow = Selectable<ApiKeysTable>;
export type NewApiKeyRow = Insertable<ApiKeysTable>;
export type ClientRow = Selectable<ClientsTable>;
export type NewClientRow = Insertable<ClientsTable>;
export type ClientPatch = Updateable<ClientsTable>;
