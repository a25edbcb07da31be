// Runs the schema migrations, in order, each once. The list is explicit so a build contains them all.
import { Migrator, type Migration, type MigrationProvider } from 'kysely';
import type { Db } from './database.js';
import * as foundation from './migrations/20261121000000_foundation.js';
import * as documents from './migrations/20261121010000_documents.js';
import * as outbox from './migrations/20261121020000_outbox.js';
import * as sortSentinels from './migrations/20261121030000_sort_sentinels.js';
import * as idempotency from './migrations/20261121040000_idempotency.js';
import * as payments from './migrations/20261122000000_payments.js';
import * as events from './migrations/20261122010000_events.js';
import * as idempotencyEtag from './migrations/20261122020000_idempotency_etag.js';
import * as documentsV2 from './migrations/20261122030000_documents_v2.js';
import * as clientHub from './migrations/20261122040000_client_hub.js';
import * as clientSearch from './migrations/20261122050000_client_search.js';
import * as listIndexes from './migrations/20261122060000_list_indexes.js';
import * as rangeIndexes from './migrations/20261122070000_range_indexes.js';
import * as accountLimits from './migrations/20261125000000_account_limits.js';
import * as timeAndTeam from './migrations/20261125010000_time_and_team.js';
import * as properties from './migrations/20261125020000_properties.js';
import * as access from './migrations/20261125030000_access.js';
import * as visits from './migrations/20261126010000_visits.js';
import * as visitSchedules from './migrations/20261126020000_visit_schedules.js';
import * as catalogue from './migrations/20261126030000_catalogue.js';
import * as hostedRecipient from './migrations/20261126040000_hosted_recipient.js';
import * as webhookEndpointsVersion from './migrations/20261127030000_webhook_endpoints_version.js';
import * as webhookEndpointsVersionRandom from './migrations/20261127140000_webhook_endpoints_version_random.js';
import * as webhookDeliveriesFewerIndexes from './migrations/20261127200000_webhook_deliveries_fewer_indexes.js';
import * as clientSearchQueue from './migrations/20261128080000_client_search_queue.js';
import * as clientsPropertyIds from './migrations/20261128080100_clients_property_ids.js';
import * as clientsVersion from './migrations/20261128110000_clients_version.js';
import * as clientsPropertyIdsPortable from './migrations/20261128200000_clients_property_ids_portable.js';
import * as recurringInvoices from './migrations/20261129010000_recurring_invoices.js';
import * as timeEntries from './migrations/20261129030000_time_entries.js';
import * as ledgerDayTotals from './migrations/20261129100000_ledger_day_totals.js';
import * as reminders from './migrations/20261129110000_reminders.js';
import * as apps from './migrations/20261129120000_apps.js';
import * as idempotencyPerInstall from './migrations/20261129120100_idempotency_per_install.js';
import * as eventOrigin from './migrations/20261129130000_event_origin.js';
import * as changes from './migrations/20261129130100_changes.js';
import * as customFields from './migrations/20261129140000_custom_fields.js';
import * as timeBilling from './migrations/20261129150000_time_billing.js';
import * as ledgerEntryCosts from './migrations/20261129160000_ledger_entry_costs.js';
import * as deposits from './migrations/20261129170000_deposits.js';
import * as timeEntrySeconds from './migrations/20261129180000_time_entry_seconds.js';
import * as timeEntryCostingIndex from './migrations/20261129185000_time_entry_costing_index.js';
import * as imports from './migrations/20261129190000_imports.js';
import * as changesDeletedIndex from './migrations/20261129190100_changes_deleted_index.js';
import * as appWebhookDeliveries from './migrations/20261129210000_app_webhook_deliveries.js';
import * as appLogos from './migrations/20261129210100_app_logos.js';
import * as appSuspension from './migrations/20261129210200_app_suspension.js';
import * as liveRefreshTokens from './migrations/20261129210300_live_refresh_tokens.js';
import * as attachments from './migrations/20261129230000_attachments.js';
import * as quoteSignatures from './migrations/20261129230100_quote_signatures.js';
import * as einvoices from './migrations/20261130010000_einvoices.js';
import * as einvoiceFiles from './migrations/20261130010100_einvoice_files.js';
import * as lateFeeInvoices from './migrations/20261130020000_late_fee_invoices.js';
import * as attachmentRemovals from './migrations/20261130040000_attachment_removals.js';
import * as appInstallEndpoints from './migrations/20261130050000_app_install_endpoints.js';
import * as tagsById from './migrations/20261130060000_tags_by_id.js';
import * as customFieldStamps from './migrations/20261130060100_custom_field_stamps.js';
import * as quoteSignatureSetting from './migrations/20261130100000_quote_signature_setting.js';
import * as ledgerEntriesByDay from './migrations/20261130120000_ledger_entries_by_day.js';
import * as ledgerEntryDays from './migrations/20261130120100_ledger_entry_days.js';
import * as changesByKind from './migrations/20261130160000_changes_by_kind.js';
import * as customFieldValuesByObject from './migrations/20261130180000_custom_field_values_by_object.js';
import * as reportCoveringIndexes from './migrations/20261130190000_report_covering_indexes.js';
import * as stillOpenItemsByClient from './migrations/20261130220000_still_open_items_by_client.js';
import * as openItemOpenings from './migrations/20261201130000_open_item_openings.js';
import * as valueRowsInSortOrder from './migrations/20261201140000_value_rows_in_sort_order.js';
import * as searchRowsFunction from './migrations/20261201150000_search_rows_function.js';
import * as searchRowsEstimated from './migrations/20261201160000_search_rows_estimated.js';

import * as mcpCallVersions from './migrations/20261128200100_mcp_call_versions.js';

