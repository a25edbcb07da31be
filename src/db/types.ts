// Row types of every table, as both engines return them: db/sqlite/sqlite.ts stores these forms as text, and
// db/postgres/postgres.ts parses its own column types back into the very same forms.
import type { Generated, Insertable, Selectable, Updateable } from 'kysely';

/** An instant as ISO 8601 UTC text with milliseconds: `2026-11-21T10:04:05.123Z` (timestamptz on PostgreSQL). */
export type Timestamp = string;
/** A calendar date as `YYYY-MM-DD` text (date on PostgreSQL). */
export type DateText = string;
/** A JSON value as its text, parsed with `fromJson` (jsonb on PostgreSQL). */
export type JsonText = string;

export interface AccountsTable {
  id: string;
  name: string;
  legal_name: string | null;
  email: string | null;
  phone: string | null;
  website: string | null;
  address: JsonText | null;
  tax_id: string | null;
  currency: string;
  payment_terms_days: number;
  payment_instructions: string | null;
  invoice_footer: string | null;
  quote_footer: string | null;
  /** An IANA time-zone name in its primary form (docs/api-contract.md §14); `UTC` unless set. */
  timezone: string;
  /** A BCP 47 tag in canonical form: how documents print dates and amounts; `en-US` unless set. */
  locale: string;
  /** `letter` or `a4`; null: the country's (accounts/locale.ts). */
  paper_size: string | null;
  /** At most this many webhook endpoints; null: the default (docs/api-contract.md §21). */
  max_webhook_endpoints: number | null;
  /** At most this many recurring invoices not ended; null: the default (docs/api-contract.md §32). */
  max_recurring_invoices: number | null;
  /** docs/api-contract.md §29: billed hours round to this many minutes (3, 6, 12, 15, 30 or 60). */
  time_billing_increment_minutes: Generated<number>;
  /** The last local date of the locked pay periods (§29); null: nothing locked. */
  time_locked_through: DateText | null;
  /** When time_locked_through last moved. */
  time_lock_updated_at: Timestamp | null;
  /** Raised by the database on every change of the account's webhook endpoints (events/subscriber-cache.ts). */
  webhook_endpoints_version: Generated<number>;
  /** docs/api-contract.md §19: the last of a line's tax sources, a JSON array of tax rate ids. */
  default_tax_rate_ids: JsonText;
  prices_include_tax: number;
  rounding: string;
  /** docs/api-contract.md §28: a JSON array of {day, start, end}; [] until set. */
  working_hours: Generated<JsonText>;
  /** docs/api-contract.md §28: the booking settings as set (JSON), null for every default. */
  booking: JsonText | null;
  /** docs/api-contract.md §23: the reminder schedule as set (JSON), null: off, no steps. */
  reminders: JsonText | null;
  /** docs/api-contract.md §31: the seller's e-invoicing identity (JSON, modules/einvoices/parties.ts); null: none set. */
  einvoicing?: JsonText | null;
  /** docs/api-contract.md §30: the bytes of the account's attachments, each at its own size. */
  attachment_bytes: Generated<number>;
  /** At most this many attachment bytes; null: the default, 5 GiB (docs/api-contract.md §30). */
  max_attachment_bytes: Generated<number | null>;
  /** docs/api-contract.md §30: how a hub approval is signed, `typed` (the default) or `drawn`. */
  quote_signature: Generated<string>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** docs/api-contract.md §30: a file on a parent object; its bytes are the store's `<account id>/<sha256>`. */
export interface AttachmentsTable {
  id: string;
  account_id: string;
  parent_type: string;
  parent_id: string;
  kind: string;
  filename: string;
  content_type: string;
  size_bytes: number;
  sha256: string;
  visible_on_hub: number;
  caption: string | null;
  location_removed: number;
  /** The actor that uploaded it, as JSON. */
  created_by: JsonText;
  metadata: JsonText;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** Files queued for removal by an attachment's delete, removed by the sweeper once no row names them. */
export interface AttachmentRemovalsTable {
  account_id: string;
  sha256: string;
  queued_at: Timestamp;
}

export interface ApiKeysTable {
  id: string;
  account_id: string;
  name: string;
  prefix: string;
  key_hash: string;
  scopes: JsonText;
  expires_at: Timestamp | null;
  revoked_at: Timestamp | null;
  last_used_at: Timestamp | null;
  rate_limit_per_minute: number | null;
  rate_limit_per_day: number | null;
  rate_limit_burst: number | null;
  /** After a roll: the hash of the secret before it, which works until `previous_key_expires_at`. */
  previous_key_hash: string | null;
  previous_key_expires_at: Timestamp | null;
  /** A JSON array of CIDR blocks; empty when any address may use the key. */
  allowed_cidrs: JsonText;
  created_by_type: string;
  created_by_id: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface ClientsTable {
  id: string;
  account_id: string;
  name: string;
  /** The name in lower case (JavaScript's folding): what `sort=name` orders by. */
  sort_name: string;
  email: string | null;
  phone: string | null;
  company_name: string | null;
  address: JsonText | null;
  notes: string | null;
  /** The integrator's own id: unique per account among clients (docs/api-contract.md §14). */
  external_id: string | null;
  metadata: JsonText;
  /** The values of its custom fields by key (docs/api-contract.md §27), the answer's copy: modules/custom-fields. */
  custom_fields: Generated<JsonText>;
  /** docs/api-contract.md §31: the buyer's e-invoicing identity (JSON, modules/einvoices/parties.ts); null: none set. */
  einvoicing?: JsonText | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** A place where a client has work done (docs/api-contract.md §16). */
export interface PropertiesTable {
  id: string;
  account_id: string;
  client_id: string;
  name: string | null;
  address: JsonText;
  /** The postal code folded for the `postal_code` filter: upper case, without spaces or hyphens. */
  postal_code_key: string | null;
  /** Name and address in lower case, one field per line: what `q` searches (a trigram index). */
  search_text: string;
  timezone: string;
  /** `{lat, lng}` in decimal degrees, or null. */
  location: JsonText | null;
  access_notes: string | null;
  /** A JSON array of tax rate ids (docs/api-contract.md §19): a line's taxes after its own and its product's. */
  default_tax_rate_ids: JsonText;
  /** 0 or 1 (an integer on both engines, so the filter's index is the same). */
  archived: number;
  external_id: string | null;
  metadata: JsonText;
  created_at: Timestamp;
  updated_at: Timestamp;
  /** Its custom field values by key (docs/api-contract.md §27), the answer's copy: modules/custom-fields. */
  custom_fields: Generated<JsonText>;
}

interface DocumentColumns {
  id: string;
  account_id: string;
  client_id: string;
  /** The property the work is at (docs/api-contract.md §16); one of the client's. */
  property_id: string | null;
  status: string;
  metadata: JsonText;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** Money columns of quotes, jobs and invoices. Amounts are integer minor units. */
interface PricedColumns {
  /** The integrator's own id: unique per account and kind (docs/api-contract.md §14). */
  external_id: string | null;
  currency: string;
  line_items: JsonText;
  subtotal_amount: number;
  tax_amount: number;
  total_amount: number;
  number: string | null;
  number_seq: number | null;
  /** docs/api-contract.md §19: 0 or 1. */
  prices_include_tax: number;
  rounding: string;
  /** `{type, value}` or null. */
  discount: JsonText | null;
  discount_amount: number;
  /** The rows of the breakdown; null on documents written before §19 (answered from their lines). */
  tax_breakdown: JsonText | null;
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
  preferred_date: DateText | null;
  converted_at: Timestamp | null;
  /** Its custom field values by key (docs/api-contract.md §27), the answer's copy: modules/custom-fields. */
  custom_fields: Generated<JsonText>;
}

/** The last send of a quote or invoice: its outbox row and that row's status (null before any send). */
interface DeliveredColumns {
  delivery_id: string | null;
  delivery_status: string | null;
  /** The client hub's secret token and page (docs/api-contract.md §12); set on first send. */
  hosted_token: string | null;
  hosted_url: string | null;
  /**
   * Whom the hosted link was sent to, `<client id> <e-mail>` (issue 34.11): a send to another client or address
   * replaces the link; null for a link not yet sent (or sent before this was kept).
   */
  hosted_recipient: string | null;
}

/** docs/api-contract.md §31: a sent invoice's (or issued credit note's) frozen e-invoice file (`ubl` or `cii`). */
export interface EinvoiceFilesTable {
  document_id: string;
  format: string;
  /** `invoice` or `credit_note`. */
  document_type: string;
  account_id: string;
  /** Hex SHA-256 of `content`. */
  sha256: string;
  content: Buffer;
  created_at: Timestamp;
}

export interface AccountLogosTable {
  account_id: string;
  content_type: string;
  data: Buffer;
  sha256: string;
  created_at: Timestamp;
}

export interface QuotesTable extends DocumentColumns, PricedColumns, DeliveredColumns {
  request_id: string | null;
  /** The deposit asked (contract §23): `amount` or `percent`, null for none. */
  deposit_type: string | null;
  /** Minor units for an amount; ten-thousandths of a percent for a percent (12.5 % → 125000). */
  deposit_value: number | null;
  /** Its deposit payments less their refunds: kept by the payments in their transaction, with this row locked. */
  deposit_paid_amount: number;
  title: string | null;
  notes: string | null;
  valid_until: DateText | null;
  sent_at: Timestamp | null;
  approved_at: Timestamp | null;
  /** The name the client typed when approving on the hub. */
  approved_by: string | null;
  declined_at: Timestamp | null;
  decline_reason: string | null;
  converted_at: Timestamp | null;
  /** Its custom field values by key (docs/api-contract.md §27), the answer's copy: modules/custom-fields. */
  custom_fields: Generated<JsonText>;
  /** docs/api-contract.md §30: the latest hub signature as answered (JSON), null before any. */
  signature: Generated<JsonText | null>;
}

/** docs/api-contract.md §30: a hub approval's signature, bound to the SHA-256 of the quote's signed content. */
export interface QuoteSignaturesTable {
  id: string;
  account_id: string;
  quote_id: string;
  signer_name: string;
  signed_at: Timestamp;
  ip_address: string | null;
  user_agent: string | null;
  image_attachment_id: string | null;
  document_sha256: string;
  /** The signed content's RFC 8785 canonical JSON: the bytes the hash binds. */
  document: string;
  invalidated_at: Timestamp | null;
  invalidated_reason: string | null;
  created_at: Timestamp;
}

export interface JobsTable extends DocumentColumns, PricedColumns {
  quote_id: string | null;
  request_id: string | null;
  title: string;
  description: string | null;
  scheduled_start: Timestamp | null;
  scheduled_end: Timestamp | null;
  completed_at: Timestamp | null;
  /** The summary of its visits (docs/api-contract.md §17), kept by the visits service. */
  visits_total: number;
  visits_open: number;
  visits_completed: number;
  visits_next_start_at: Timestamp | null;
  /** Its custom field values by key (docs/api-contract.md §27), the answer's copy: modules/custom-fields. */
  custom_fields: Generated<JsonText>;
}

export interface InvoicesTable extends DocumentColumns, PricedColumns, DeliveredColumns {
  job_id: string | null;
  quote_id: string | null;
  amount_paid: number;
  /** What credit notes applied to it hold (docs/api-contract.md §22). */
  amount_credited: number;
  notes: string | null;
  issue_date: DateText | null;
  due_date: DateText | null;
  /** docs/api-contract.md §31: BT-10, BT-13, BT-72 and BG-14 (`{start_date, end_date}` JSON). */
  buyer_reference?: string | null;
  purchase_order?: string | null;
  delivery_date?: DateText | null;
  service_period?: JsonText | null;
  /** docs/api-contract.md §31: the frozen e-invoice's hashes and artefacts (JSON); null while not frozen. */
  einvoice?: JsonText | null;
  sent_at: Timestamp | null;
  paid_at: Timestamp | null;
  voided_at: Timestamp | null;
  /** The template that made it and the date it stands for (docs/api-contract.md §23); null for others. */
  recurring_invoice_id: string | null;
  occurrence_date: DateText | null;
  /** docs/api-contract.md §32: the invoice whose reminder step's late fee this invoice bills; null for others. */
  late_fee_for_invoice_id?: string | null;
  /** docs/api-contract.md §23: 1 when payment reminders go out for it (the default), 0 when not. */
  reminders_enabled: Generated<number>;
  /** Its custom field values by key (docs/api-contract.md §27), the answer's copy: modules/custom-fields. */
  custom_fields: Generated<JsonText>;
}

/** docs/api-contract.md §23: a reminder step sent for an invoice, unique per (invoice, step). */
export interface InvoiceRemindersTable {
  id: string;
  account_id: string;
  invoice_id: string;
  step: number;
  sent_at: Timestamp;
  delivery_id: string;
  /** The late fee the step added, in minor units; null: none. */
  late_fee_amount: number | null;
  /** The invoice of its own that billed the fee (docs/api-contract.md §32, e-invoicing on); null: none. */
  late_fee_invoice_id?: string | null;
  created_at: Timestamp;
}

/** docs/api-contract.md §23: a template that makes an invoice on each date of its rule. */
export interface RecurringInvoicesTable {
  id: string;
  account_id: string;
  external_id: string | null;
  client_id: string;
  property_id: string | null;
  job_id: string | null;
  name: string | null;
  /** The invoice it makes: line_items, currency, notes, discount, prices_include_tax, rounding, … (JSON). */
  invoice: JsonText;
  /** The rule in recurrence.ts's normal form, exdates in it (JSON). */
  recurrence: JsonText;
  send_time: string;
  auto_send: number;
  catch_up_days: number;
  status: string;
  paused_from: DateText | null;
  paused_until: DateText | null;
  /** Run moments before it do not count: its creation, or its last resume. */
  counts_from: Timestamp;
  next_run_at: Timestamp | null;
  occurrences_made: number;
  last_invoice_id: string | null;
  /** `{occurrence_date, message}` (JSON) or null. */
  last_error: JsonText | null;
  ended_at: Timestamp | null;
  metadata: JsonText;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface OutboxMessagesTable {
  id: string;
  account_id: string;
  document_type: string;
  document_id: string;
  recipient: string;
  message_id: string;
  snapshot: JsonText;
  status: string;
  attempts: number;
  next_attempt_at: Timestamp;
  locked_by: string | null;
  locked_until: Timestamp | null;
  last_error: string | null;
  delivered_at: Timestamp | null;
  /** `reminder` for a payment reminder (docs/api-contract.md §23); null: a document's send. */
  kind: Generated<string | null>;
  /** The reminder's step (from 1); null for a document's send. */
  reminder_step: Generated<number | null>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface PaymentsTable {
  id: string;
  account_id: string;
  /** The invoice paid; null for a deposit (contract §23), which names its quote instead: exactly one is set. */
  invoice_id: string | null;
  /** The quote a deposit is paid on; null for a payment on an invoice. */
  quote_id: string | null;
  client_id: string;
  /** Minor units, > 0, never changed after creation. */
  amount: number;
  /** The sum of the payment's refunds, in minor units. */
  amount_refunded: number;
  /** What its live applications hold (docs/api-contract.md §22); the rest, less refunds, is the client's credit. */
  amount_applied: number;
  /** `reject` (above amount_due is 422) or `credit` (the excess stays unapplied). */
  overpayment: string;
  currency: string;
  method: string;
  reference: string | null;
  paid_at: Timestamp;
  notes: string | null;
  metadata: JsonText;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface PaymentRefundsTable {
  id: string;
  account_id: string;
  payment_id: string;
  amount: number;
  reason: string | null;
  created_at: Timestamp;
}

/** A credit note (docs/api-contract.md §22): what it applies is its live applications; refunds are rows. */
export interface CreditNotesTable extends DocumentColumns, PricedColumns, DeliveredColumns {
  invoice_id: string | null;
  reason: string | null;
  /** The amount it was made from, or null when made of lines. */
  amount: number | null;
  tax_rate_ids: JsonText | null;
  issue_date: DateText | null;
  /** 0 or 1. */
  apply_on_issue: number;
  amount_refunded: number;
  notes: string | null;
  issued_at: Timestamp | null;
  voided_at: Timestamp | null;
}

export interface CreditNoteRefundsTable {
  id: string;
  account_id: string;
  credit_note_id: string;
  amount: number;
  method: string;
  reference: string | null;
  reason: string | null;
  refunded_at: Timestamp;
  created_at: Timestamp;
}

/** Money of a payment or credit note held by an invoice (docs/api-contract.md §22). */
export interface ApplicationsTable {
  id: string;
  account_id: string;
  client_id: string;
  currency: string;
  source_type: string;
  payment_id: string | null;
  credit_note_id: string | null;
  invoice_id: string;
  /** What it holds now: a refund may take part of it back; 0 once released. */
  amount: number;
  applied_on: DateText;
  released_at: Timestamp | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** One append-only line of the ledger (docs/api-contract.md §22). */
export interface LedgerEntriesTable {
  id: string;
  account_id: string;
  sequence: number;
  client_id: string;
  currency: string;
  type: string;
  effective_date: DateText;
  amount: number;
  applied_amount: number;
  balance_amount: number;
  invoice_id: string | null;
  credit_note_id: string | null;
  payment_id: string | null;
  refund_id: string | null;
  application_id: string | null;
  due_date: DateText | null;
  net_amount: number | null;
  tax_amount: number | null;
  cost_amount: number | null;
  /** Internal: the change of the document's product lines without a cost (job profitability, §24). */
  lines_without_cost: number | null;
  taxes: JsonText | null;
  actor: JsonText;
  created_at: Timestamp;
}

/**
 * The ledger's day totals (a kept copy, docs/architecture.md): per account, currency, local day and rate key
 * ('' for the day's document totals), the sums of its document entries, and the last sequence summed in.
 */
export interface LedgerDayTotalsTable {
  account_id: string;
  currency: string;
  effective_date: DateText;
  rate_key: string;
  tax_rate_id: string | null;
  name: string | null;
  /** The rate as its entries' `taxes` give it (`9.975`), as text. */
  percentage: string | null;
  entry_count: number;
  net_amount: number;
  no_tax_amount: number;
  taxable_amount: number;
  tax_amount: number;
  invoices_tax_amount: number;
  credit_notes_tax_amount: number;
  last_sequence: number;
}

/** The ledger's cash day totals (modules/ledger/ledger.cash-totals.ts): the cash basis's moves by day and rate. */
export interface LedgerCashDayTotalsTable extends LedgerDayTotalsTable {
  /** Money received and not applied to an invoice (deposits, overpayments), less what was applied of it. */
  unapplied_amount: number;
}

/** The ledger's invoice figures (modules/ledger/ledger.invoice-figures.ts): what job profitability sums. */
export interface LedgerInvoiceFiguresTable {
  account_id: string;
  invoice_id: string;
  job_id: string | null;
  client_id: string;
  currency: string;
  issue_date: DateText;
  /** 1 once void. */
  voided: number;
  net_amount: number;
  credited_amount: number;
  cost_amount: number;
  lines_without_cost: number;
  entry_count: number;
  last_sequence: number;
}

/** The ledger's entry days (modules/ledger/ledger.entry-days.ts): the last sequence of an entry dated each day. */
export interface LedgerEntryDaysTable {
  account_id: string;
  effective_date: DateText;
  last_sequence: number;
}

/** The ledger's open items (modules/ledger/ledger.open-items.ts): the span of days an item's amount is not 0. */
export interface LedgerOpenItemsTable {
  account_id: string;
  /** invoice | payment | credit_note */
  kind: string;
  item_id: string;
  client_id: string;
  currency: string;
  opened_on: DateText;
  /** The day from which the amount stays 0; 9999-12-31 while it is not 0. */
  closed_on: DateText;
  /** 0–11: closed_on − opened_on ≤ 4^class days; 99: still open. */
  span_class: number;
  /** The day of its latest entry (a 0 change too). */
  last_entry_on: DateText;
  /** An invoice's due date as its latest entry naming one gives it (null for a payment or credit note). */
  due_date: DateText | null;
  amount: number;
  last_sequence: number;
  /**
   * Its amount over its entries dated by `opened_on`, which it keeps until `opening_until` (the first later day an
   * entry of it is dated; 9999-12-31 when none), with an invoice's due date as those entries give it. Null when not
   * kept (a row from before they were, an item whose entries name other clients or currencies).
   */
  opening_amount: number | null;
  opening_until: DateText | null;
  opening_due_date: DateText | null;
}

export interface EventsTable {
  id: string;
  account_id: string;
  type: string;
  /** The id of the object the event is about. */
  resource_id: string;
  /** `{object, previous_attributes?, source?}`. */
  data: JsonText;
  /** Who caused it: api_key | mcp | hub | system (docs/api-contract.md §20), and the key's id. */
  actor_type: string;
  actor_id: string | null;
  /** The change set or import the change was part of (docs/api-contract.md §26), else both null. */
  origin_type: string | null;
  origin_id: string | null;
  /** The app whose token acted (docs/api-contract.md §25); null otherwise. */
  actor_app_id: string | null;
  created_at: Timestamp;
}

/** The change feed's rows (docs/api-contract.md §26): an object's latest change, positioned once committed. */
export interface ChangesTable {
  account_id: string;
  /** The object's kind as events name it: client, invoice, visit_schedule, … */
  kind: string;
  object_id: string;
  /** Its place in commit order; null while pending (written, not yet given one by the feed). */
  position: number | null;
  deleted: number;
  changed_at: Timestamp;
}

export interface ChangePositionsTable {
  account_id: string;
  last_position: number;
}

export interface McpCallsTable {
  id: string;
  account_id: string;
  key_id: string;
  tool: string;
  arguments_hash: string;
  call_hash: string;
  result: JsonText | null;
  expires_at: Timestamp;
  completed_at: Timestamp | null;
  created_at: Timestamp;
  /** `[{kind, id, etag}]`: the objects the call read or wrote, or its summary describes, as they were. */
  versions: JsonText | null;
  voided_at: Timestamp | null;
}

export interface WebhookEndpointsTable {
  id: string;
  account_id: string;
  url: string;
  description: string | null;
  enabled_events: JsonText;
  status: string;
  disabled_reason: string | null;
  secret: string;
  /** The secret before the last rotation, which keeps signing until previous_secret_expires_at. */
  previous_secret: string | null;
  previous_secret_expires_at: Timestamp | null;
  /** Since when every attempt has failed; null after a success. */
  failing_since: Timestamp | null;
  metadata: JsonText;
  /** An app install's endpoint (docs/api-contract.md §25): the app, and the install whose account's events it takes. */
  app_id: string | null;
  app_install_id: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface WebhookDeliveriesTable {
  id: string;
  account_id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  attempt: number;
  /** pending (the next attempt, possibly in flight), succeeded or failed. */
  status: string;
  next_attempt_at: Timestamp;
  locked_by: string | null;
  locked_until: Timestamp | null;
  response_status: number | null;
  error: string | null;
  duration_ms: number | null;
  /** The first 1 KB of the response. */
  response_body: string | null;
  /** The app whose install's endpoint this attempt is to; null for the business's own endpoints. */
  app_id: string | null;
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
  response_etag: string | null;
  locked_until: Timestamp;
  expires_at: Timestamp;
  created_at: Timestamp;
}

export interface TeamMembersTable {
  id: string;
  account_id: string;
  name: string;
  /** The name in lower case (JavaScript's folding): what `sort=name` orders by. */
  sort_name: string;
  email: string | null;
  phone: string | null;
  role: string;
  color: string | null;
  timezone: string;
  /** 1 or 0 (an integer on both engines). */
  active: number;
  /** docs/api-contract.md §28: a JSON array of {day, start, end}, or null: the account's. */
  working_hours: JsonText | null;
  /** 1 or 0: offered by availability when not named. */
  bookable: Generated<number>;
  hourly_cost_amount: number | null;
  hourly_rate_amount: number | null;
  external_id: string | null;
  metadata: JsonText;
  created_at: Timestamp;
  updated_at: Timestamp;
  /** Its custom field values by key (docs/api-contract.md §27), the answer's copy: modules/custom-fields. */
  custom_fields: Generated<JsonText>;
}

/** One scheduled occurrence of a job (docs/api-contract.md §17). */
export interface VisitsTable {
  id: string;
  account_id: string;
  job_id: string;
  /** The job's, kept in step when the job's changes. */
  client_id: string;
  property_id: string | null;
  title: string;
  instructions: string | null;
  status: string;
  /** 1 or 0. */
  all_day: number;
  /** The IANA zone of the local mirrors (and of an all-day visit's dates). */
  timezone: string;
  /** Null while unscheduled; an all-day visit's are 00:00 of its first day and 00:00 after its last, in its zone. */
  start_at: Timestamp | null;
  end_at: Timestamp | null;
  start_date: DateText | null;
  end_date: DateText | null;
  arrival_window_minutes: number | null;
  assignee_count: number;
  en_route_at: Timestamp | null;
  started_at: Timestamp | null;
  completed_at: Timestamp | null;
  canceled_at: Timestamp | null;
  cancel_reason: string | null;
  completion_notes: string | null;
  schedule_id: string | null;
  occurrence_key: string | null;
  /** 1 or 0. */
  is_exception: number;
  /** The availability hold the visit was booked from (docs/api-contract.md §28). */
  hold_id: string | null;
  external_id: string | null;
  metadata: JsonText;
  created_at: Timestamp;
  updated_at: Timestamp;
  /** Its custom field values by key (docs/api-contract.md §27), the answer's copy: modules/custom-fields. */
  custom_fields: Generated<JsonText>;
}

/** Time off or extra hours of one member (docs/api-contract.md §28). */
export interface AvailabilityExceptionsTable {
  id: string;
  account_id: string;
  team_member_id: string;
  kind: string;
  all_day: number;
  timezone: string;
  start_at: Timestamp;
  end_at: Timestamp;
  start_date: DateText | null;
  end_date: DateText | null;
  reason: string | null;
  external_id: string | null;
  metadata: JsonText;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** A time held for a crew by one key (docs/api-contract.md §28). */
export interface AvailabilityHoldsTable {
  id: string;
  account_id: string;
  api_key_id: string;
  start_at: Timestamp;
  end_at: Timestamp;
  timezone: string;
  duration_minutes: number;
  property_id: string | null;
  team_member_ids: JsonText;
  expires_at: Timestamp;
  visit_id: string | null;
  released_at: Timestamp | null;
  metadata: JsonText;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** A member of a hold while it is active: the hold as a commitment, read per member and time. */
export interface AvailabilityHoldMembersTable {
  account_id: string;
  hold_id: string;
  team_member_id: string;
  start_at: Timestamp;
  end_at: Timestamp;
  expires_at: Timestamp;
  property_id: string | null;
}

export interface TaxRatesTable {
  id: string;
  account_id: string;
  name: string;
  /** Ten-thousandths of a percent (9.975 % is 99750). */
  percentage: number;
  compound: number;
  priority: number;
  registration_number: string | null;
  /** docs/api-contract.md §31: the VAT category (UNCL 5305: S, Z, E, AE, K, G, O), and BT-120 / BT-121. */
  tax_category?: string | null;
  exemption_reason?: string | null;
  exemption_reason_code?: string | null;
  active: number;
  external_id: string | null;
  metadata: JsonText;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** A visit schedule (docs/api-contract.md §18): its rule in normal form (JSON, exdates apart), template, status. */
export interface VisitSchedulesTable {
  id: string;
  account_id: string;
  job_id: string;
  recurrence: JsonText;
  duration_minutes: number | null;
  duration_days: number | null;
  template: JsonText;
  horizon_days: number;
  status: string;
  paused_from: DateText | null;
  paused_until: DateText | null;
  materialized_through: DateText | null;
  previous_schedule_id: string | null;
  metadata: JsonText;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface ProductsTable {
  id: string;
  account_id: string;
  type: string;
  name: string;
  sort_name: string;
  description: string | null;
  code: string | null;
  unit_amount: number | null;
  currency: string;
  unit_label: string | null;
  /** Thousandths. */
  /** docs/api-contract.md §31: UN/ECE Recommendation 20/21 unit code; null: none (an e-invoice says C62). */
  unit_code?: string | null;
  default_quantity: number;
  tax_rate_ids: JsonText | null;
  taxable: number;
  cost_amount: number | null;
  duration_minutes: number | null;
  active: number;
  external_id: string | null;
  metadata: JsonText;
  created_at: Timestamp;
  updated_at: Timestamp;
  /** Its custom field values by key (docs/api-contract.md §27), the answer's copy: modules/custom-fields. */
  custom_fields: Generated<JsonText>;
}

/** A key a schedule skips (docs/api-contract.md §18 `exdates`). */
export interface VisitScheduleExdatesTable {
  account_id: string;
  schedule_id: string;
  occurrence_key: string;
  created_at: Timestamp;
}

/** A member a schedule's template names. */
export interface VisitScheduleAssigneesTable {
  account_id: string;
  schedule_id: string;
  team_member_id: string;
}

/** A member on a visit, with the visit's instants and status copied for the member's calendar. */
export interface VisitAssigneesTable {
  account_id: string;
  visit_id: string;
  team_member_id: string;
  position: number;
  start_at: Timestamp | null;
  end_at: Timestamp | null;
  status: string;
  created_at: Timestamp;
}

/** The longest visit of an account, ever (minutes): how far back a calendar window looks. */
export interface VisitSpansTable {
  account_id: string;
  longest_minutes: number;
}

/** A third-party app (docs/api-contract.md §25): its OAuth client and what it asks for. */
export interface AppsTable {
  id: string;
  account_id: string;
  name: string;
  description: string | null;
  website: string | null;
  client_type: string;
  client_secret_hash: string | null;
  /** After a roll: the secret before it, which works until `previous_secret_expires_at`. */
  previous_secret_hash: string | null;
  previous_secret_expires_at: Timestamp | null;
  redirect_uris: JsonText;
  install_url: string;
  scopes: JsonText;
  visibility: string;
  webhook_url: string | null;
  webhook_events: JsonText;
  webhook_status: string;
  webhook_secret: string;
  metadata: JsonText;
  /** The logo's SHA-256 (app_logos); null without one. */
  logo_sha256: string | null;
  /** When the operator suspended it (bms apps suspend): no install, authorization or token since. */
  suspended_at: Timestamp | null;
  deleted_at: Timestamp | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** An app's logo (docs/api-contract.md §25), as an account's (account_logos). */
export interface AppLogosTable {
  app_id: string;
  content_type: string;
  data: Buffer;
  sha256: string;
  created_at: Timestamp;
}

export interface AppInstallLinksTable {
  id: string;
  account_id: string;
  app_id: string;
  scopes: JsonText;
  token_hash: string;
  created_by_type: string;
  created_by_id: string | null;
  expires_at: Timestamp;
  opened_at: Timestamp | null;
  consent_hash: string | null;
  consent_expires_at: Timestamp | null;
  created_at: Timestamp;
}

export interface AppInstallsTable {
  id: string;
  account_id: string;
  app_id: string;
  scopes: JsonText;
  status: string;
  family_id: string;
  rate_limit_per_minute: number | null;
  rate_limit_per_day: number | null;
  rate_limit_burst: number | null;
  installed_by_type: string;
  installed_by_id: string | null;
  installed_at: Timestamp;
  last_used_at: Timestamp | null;
  uninstalled_at: Timestamp | null;
  uninstalled_reason: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** The consent page's stored request, and the code Approve issued for it. */
export interface OauthGrantsTable {
  id: string;
  link_id: string;
  account_id: string;
  app_id: string;
  redirect_uri: string;
  code_challenge: string;
  state: string | null;
  scopes: JsonText;
  resource: string | null;
  expires_at: Timestamp;
  code_hash: string | null;
  code_expires_at: Timestamp | null;
  redeemed_at: Timestamp | null;
  install_id: string | null;
  created_at: Timestamp;
}

export interface OauthTokensTable {
  id: string;
  token_hash: string;
  kind: string;
  account_id: string;
  app_id: string;
  install_id: string;
  family_id: string;
  parent_id: string | null;
  scopes: JsonText;
  expires_at: Timestamp;
  superseded_at: Timestamp | null;
  revoked_at: Timestamp | null;
  created_at: Timestamp;
}

export interface ImportsTable {
  id: string;
  account_id: string;
  /** client | property | product | invoice */
  kind: string;
  dry_run: number;
  /** `{<column>: <field path> | null}` as given; null: the default (same-named fields). */
  mapping: JsonText | null;
  /** The file's columns that map to nothing, once the file is read. */
  ignored_columns: JsonText | null;
  options: JsonText;
  status: string;
  rows: number | null;
  counts: JsonText;
  /** `{code, message}` of a failed import. */
  error: JsonText | null;
  /** The actor that made it: `{type, id, app_id?}`. */
  created_by: JsonText;
  /** The creator's scopes when it was made: what its rows are written with. */
  acting_scopes: JsonText;
  /** The CSV text, UTF-8, until the import ends. */
  file: string | null;
  /** The dry run this import applies (`POST /v1/imports/:id/apply`). */
  source_import_id: string | null;
  /** The last CSV line (the header is 1) whose batch committed. */
  progress_line: number;
  lease_until: Timestamp | null;
  started_at: Timestamp | null;
  finished_at: Timestamp | null;
  metadata: JsonText;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface ImportRowsTable {
  import_id: string;
  account_id: string;
  line: number;
  outcome: string;
  object_id: string | null;
  external_id: string | null;
  changed_fields: JsonText;
  errors: JsonText;
  /** The CSV lines of a failed row as sent (`[{<column>: <cell>}]`), for errors.csv. */
  cells: JsonText | null;
}

export interface Tables {
  imports: ImportsTable;
  import_rows: ImportRowsTable;
  changes: ChangesTable;
  change_positions: ChangePositionsTable;
  apps: AppsTable;
  app_logos: AppLogosTable;
  app_install_links: AppInstallLinksTable;
  app_installs: AppInstallsTable;
  oauth_grants: OauthGrantsTable;
  oauth_tokens: OauthTokensTable;
  accounts: AccountsTable;
  account_logos: AccountLogosTable;
  einvoice_files: EinvoiceFilesTable;
  attachments: AttachmentsTable;
  attachment_removals: AttachmentRemovalsTable;
  quote_signatures: QuoteSignaturesTable;
  api_keys: ApiKeysTable;
  mcp_calls: McpCallsTable;
  clients: ClientsTable;
  properties: PropertiesTable;
  account_counters: AccountCountersTable;
  service_requests: ServiceRequestsTable;
  quotes: QuotesTable;
  jobs: JobsTable;
  invoices: InvoicesTable;
  invoice_reminders: InvoiceRemindersTable;
  outbox_messages: OutboxMessagesTable;
  idempotency_keys: IdempotencyKeysTable;
  payments: PaymentsTable;
  payment_refunds: PaymentRefundsTable;
  applications: ApplicationsTable;
  credit_notes: CreditNotesTable;
  credit_note_refunds: CreditNoteRefundsTable;
  ledger_entries: LedgerEntriesTable;
  ledger_day_totals: LedgerDayTotalsTable;
  ledger_open_items: LedgerOpenItemsTable;
  ledger_invoice_figures: LedgerInvoiceFiguresTable;
  ledger_cash_day_totals: LedgerCashDayTotalsTable;
  ledger_entry_days: LedgerEntryDaysTable;
  events: EventsTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  team_members: TeamMembersTable;
  visits: VisitsTable;
  visit_assignees: VisitAssigneesTable;
  visit_schedules: VisitSchedulesTable;
  visit_schedule_exdates: VisitScheduleExdatesTable;
  visit_schedule_assignees: VisitScheduleAssigneesTable;
  tax_rates: TaxRatesTable;
  products: ProductsTable;
  visit_spans: VisitSpansTable;
  recurring_invoices: RecurringInvoicesTable;
  availability_exceptions: AvailabilityExceptionsTable;
  availability_holds: AvailabilityHoldsTable;
  availability_hold_members: AvailabilityHoldMembersTable;
  time_entries: TimeEntriesTable;
  custom_fields: CustomFieldsTable;
  custom_field_values: CustomFieldValuesTable;
  custom_field_stamps: CustomFieldStampsTable;
  tags: TagsTable;
  tag_links: TagLinksTable;
}

/** A tag of an account (docs/api-contract.md §27): made by its first use; its counts move with its links. */
export interface TagsTable {
  id: string;
  account_id: string;
  /** Its first spelling. */
  name: string;
  /** Lower case: unique in the account. */
  name_key: string;
  client_count: Generated<number>;
  property_count: Generated<number>;
  quote_count: Generated<number>;
  job_count: Generated<number>;
  invoice_count: Generated<number>;
  visit_count: Generated<number>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** One tag on one object (modules/tags): what the tag filters read. */
export interface TagLinksTable {
  account_id: string;
  tag_id: string;
  resource: string;
  object_id: string;
  /** Its place in the object's list of tags, from 0: the answer's order. */
  position: number;
  /** The object's created_at, which never changes: the filters walk a tag's objects in that order. */
  object_created_at: Timestamp | null;
}

/**
 * What a tagged kind's row is read with: its tags' names in their order (JSON text), computed from its links and
 * the tags' rows when read (modules/tags `tagNamesColumn`), never stored in the row (docs/api-contract.md §27).
 */
export interface TagNames {
  tags: JsonText;
}

/**
 * The stamp of an account's custom field definitions of one kind: a new random value, by trigger, at every write
 * of one (migration 20261130060100); what modules/custom-fields/definitions.ts keeps its copy by.
 */
export interface CustomFieldStampsTable {
  account_id: string;
  resource: string;
  stamp: string;
}

/** A custom field's definition (docs/api-contract.md §27); deleted_at set while its values are purged. */
export interface CustomFieldsTable {
  id: string;
  account_id: string;
  resource: string;
  key: string;
  label: string;
  description: string | null;
  type: string;
  /** 1 or 0. */
  required: number;
  /** JSON `[{value, label, archived}]`. */
  options: JsonText;
  /** JSON: the type's bounds. */
  bounds: JsonText;
  /** 1 or 0. */
  printable: number;
  position: number;
  metadata: JsonText;
  deleted_at: Timestamp | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** One value of a custom field of one object, typed, for the filters (modules/custom-fields/values.ts). */
export interface CustomFieldValuesTable {
  account_id: string;
  field_id: string;
  object_id: string;
  text_value: string | null;
  number_value: number | null;
  amount_value: number | null;
  /** The object's created_at, which never changes: the filters walk a field's objects in that order. */
  object_created_at: Timestamp | null;
}

/** A member's time (docs/api-contract.md §29); ended_at null while running. */
export interface TimeEntriesTable {
  id: string;
  account_id: string;
  team_member_id: string;
  job_id: string | null;
  visit_id: string | null;
  started_at: Timestamp;
  ended_at: Timestamp | null;
  break_minutes: number;
  /** manual | api | timer. */
  source: string;
  /** 1 or 0. */
  billable: number;
  hourly_cost_amount: number;
  hourly_rate_amount: number;
  currency: string;
  notes: string | null;
  approved_at: Timestamp | null;
  /** The actor who approved it (JSON `{type, id}`). */
  approved_by: JsonText | null;
  invoice_id: string | null;
  /** Billed hours in hundredths, frozen while billed (null: unbilled, following the account's increment). */
  billed_hundredths: number | null;
  external_id: string | null;
  metadata: JsonText;
  created_at: Timestamp;
  updated_at: Timestamp;
  /**
   * A kept copy: the worked seconds of `started_at`, `ended_at` and `break_minutes`, null while running, written by
   * time-entries.repository.ts with every change of those three, for the costing's sums (not in `TimeEntryRow`).
   */
  duration_seconds: Generated<number | null>;
}

export type ImportRecordRow = Selectable<ImportsTable>;
export type ImportReportRow = Selectable<ImportRowsTable>;
export type AccountRow = Selectable<AccountsTable>;
export type AttachmentRow = Selectable<AttachmentsTable>;
export type AttachmentPatch = Updateable<AttachmentsTable>;
export type AvailabilityExceptionRow = Selectable<AvailabilityExceptionsTable>;
export type AvailabilityHoldRow = Selectable<AvailabilityHoldsTable>;
export type AccountLogoRow = Selectable<AccountLogosTable>;
export type ApiKeyRow = Selectable<ApiKeysTable>;
export type AppRow = Selectable<AppsTable>;
export type AppInstallLinkRow = Selectable<AppInstallLinksTable>;
export type AppInstallRow = Selectable<AppInstallsTable>;
export type OauthGrantRow = Selectable<OauthGrantsTable>;
export type OauthTokenRow = Selectable<OauthTokensTable>;
export type NewApiKeyRow = Insertable<ApiKeysTable>;
export type ClientRow = Selectable<ClientsTable> & TagNames;
export type ClientPatch = Updateable<ClientsTable> & Partial<TagNames>;
export type CustomFieldRow = Selectable<CustomFieldsTable>;
export type CustomFieldValueRow = Selectable<CustomFieldValuesTable>;
export type TagRow = Selectable<TagsTable>;
export type TagLinkRow = Selectable<TagLinksTable>;
export type PropertyRow = Selectable<PropertiesTable> & TagNames;
export type PropertyPatch = Updateable<PropertiesTable> & Partial<TagNames>;
export type ServiceRequestRow = Selectable<ServiceRequestsTable>;
export type QuoteRow = Selectable<QuotesTable> & TagNames;
export type QuoteSignatureRow = Selectable<QuoteSignaturesTable>;
export type JobRow = Selectable<JobsTable> & TagNames;
export type InvoiceRow = Selectable<InvoicesTable> & TagNames;
export type RecurringInvoiceRow = Selectable<RecurringInvoicesTable>;
export type TimeEntryRow = Omit<Selectable<TimeEntriesTable>, 'duration_seconds'>;
export type TimeEntryPatch = Omit<Updateable<TimeEntriesTable>, 'duration_seconds'>;
export type OutboxMessageRow = Selectable<OutboxMessagesTable>;
export type InvoiceReminderRow = Selectable<InvoiceRemindersTable>;
export type ServiceRequestPatch = Updateable<ServiceRequestsTable>;
export type QuotePatch = Updateable<QuotesTable> & Partial<TagNames>;
export type JobPatch = Updateable<JobsTable> & Partial<TagNames>;
export type InvoicePatch = Updateable<InvoicesTable> & Partial<TagNames>;
export type PaymentRow = Selectable<PaymentsTable>;
export type PaymentPatch = Updateable<PaymentsTable>;
export type PaymentRefundRow = Selectable<PaymentRefundsTable>;
export type ApplicationRow = Selectable<ApplicationsTable>;
export type CreditNoteRow = Selectable<CreditNotesTable>;
export type CreditNotePatch = Updateable<CreditNotesTable>;
export type CreditNoteRefundRow = Selectable<CreditNoteRefundsTable>;
export type LedgerEntryRow = Selectable<LedgerEntriesTable>;
export type LedgerDayTotalRow = Selectable<LedgerDayTotalsTable>;
export type LedgerOpenItemRow = Selectable<LedgerOpenItemsTable>;
export type LedgerInvoiceFigureRow = Selectable<LedgerInvoiceFiguresTable>;
export type LedgerCashDayTotalRow = Selectable<LedgerCashDayTotalsTable>;
export type EventRow = Selectable<EventsTable>;
export type McpCallRow = Selectable<McpCallsTable>;
export type WebhookEndpointRow = Selectable<WebhookEndpointsTable>;
export type WebhookEndpointPatch = Updateable<WebhookEndpointsTable>;
export type WebhookDeliveryRow = Selectable<WebhookDeliveriesTable>;
export type TeamMemberRow = Selectable<TeamMembersTable>;
export type TeamMemberPatch = Updateable<TeamMembersTable>;
export type VisitRow = Selectable<VisitsTable> & TagNames;
export type VisitPatch = Updateable<VisitsTable> & Partial<TagNames>;
export type VisitAssigneeRow = Selectable<VisitAssigneesTable>;
export type VisitScheduleRow = Selectable<VisitSchedulesTable>;
export type TaxRateRow = Selectable<TaxRatesTable>;
export type TaxRatePatch = Updateable<TaxRatesTable>;
export type ProductRow = Selectable<ProductsTable>;
export type ProductPatch = Updateable<ProductsTable>;
