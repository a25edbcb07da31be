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

interface DocumentColumns {
  id: string;
  account_id: string;
  client_id: string;
  status: string;
  metadata: string;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** Money columns of quotes, jobs and invoices. Amounts are integer minor units. */
interface PricedColumns {
  currency: string;
  line_items: string;
  subtotal_amount: number;
  tax_amount: number;
  total_amount: number;
  number: string | null;
  number_seq: number | null;
}

export interface AccountCountersTable {
  account_id: string;
  name: string;
  value: number;
}

export interface ServiceRequestsTable extends DocumentColumns {
  title: string;
  description: string | null;
  source: string;
  preferred_date: string | null;
  converted_at: Timestamp | null;
}

export interface QuotesTable extends DocumentColumns, PricedColumns {
  request_id: string | null;
  title: string | null;
  notes: string | null;
  valid_until: string | null;
  sent_at: Timestamp | null;
  approved_at: Timestamp | null;
  declined_at: Timestamp | null;
  converted_at: Timestamp | null;
}

export interface JobsTable extends DocumentColumns, PricedColumns {
  quote_id: string | null;
  request_id: string | null;
  title: string;
  description: string | null;
  scheduled_start: Timestamp | null;
  scheduled_end: Timestamp | null;
  completed_at: Timestamp | null;
}

export interface InvoicesTable extends DocumentColumns, PricedColumns {
  job_id: string | null;
  quote_id: string | null;
  amount_paid: number;
  notes: string | null;
  issue_date: string | null;
  due_date: string | null;
  sent_at: Timestamp | null;
  paid_at: Timestamp | null;
  voided_at: Timestamp | null;
}

export interface OutboxMessagesTable {
  id: string;
  account_id: string;
  document_type: string;
  document_id: string;
  recipient: string;
  message_id: string;
  snapshot: string;
  status: string;
  attempts: number;
  next_attempt_at: Timestamp;
  locked_by: string | null;
  locked_until: Timestamp | null;
  last_error: string | null;
  delivered_at: Timestamp | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface IdempotencyKeysTable {
  api_key_id: string;
  key: string;
  request_hash: string;
  status: string;
  response_status: number | null;
  response_body: string | null;
  response_location: string | null;
  locked_until: Timestamp;
  expires_at: Timestamp;
  created_at: Timestamp;
}

export interface Tables {
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
  clients: ClientsTable;
  account_counters: AccountCountersTable;
  service_requests: ServiceRequestsTable;
  quotes: QuotesTable;
  jobs: JobsTable;
  invoices: InvoicesTable;
  outbox_messages: OutboxMessagesTable;
  idempotency_keys: IdempotencyKeysTable;
}

export type AccountRow = Selectable<AccountsTable>;
export type ApiKeyRow = Selectable<ApiKeysTable>;
export type NewApiKeyRow = Insertable<ApiKeysTable>;
export type ClientRow = Selectable<ClientsTable>;
export type ClientPatch = Updateable<ClientsTable>;
export type ServiceRequestRow = Selectable<ServiceRequestsTable>;
export type QuoteRow = Selectable<QuotesTable>;
export type JobRow = Selectable<JobsTable>;
export type InvoiceRow = Selectable<InvoicesTable>;
export type OutboxMessageRow = Selectable<OutboxMessagesTable>;