import * as accountLocale from './migrations/20261128210000_account_locale.js';
import * as ledger from './migrations/20261129000000_ledger.js';
import * as creditNotes from './migrations/20261129000100_credit_notes.js';

import * as availability from './migrations/20261129020000_availability.js';
import * as tags from './migrations/20261129200000_tags.js';
import * as ledgerOpenItems from './migrations/20261129220000_ledger_open_items.js';
import * as ledgerCashDayTotals from './migrations/20261129220100_ledger_cash_day_totals.js';
import * as ledgerInvoiceFigures from './migrations/20261129220200_ledger_invoice_figures.js';

/** Every migration by name, in order (exported for the test that migrates a database holding data). */
export const MIGRATIONS: Record<string, Migration> = {
  '20261121000000_foundation': foundation,
  '20261121010000_documents': documents,
  '20261121020000_outbox': outbox,
  '20261121030000_sort_sentinels': sortSentinels,
  '20261121040000_idempotency': idempotency,
  '20261122000000_payments': payments,
  '20261122010000_events': events,
  '20261122020000_idempotency_etag': idempotencyEtag,
  '20261122030000_documents_v2': documentsV2,
  '20261122040000_client_hub': clientHub,
  '20261122050000_client_search': clientSearch,
  '20261122060000_list_indexes': listIndexes,
  '20261122070000_range_indexes': rangeIndexes,
  '20261125000000_account_limits': accountLimits,
  '20261125010000_time_and_team': timeAndTeam,
  '20261125020000_properties': properties,
  '20261125030000_access': access,
  '20261126010000_visits': visits,
  '20261126020000_visit_schedules': visitSchedules,
  '20261126030000_catalogue': catalogue,
  '20261126040000_hosted_recipient': hostedRecipient,
  '20261127030000_webhook_endpoints_version': webhookEndpointsVersion,
  '20261127140000_webhook_endpoints_version_random': webhookEndpointsVersionRandom,
  '20261127200000_webhook_deliveries_fewer_indexes': webhookDeliveriesFewerIndexes,
  '20261128080000_client_search_queue': clientSearchQueue,
  '20261128080100_clients_property_ids': clientsPropertyIds,
  '20261128110000_clients_version': clientsVersion,
  '20261128200000_clients_property_ids_portable': clientsPropertyIdsPortable,
  '20261128200100_mcp_call_versions': mcpCallVersions,
  '20261128210000_account_locale': accountLocale,
  '20261129000000_ledger': ledger,
  '20261129000100_credit_notes': creditNotes,
  '20261129010000_recurring_invoices': recurringInvoices,
  '20261129020000_availability': availability,
  '20261129030000_time_entries': timeEntries,
  '20261129100000_ledger_day_totals': ledgerDayTotals,
  '20261129110000_reminders': reminders,
  '20261129120000_apps': apps,
  '20261129120100_idempotency_per_install': idempotencyPerInstall,
  '20261129130000_event_origin': eventOrigin,
  '20261129130100_changes': changes,
  '20261129140000_custom_fields': customFields,
  '20261129150000_time_billing': timeBilling,
  '20261129160000_ledger_entry_costs': ledgerEntryCosts,
  '20261129170000_deposits': deposits,
  '20261129180000_time_entry_seconds': timeEntrySeconds,
  '20261129185000_time_entry_costing_index': timeEntryCostingIndex,
  '20261129190000_imports': imports,
  '20261129190100_changes_deleted_index': changesDeletedIndex,
  '20261129200000_tags': tags,
  '20261129210000_app_webhook_deliveries': appWebhookDeliveries,
  '20261129210100_app_logos': appLogos,
  '20261129210200_app_suspension': appSuspension,
  '20261129210300_live_refresh_tokens': liveRefreshTokens,
  '20261129220000_ledger_open_items': ledgerOpenItems,
  '20261129220100_ledger_cash_day_totals': ledgerCashDayTotals,
  '20261129220200_ledger_invoice_figures': ledgerInvoiceFigures,
  '20261129230000_attachments': attachments,
  '20261129230100_quote_signatures': quoteSignatures,
  '20261130010000_einvoices': einvoices,
  '20261130010100_einvoice_files': einvoiceFiles,
  '20261130020000_late_fee_invoices': lateFeeInvoices,
  '20261130040000_attachment_removals': attachmentRemovals,
  '20261130050000_app_install_endpoints': appInstallEndpoints,
  '20261130060000_tags_by_id': tagsById,
  '20261130060100_custom_field_stamps': customFieldStamps,
  '20261130100000_quote_signature_setting': quoteSignatureSetting,
  '20261130120000_ledger_entries_by_day': ledgerEntriesByDay,
  '20261130120100_ledger_entry_days': ledgerEntryDays,
  '20261130160000_changes_by_kind': changesByKind,
  '20261130180000_custom_field_values_by_object': customFieldValuesByObject,
  '20261130190000_report_covering_indexes': reportCoveringIndexes,
  '20261130220000_still_open_items_by_client': stillOpenItemsByClient,
  '20261201130000_open_item_openings': openItemOpenings,
  '20261201140000_value_rows_in_sort_order': valueRowsInSortOrder,
  '20261201150000_search_rows_function': searchRowsFunction,
  '20261201160000_search_rows_estimated': searchRowsEstimated,
};

const provider: MigrationProvider = { getMigrations: async () => MIGRATIONS };

/** Every migration this build knows, in the order they run (`bms restore` checks a database against it). */
export function knownMigrationNames(): string[] {
  return Object.keys(MIGRATIONS).sort();
}

/** Applies every pending migration; returns the names applied. Throws if one fails. */
export async function migrateToLatest(db: Db): Promise<string[]> {
  const migrator = new Migrator({ db, provider });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((result) => result.status === 'Success').map((result) => result.migrationName);
}
