// Authentication, scopes and tenancy. The seed's endpoint table and its 16 scopes, and the contract's
// version-2 endpoints and scopes, are written out here, literally: the app's routes must be exactly
// these, each requiring exactly its scope. Then, for every route in the app's route table: 401 without or with a bad key, 403 without its scope, 404 across accounts.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { isUuid } from '../src/core/deps.js';
import { createTestContext, ManualClock, type ApiResponse, type TestContext } from './helpers/context.js';
import fs from 'node:fs';
import { logoPng } from './helpers/images.js';

const clock = new ManualClock(new Date());
let context: TestContext;
let owner: { accountId: string; key: string };
let stranger: { accountId: string; key: string };
let revokedKey: string;
let expiredKey: string;
/** A sent invoice of `owner`'s, for the sample payment. */
let payableInvoiceId: string;
/** One existing object of each kind, owned by `owner`, keyed by collection path. */
const existing = new Map<string, string>();

/** The seed's scopes: <resource>:<action>. */
const SCOPES = [
  'clients:read',
  'clients:write',
  'clients:delete',
  'invoices:read',
  'invoices:write',
  'invoices:delete',
  'invoices:send',
  'quotes:read',
  'quotes:write',
  'quotes:delete',
  'quotes:send',
  'jobs:read',
  'jobs:write',
  'jobs:delete',
  'requests:read',
  'requests:write',
  // Contract section 3, for the resources version 2 adds.
  'payments:read',
  'payments:write',
  'events:read',
  'webhooks:read',
  'webhooks:write',
  'account:read',
  'account:write',
  // Contract section 3, for the resources version 3 adds (section 15).
  'team:read',
  'team:write',
  // Contract section 20: keys through the API.
  'api_keys:read',
  'api_keys:write',
  // Contract section 17: visits and the calendar.
  'visits:read',
  'visits:write',
  'visits:delete',
  // Contract section 18: repeating visits.
  'schedules:read',
  'schedules:write',
  // Contract section 19: products and tax rates.
  'catalog:read',
  'catalog:write',
  // Contract section 23: recurring invoices.
  'recurring_invoices:read',
  'recurring_invoices:write',
  // Contract section 28: availability and booking.
  'availability:read',
  'availability:write',
  // Contract section 22: credit notes, the ledger and the client's balance.
  'credit_notes:read',
  'credit_notes:write',
  'credit_notes:delete',
  'credit_notes:send',
  'reports:read',
  // Contract section 29: time entries.
  'time_entries:read',
  'time_entries:write',
  'time_entries:delete',
  'time_entries:approve',
  // Contract section 25.
  'apps:read',
  'apps:write',
  'apps:install',
  'app_installs:read',
  'app_installs:write',
  'custom_fields:read',
  'custom_fields:write',
  'tags:read',
  'tags:write',
  // Contract section 26.
  'imports:read',
  'imports:write',
  // Contract section 30.
  'attachments:read',
  'attachments:write',
  'attachments:delete',
] as const;

/** The seed's endpoint table, then the contract's version-2 endpoints: method and path -> the scope it requires. */
const SEED_ENDPOINTS: Record<string, string> = {
  'GET /v1/clients': 'clients:read',
  'POST /v1/clients': 'clients:write',
  'GET /v1/clients/:id': 'clients:read',
  'PUT /v1/clients/:id': 'clients:write',
  'DELETE /v1/clients/:id': 'clients:delete',
  // Contract section 16: a property is client data, under the clients scopes.
  'GET /v1/properties': 'clients:read',
  'POST /v1/properties': 'clients:write',
  'GET /v1/properties/:id': 'clients:read',
  'PUT /v1/properties/:id': 'clients:write',
  'DELETE /v1/properties/:id': 'clients:delete',
  'GET /v1/invoices': 'invoices:read',
  'POST /v1/invoices': 'invoices:write',
  'GET /v1/invoices/:id': 'invoices:read',
  'PUT /v1/invoices/:id': 'invoices:write',
  'DELETE /v1/invoices/:id': 'invoices:delete',
  'POST /v1/invoices/:id/send': 'invoices:send',
  'GET /v1/quotes': 'quotes:read',
  'POST /v1/quotes': 'quotes:write',
  'GET /v1/quotes/:id': 'quotes:read',
  'PUT /v1/quotes/:id': 'quotes:write',
  'DELETE /v1/quotes/:id': 'quotes:delete',
  'POST /v1/quotes/:id/send': 'quotes:send',
  'GET /v1/jobs': 'jobs:read',
  'POST /v1/jobs': 'jobs:write',
  'GET /v1/jobs/:id': 'jobs:read',
  'PUT /v1/jobs/:id': 'jobs:write',
  'DELETE /v1/jobs/:id': 'jobs:delete',
  'GET /v1/service-requests': 'requests:read',
  'POST /v1/service-requests': 'requests:write',
  'GET /v1/service-requests/:id': 'requests:read',
  'PUT /v1/service-requests/:id': 'requests:write',
  // Contract section 11: payment operations need only the payments scopes.
  'GET /v1/payments': 'payments:read',
  'POST /v1/payments': 'payments:write',
  'GET /v1/payments/:id': 'payments:read',
  'PUT /v1/payments/:id': 'payments:write',
  'POST /v1/payments/:id/refund': 'payments:write',
  // Contract section 22: applying a payment's money needs only its scope; the ledger and balance, reports:read.
  'POST /v1/payments/:id/apply': 'payments:write',
  'POST /v1/payments/:id/unapply': 'payments:write',
  'GET /v1/ledger-entries': 'reports:read',
  'GET /v1/ledger-entries/:id': 'reports:read',
  'GET /v1/clients/:id/balance': 'reports:read',
  // Contract section 24: reports read every money document and the ledger, hence a scope of their own.
  'GET /v1/reports/aged-receivables': 'reports:read',
  'GET /v1/reports/client-statement': 'reports:read',
  'GET /v1/reports/revenue': 'reports:read',
  'GET /v1/reports/tax-summary': 'reports:read',
  'GET /v1/reports/job-profitability': 'reports:read',
  // Contract section 22: credit notes mirror invoices:*.
  'GET /v1/credit-notes': 'credit_notes:read',
  'POST /v1/credit-notes': 'credit_notes:write',
  'GET /v1/credit-notes/:id': 'credit_notes:read',
  'PUT /v1/credit-notes/:id': 'credit_notes:write',
  'DELETE /v1/credit-notes/:id': 'credit_notes:delete',
  'POST /v1/credit-notes/preview': 'credit_notes:read',
  'POST /v1/credit-notes/:id/apply': 'credit_notes:write',
  'POST /v1/credit-notes/:id/unapply': 'credit_notes:write',
  'POST /v1/credit-notes/:id/refund': 'credit_notes:write',
  'POST /v1/credit-notes/:id/send': 'credit_notes:send',
  'POST /v1/credit-notes/:id/hosted-link/rotate': 'credit_notes:write',
  'GET /v1/credit-notes/:id/pdf': 'credit_notes:read',
  'GET /v1/credit-notes/:id/deliveries': 'credit_notes:read',
  // Contract section 31: e-invoices take the document's read scope, validation too.
  'GET /v1/invoices/:id/einvoice': 'invoices:read',
  'POST /v1/invoices/:id/einvoice/validate': 'invoices:read',
  'GET /v1/credit-notes/:id/einvoice': 'credit_notes:read',
  'POST /v1/credit-notes/:id/einvoice/validate': 'credit_notes:read',
  // Contract section 9: events and webhook endpoints.
  'GET /v1/events': 'events:read',
  'GET /v1/events/:id': 'events:read',
  'POST /v1/events/:id/resend': 'webhooks:write',
  'GET /v1/webhook-endpoints': 'webhooks:read',
  'POST /v1/webhook-endpoints': 'webhooks:write',
  'GET /v1/webhook-endpoints/:id': 'webhooks:read',
  'PUT /v1/webhook-endpoints/:id': 'webhooks:write',
  'DELETE /v1/webhook-endpoints/:id': 'webhooks:write',
  'POST /v1/webhook-endpoints/:id/rotate-secret': 'webhooks:write',
  'POST /v1/webhook-endpoints/:id/test': 'webhooks:write',
  'GET /v1/webhook-endpoints/:id/deliveries': 'webhooks:read',
  'POST /v1/webhook-endpoints/:id/recover': 'webhooks:write',
  // Contract section 10: the business profile, documents' PDFs and deliveries (the document's read scope).
  'GET /v1/account': 'account:read',
  'PUT /v1/account': 'account:write',
  'PUT /v1/account/logo': 'account:write',
  'DELETE /v1/account/logo': 'account:write',
  'GET /v1/quotes/:id/pdf': 'quotes:read',
  'GET /v1/quotes/:id/deliveries': 'quotes:read',
  'GET /v1/invoices/:id/pdf': 'invoices:read',
  'GET /v1/invoices/:id/deliveries': 'invoices:read',
  // Contract section 12: replacing a hosted link takes the document's write scope.
  'POST /v1/quotes/:id/hosted-link/rotate': 'quotes:write',
  'POST /v1/invoices/:id/hosted-link/rotate': 'invoices:write',
  // Contract section 15: team members, delete included, take the team scopes.
  'GET /v1/team-members': 'team:read',
  'POST /v1/team-members': 'team:write',
  'GET /v1/team-members/:id': 'team:read',
  'PUT /v1/team-members/:id': 'team:write',
  'DELETE /v1/team-members/:id': 'team:write',
  // Contract section 20: API keys through the API (DELETE revokes).
  'GET /v1/api-keys': 'api_keys:read',
  'POST /v1/api-keys': 'api_keys:write',
  'GET /v1/api-keys/:id': 'api_keys:read',
  'PUT /v1/api-keys/:id': 'api_keys:write',
  'DELETE /v1/api-keys/:id': 'api_keys:write',
  'POST /v1/api-keys/:id/roll': 'api_keys:write',
  // Contract section 17: visits (the list is also the calendar); an assignee added or removed alone.
  'GET /v1/visits': 'visits:read',
  'POST /v1/visits': 'visits:write',
  'GET /v1/visits/:id': 'visits:read',
  'PUT /v1/visits/:id': 'visits:write',
  'DELETE /v1/visits/:id': 'visits:delete',
  'POST /v1/visits/:id/assignees': 'visits:write',
  'DELETE /v1/visits/:id/assignees/:team_member_id': 'visits:write',
  // Contract section 18: visit schedules; DELETE ends one, and the actions and occurrences take the schedules scopes alone.
  'GET /v1/visit-schedules': 'schedules:read',
  'POST /v1/visit-schedules': 'schedules:write',
  'GET /v1/visit-schedules/:id': 'schedules:read',
  'PUT /v1/visit-schedules/:id': 'schedules:write',
  'DELETE /v1/visit-schedules/:id': 'schedules:write',
  'POST /v1/visit-schedules/:id/skip': 'schedules:write',
  'POST /v1/visit-schedules/:id/unskip': 'schedules:write',
  'POST /v1/visit-schedules/:id/pause': 'schedules:write',
  'POST /v1/visit-schedules/:id/resume': 'schedules:write',
  'POST /v1/visit-schedules/:id/split': 'schedules:write',
  'GET /v1/visit-schedules/:id/occurrences': 'schedules:read',
  // Contract section 19.
  'GET /v1/products': 'catalog:read',
  'POST /v1/products': 'catalog:write',
  'GET /v1/products/:id': 'catalog:read',
  'PUT /v1/products/:id': 'catalog:write',
  'DELETE /v1/products/:id': 'catalog:write',
  'GET /v1/tax-rates': 'catalog:read',
  'POST /v1/tax-rates': 'catalog:write',
  'GET /v1/tax-rates/:id': 'catalog:read',
  'PUT /v1/tax-rates/:id': 'catalog:write',
  'DELETE /v1/tax-rates/:id': 'catalog:write',
  'POST /v1/quotes/preview': 'quotes:read',
  'POST /v1/invoices/preview': 'invoices:read',
  // Contract section 23.
  'GET /v1/recurring-invoices': 'recurring_invoices:read',
  'POST /v1/recurring-invoices': 'recurring_invoices:write',
  'GET /v1/recurring-invoices/:id': 'recurring_invoices:read',
  'PUT /v1/recurring-invoices/:id': 'recurring_invoices:write',
  'DELETE /v1/recurring-invoices/:id': 'recurring_invoices:write',
  'POST /v1/recurring-invoices/:id/skip': 'recurring_invoices:write',
  'POST /v1/recurring-invoices/:id/unskip': 'recurring_invoices:write',
  'POST /v1/recurring-invoices/:id/pause': 'recurring_invoices:write',
  'POST /v1/recurring-invoices/:id/resume': 'recurring_invoices:write',
  'GET /v1/recurring-invoices/:id/occurrences': 'recurring_invoices:read',
  // Contract section 28.
  'GET /v1/availability-exceptions': 'team:read',
  'POST /v1/availability-exceptions': 'team:write',
  'GET /v1/availability-exceptions/:id': 'team:read',
  'PUT /v1/availability-exceptions/:id': 'team:write',
  'DELETE /v1/availability-exceptions/:id': 'team:write',
  'GET /v1/availability': 'availability:read',
  'POST /v1/availability/holds': 'availability:write',
  'GET /v1/availability/holds': 'availability:read',
  'GET /v1/availability/holds/:id': 'availability:read',
  'DELETE /v1/availability/holds/:id': 'availability:write',
  // Contract section 29.
  'POST /v1/time-entries/start': 'time_entries:write',
  'POST /v1/time-entries/approve': 'time_entries:approve',
  'POST /v1/time-entries/lock': 'time_entries:approve',
  'POST /v1/time-entries/unlock': 'time_entries:approve',
  'GET /v1/time-entries': 'time_entries:read',
  'POST /v1/time-entries': 'time_entries:write',
  'GET /v1/time-entries/:id': 'time_entries:read',
  'PUT /v1/time-entries/:id': 'time_entries:write',
  'DELETE /v1/time-entries/:id': 'time_entries:delete',
  'POST /v1/time-entries/:id/stop': 'time_entries:write',
  'POST /v1/time-entries/:id/approve': 'time_entries:approve',
  'POST /v1/time-entries/:id/unapprove': 'time_entries:approve',
  'POST /v1/invoices/:id/time-entries': 'invoices:write',
  'GET /v1/jobs/:id/costing': 'jobs:read',
  // Contract section 25. `current` is an app token's own install: any authenticated caller (a key: 404).
  'GET /v1/apps': 'apps:read',
  'POST /v1/apps': 'apps:write',
  'GET /v1/apps/:id': 'apps:read',
  'PUT /v1/apps/:id': 'apps:write',
  'DELETE /v1/apps/:id': 'apps:write',
  'POST /v1/apps/:id/roll-secret': 'apps:write',
  'POST /v1/apps/:id/rotate-webhook-secret': 'apps:write',
  'GET /v1/apps/:id/deliveries': 'apps:read',
  'PUT /v1/apps/:id/logo': 'apps:write',
  'DELETE /v1/apps/:id/logo': 'apps:write',
  'POST /v1/app-install-links': 'apps:install',
  'GET /v1/app-installs': 'app_installs:read',
  'GET /v1/app-installs/current': '(authenticated)',
  'DELETE /v1/app-installs/current': '(authenticated)',
  'GET /v1/app-installs/:id': 'app_installs:read',
  'PUT /v1/app-installs/:id': 'app_installs:write',
  'DELETE /v1/app-installs/:id': 'app_installs:write',
  'GET /v1/custom-fields/schema': 'custom_fields:read',
  'GET /v1/custom-fields': 'custom_fields:read',
  'POST /v1/custom-fields': 'custom_fields:write',
  'GET /v1/custom-fields/:id': 'custom_fields:read',
  'PUT /v1/custom-fields/:id': 'custom_fields:write',
  'DELETE /v1/custom-fields/:id': 'custom_fields:write',
  'GET /v1/tags': 'tags:read',
  'GET /v1/tags/:id': 'tags:read',
  'PUT /v1/tags/:id': 'tags:write',
  'DELETE /v1/tags/:id': 'tags:write',
  'POST /v1/clients/:id/tags': 'clients:write',
  'DELETE /v1/clients/:id/tags/:tag': 'clients:write',
  'POST /v1/properties/:id/tags': 'clients:write',
  'DELETE /v1/properties/:id/tags/:tag': 'clients:write',
  'POST /v1/quotes/:id/tags': 'quotes:write',
  'DELETE /v1/quotes/:id/tags/:tag': 'quotes:write',
  'POST /v1/jobs/:id/tags': 'jobs:write',
  'DELETE /v1/jobs/:id/tags/:tag': 'jobs:write',
  'POST /v1/invoices/:id/tags': 'invoices:write',
  'DELETE /v1/invoices/:id/tags/:tag': 'invoices:write',
  'POST /v1/visits/:id/tags': 'visits:write',
  'DELETE /v1/visits/:id/tags/:tag': 'visits:write',
  // Contract section 26.
  'GET /v1/imports': 'imports:read',
  'POST /v1/imports': 'imports:write',
  'GET /v1/imports/:id': 'imports:read',
  'PUT /v1/imports/:id/file': 'imports:write',
  'POST /v1/imports/:id/apply': 'imports:write',
  'POST /v1/imports/:id/cancel': 'imports:write',
  'GET /v1/imports/:id/rows': 'imports:read',
  'GET /v1/imports/:id/errors.csv': 'imports:read',
  // Contract section 30.
  'GET /v1/attachments': 'attachments:read',
  'POST /v1/attachments': 'attachments:write',
  'GET /v1/attachments/:id': 'attachments:read',
  'PUT /v1/attachments/:id': 'attachments:write',
  'DELETE /v1/attachments/:id': 'attachments:delete',
  'GET /v1/attachments/:id/content': 'attachments:read',
  'GET /v1/quotes/:id/signatures': 'quotes:read',
  'GET /v1/quotes/:id/signatures/:signature_id/document': 'quotes:read',
};

/** Operations whose body is not JSON (an upload, contract §30): a JSON body is 415 once admitted. */
const NOT_JSON_BODIES = new Set(['POST /v1/attachments']);

/** Operations that need a second scope whatever the body (contract §22: a refund of credit moves money). */
const SECOND_SCOPES: Record<string, (typeof SCOPES)[number][]> = {
  'POST /v1/credit-notes/:id/refund': ['payments:write'],
  // Contract section 29: billing time writes entries; a job's costing reads them.
  'POST /v1/invoices/:id/time-entries': ['time_entries:write'],
  'GET /v1/jobs/:id/costing': ['time_entries:read'],
  // Contract section 30: the read scope of the files' parent (here a client's: ?parent_type=client).
  'GET /v1/attachments': ['clients:read'],
  'POST /v1/attachments': ['clients:read'],
};

/** Valid bodies for the operations whose body has required fields (validation comes before lookup). */
const ACTION_BODIES: Record<string, () => unknown> = {
  // Contract section 26: the file (a JSON string is read as the CSV text, as a text/csv body is).
  '/v1/imports/:id/file': () => 'name\nAda',
  '/v1/payments/:id/apply': () => ({
    applications: [{ invoice_id: '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f01', amount: 1 }],
  }),
  '/v1/payments/:id/unapply': () => ({ application_id: '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f01' }),
  '/v1/credit-notes/:id/apply': () => ({
    applications: [{ invoice_id: '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f01', amount: 1 }],
  }),
  '/v1/credit-notes/:id/unapply': () => ({ application_id: '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f01' }),
  '/v1/credit-notes/:id/refund': () => ({ method: 'cash' }),
  '/v1/webhook-endpoints/:id/recover': () => ({ since: '2020-01-01T00:00:00.000Z' }),
  '/v1/events/:id/resend': () => ({ endpoint_id: existing.get('/v1/webhook-endpoints') }),
  '/v1/visits/:id/assignees': () => ({ team_member_id: existing.get('/v1/team-members') }),
  '/v1/visit-schedules/:id/skip': () => ({ occurrence_key: '2026-01-05T09:00' }),
  '/v1/visit-schedules/:id/unskip': () => ({ occurrence_key: '2026-01-05T09:00' }),
  '/v1/visit-schedules/:id/pause': () => ({ from: '2026-01-05' }),
  '/v1/visit-schedules/:id/split': () => ({ from_occurrence_key: '2026-01-05T09:00' }),
  '/v1/recurring-invoices/:id/skip': () => ({ occurrence_date: '2026-01-05' }),
  '/v1/recurring-invoices/:id/unskip': () => ({ occurrence_date: '2026-01-05' }),
  '/v1/invoices/:id/time-entries': () => ({ time_entry_ids: ['019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f01'] }),
  '/v1/app-installs/:id': () => ({ rate_limits: { per_minute: 30 } }),
  '/v1/clients/:id/tags': () => ({ tags: ['Owner tag'] }),
  '/v1/properties/:id/tags': () => ({ tags: ['Owner tag'] }),
  '/v1/quotes/:id/tags': () => ({ tags: ['Owner tag'] }),
  '/v1/jobs/:id/tags': () => ({ tags: ['Owner tag'] }),
  '/v1/invoices/:id/tags': () => ({ tags: ['Owner tag'] }),
  '/v1/visits/:id/tags': () => ({ tags: ['Owner tag'] }),
  '/v1/tags/:id': () => ({ name: 'Renamed' }),
  // A real image: the logo is checked (422) before the app is looked up (404).
  '/v1/apps/:id/logo': () => ({ content_type: 'image/png', data: logoPng().toString('base64') }),
  '/v1/invoices/:id/einvoice/validate': () => ({ format: 'ubl' }),
  '/v1/credit-notes/:id/einvoice/validate': () => ({ format: 'ubl' }),
};

/** The query a GET route requires (validation comes before lookup). */
const ROUTE_QUERIES: Record<string, string> = {
  '/v1/visit-schedules/:id/occurrences': '?from=2026-01-01T00:00:00Z&to=2026-02-01T00:00:00Z',
  '/v1/recurring-invoices/:id/occurrences': '?from=2026-01-01&to=2026-02-01',
  '/v1/availability': '?duration_minutes=60&from_date=2031-01-06&to_date=2031-01-06',
  '/v1/custom-fields/schema': '?resource=client',
  '/v1/invoices/:id/einvoice': '?format=ubl',
  '/v1/credit-notes/:id/einvoice': '?format=ubl',
  '/v1/attachments': '?parent_type=client',
};

/** A body that creates one object per collection; later ones may use the ids made before them. */
const SAMPLE_BODIES: Record<string, (ids: Map<string, string>) => unknown> = {
  '/v1/clients': () => ({ name: 'Owner Client', email: 'owner@example.com' }),
  '/v1/custom-fields': () => ({ resource: 'client', key: 'owner_field', label: 'Owner field', type: 'text' }),
  '/v1/imports': () => ({ kind: 'client' }),
  '/v1/properties': (ids) => ({ client_id: ids.get('/v1/clients'), address: { line1: '1 Elm', country: 'US' } }),
  '/v1/service-requests': (ids) => ({ client_id: ids.get('/v1/clients'), title: 'Leak' }),
  '/v1/quotes': (ids) => ({
    client_id: ids.get('/v1/clients'),
    line_items: [{ description: 'Fix', quantity: 1, unit_amount: 1000 }],
  }),
  '/v1/jobs': (ids) => ({ client_id: ids.get('/v1/clients'), title: 'Fix leak' }),
  '/v1/invoices': (ids) => ({
    client_id: ids.get('/v1/clients'),
    line_items: [{ description: 'Fix', quantity: 1, unit_amount: 1000 }],
  }),
  // A second invoice, marked sent before the payment is made (see `before`).
  '/v1/payments': () => ({ invoice_id: payableInvoiceId, amount: 100, method: 'cash' }),
  '/v1/webhook-endpoints': () => ({ url: 'http://127.0.0.1:9/hooks', enabled_events: ['invoice.*'] }),
  '/v1/team-members': () => ({
    name: 'Owner Member',
    email: 'member@example.com',
    working_hours: [{ day: 'TU', start: '08:00', end: '17:00' }],
  }),
  '/v1/api-keys': () => ({ name: 'Owner key', scopes: ['clients:read'] }),
  '/v1/visits': (ids) => ({ job_id: ids.get('/v1/jobs') }),
  '/v1/visit-schedules': (ids) => ({
    job_id: ids.get('/v1/jobs'),
    recurrence: { rrule: 'FREQ=WEEKLY', start_date: '2026-01-05', time: '09:00', timezone: 'UTC' },
    duration_minutes: 60,
  }),
  '/v1/products': () => ({ type: 'service', name: 'Owner product' }),
  '/v1/tax-rates': () => ({ name: 'Owner rate', percentage: 5 }),
  '/v1/recurring-invoices': (ids) => ({
    client_id: ids.get('/v1/clients'),
    invoice: { line_items: [{ description: 'Plan', quantity: 1, unit_amount: 1000 }] },
    recurrence: { rrule: 'FREQ=WEEKLY', start_date: '2026-01-05' },
  }),
  '/v1/availability-exceptions': (ids) => ({
    team_member_id: ids.get('/v1/team-members'),
    start_at: '2031-01-06T09:00:00Z',
    duration_minutes: 60,
  }),
  '/v1/availability/holds': (ids) => ({
    start_at: '2031-01-07T09:00:00Z',
    duration_minutes: 60,
    team_member_ids: [ids.get('/v1/team-members')],
  }),
  '/v1/credit-notes': (ids) => ({ client_id: ids.get('/v1/clients'), amount: 100 }),
  '/v1/time-entries': (ids) => ({
    team_member_id: ids.get('/v1/team-members'),
    started_at: '2026-01-05T08:00:00Z',
    ended_at: '2026-01-05T09:00:00Z',
  }),
  '/v1/apps': () => ({
    name: 'Owner app',
    redirect_uris: ['https://app.example.test/callback'],
    install_url: 'https://app.example.test/install',
    scopes: ['clients:read'],
  }),
};

function concretePath(url: string): string {
  const collection = url.replace(/\/:id.*$/, '');
  const id = existing.get(collection) ?? '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f01';
  return url.replace(':id', id) + (ROUTE_QUERIES[url] ?? '');
}

function withoutMeta(response: ApiResponse) {
  return { status: response.status, error: response.body.error, wwwAuthenticate: response.headers['www-authenticate'] };
}

before(async () => {
  context = await createTestContext({ clock });
  owner = await context.account('Owner');
  stranger = await context.account('Stranger');
  const revoked = await context.key(owner.accountId, SCOPES);
  await context.database.db
    .updateTable('api_keys')
    .set({ revoked_at: clock.now().toISOString() })
    .where('id', '=', revoked.id)
    .execute();
  revokedKey = revoked.key;
  expiredKey = (await context.key(owner.accountId, SCOPES, { expiresAt: new Date(clock.now().getTime() + 1000) })).key;
  clock.advance(2000);
  for (const [collection, body] of Object.entries(SAMPLE_BODIES)) {
    if (collection === '/v1/payments') {
      const payable = await context.request('POST', '/v1/invoices', {
        key: owner.key,
        body: SAMPLE_BODIES['/v1/invoices']!(existing),
      });
      await context.request('PUT', `/v1/invoices/${payable.body.data.id}`, {
        key: owner.key,
        body: { status: 'sent' },
      });
      payableInvoiceId = payable.body.data.id;
    }
    const response = await context.request('POST', collection, { key: owner.key, body: body(existing) });
    assert.equal(response.status, 201, response.text);
    existing.set(collection, response.body.data.id);
  }
  // An install is made by redeeming a code (apps-oauth.test.ts drives that); here, its row is enough.
  const installId = '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f02';
  const now = clock.now().toISOString();
  await context.database.db
    .insertInto('app_installs')
    .values({
      id: installId,
      account_id: owner.accountId,
      app_id: existing.get('/v1/apps')!,
      scopes: JSON.stringify(['clients:read']),
      status: 'active',
      family_id: '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f03',
      rate_limit_per_minute: null,
      rate_limit_per_day: null,
      rate_limit_burst: null,
      installed_by_type: 'api_key',
      installed_by_id: null,
      installed_at: now,
      last_used_at: null,
      uninstalled_at: null,
      uninstalled_reason: null,
      created_at: now,
      updated_at: now,
    })
    .execute();
  existing.set('/v1/app-installs', installId);
  // A tag is made by its first use (contract section 27).
  await context.request('POST', `/v1/clients/${existing.get('/v1/clients')}/tags`, {
    key: owner.key,
    body: { tags: ['Owner tag'] },
  });
  const tags = await context.request('GET', '/v1/tags', { key: owner.key });
  existing.set('/v1/tags', tags.body.data[0].id);
  // An attachment (contract §30): an upload is no JSON body, so it is made here rather than in SAMPLE_BODIES.
  const upload = await context.request(
    'POST',
    `/v1/attachments?parent_type=client&parent_id=${existing.get('/v1/clients')}&filename=notes.txt`,
    { key: owner.key, rawBody: Buffer.from('Gate code 4512'), headers: { 'content-type': 'text/plain' } },
  );
  assert.equal(upload.status, 201, upload.text);
  existing.set('/v1/attachments', upload.body.data.id);
  const events = await context.request('GET', '/v1/events?limit=1', { key: owner.key });
  existing.set('/v1/events', events.body.data[0].id);
  // The payment made above posted ledger entries (contract §22).
  const entries = await context.request('GET', '/v1/ledger-entries?limit=1', { key: owner.key });
  existing.set('/v1/ledger-entries', entries.body.data[0].id);
});
after(() => context.close());

test("the /v1 routes are exactly the seed's and the contract's endpoints, each requiring its scope", () => {
  const routes = context.app.routeTable.routes.filter(
    (route) => route.url.startsWith('/v1/') && route.url !== '/v1/openapi.json',
  );
  const declared = Object.fromEntries(
    routes
      .map((route) => [`${route.method} ${route.url}`, route.scope ?? '(authenticated)'])
      .filter(([route]) => !['GET /v1/changes', 'POST /v1/change-sets', 'GET /v1/exports/:list'].includes(route ?? '')),
  );
  assert.deepEqual(declared, SEED_ENDPOINTS);
  // A change set has no scope of its own: each of its operations needs its own; the change feed needs each
  // kind's read scope, an export its list's (contract §26); an app token's own install needs none (§25).
  assert.deepEqual(
    routes
      .filter((route) => route.scope === undefined)
      .map((route) => `${route.method} ${route.url}`)
      .sort(),
    [
      'DELETE /v1/app-installs/current',
      'GET /v1/app-installs/current',
      'GET /v1/changes',
      'GET /v1/exports/:list',
      'POST /v1/change-sets',
    ],
  );
});

test('the CLI and the server know exactly the scopes of the seed and the contract', async () => {
  const { SCOPES: known } = await import('../src/kernel/scopes.js');
  assert.deepEqual([...known].sort(), [...SCOPES].sort());
});

describe('per route, from the route table', () => {
  // The route table is complete once the app is built; `before` has run by the time these tests run.
  test('401, 403 and cross-account 404 on every route', async (t) => {
    const routes = context.app.routeTable.routes.filter((route) => route.scope);
    for (const [index, route] of routes.entries()) {
      await t.test(`${route.method} ${route.url}`, async () => {
        const url = concretePath(route.url);
        const scope = SEED_ENDPOINTS[`${route.method} ${route.url}`];
        assert.ok(scope, 'a route of the seed');
        // Each route's failures come from their own address, so the per-IP limit on failed
        // authentication (tested in rate-limit.test.ts) does not turn these 401s into 429s.
        const remoteAddress = `10.0.0.${index + 1}`;
        const request = (method: string, path: string, options: Parameters<TestContext['request']>[2] = {}) =>
          context.request(method, path, { remoteAddress, ...options });
        const body = ['POST', 'PUT'].includes(route.method) ? {} : undefined;

        const missing = await request(route.method, url, { body });
        assert.deepEqual(withoutMeta(missing), {
          status: 401,
          error: {
            code: 'AUTHENTICATION_REQUIRED',
            message: 'Send your API key as "Authorization: Bearer <API_KEY>".',
          },
          wwwAuthenticate: 'Bearer realm="bms"',
        });
        assert.ok(missing.body.meta.request_id);

        // Malformed, unknown, revoked and expired keys are indistinguishable.
        const invalid = [
          await request(route.method, url, { body, headers: { authorization: 'Basic dXNlcjpwYXNz' } }),
          await request(route.method, url, { body, key: 'not-a-key' }),
          await request(route.method, url, { body, key: `bms_${'A'.repeat(40)}` }),
          await request(route.method, url, { body, key: revokedKey }),
          await request(route.method, url, { body, key: expiredKey }),
        ].map(withoutMeta);
        for (const response of invalid) {
          assert.deepEqual(response, {
            status: 401,
            error: {
              code: 'INVALID_API_KEY',
              message: 'The API key is not valid. It may be mistyped, revoked or expired.',
            },
            wwwAuthenticate: 'Bearer realm="bms", error="invalid_token"',
          });
        }

        const { key: narrowKey } = await context.key(
          owner.accountId,
          SCOPES.filter((other) => other !== scope),
        );
        const forbidden = await request(route.method, url, { body, key: narrowKey });
        assert.deepEqual(withoutMeta(forbidden), {
          status: 403,
          error: {
            code: 'INSUFFICIENT_SCOPE',
            message: `This API key lacks the scope '${scope}' that this operation requires.`,
          },
          wwwAuthenticate: `Bearer realm="bms", error="insufficient_scope", scope="${scope}"`,
        });
        const { key: exactKey } = await context.key(owner.accountId, [
          scope as (typeof SCOPES)[number],
          ...(SECOND_SCOPES[`${route.method} ${route.url}`] ?? []),
        ]);
        // An unknown id, so that an admitted DELETE or send changes nothing: 404 (or 422 for an empty
        // create) shows the request went past the scope check.
        const admitted = await request(route.method, route.url.replace(':id', '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f01'), {
          body,
          key: exactKey,
        });
        // An upload's body is never JSON (contract §30): the JSON sent here is 415, past the scope check.
        const admittedStatuses = NOT_JSON_BODIES.has(`${route.method} ${route.url}`) ? [415] : [200, 404, 422];
        assert.ok(
          admittedStatuses.includes(admitted.status),
          `its own scope alone admits the request: ${admitted.status} ${admitted.text}`,
        );

        if (route.url.includes(':id')) {
          const foreign = await request(route.method, url, {
            key: stranger.key,
            body: ['POST', 'PUT'].includes(route.method) ? (ACTION_BODIES[route.url]?.() ?? {}) : undefined,
          });
          assert.equal(foreign.status, 404, `another account's id is 404: ${foreign.text}`);
          assert.equal(foreign.body.error.code, 'NOT_FOUND');
          const own = await request('GET', url.replace(/^(\/v1\/[a-z-]+\/[^/]+)\/.+$/, '$1'), { key: owner.key });
          assert.equal(own.status, 200, 'the object is untouched and still there for its owner');
        }
      });
    }
  });
});

test("a stranger's list does not show the owner's objects", async () => {
  for (const listed of existing.keys()) {
    // Attachments are listed per kind of parent (contract §30).
    const collection = listed === '/v1/attachments' ? `${listed}?parent_type=client` : listed;
    const response = await context.request('GET', collection, { key: stranger.key });
    assert.equal(response.status, 200);
    // The stranger's own keys are listed to it; none of the owner's.
    if (collection === '/v1/api-keys')
      assert.ok(!response.body.data.some((item: { id: string }) => item.id === existing.get(listed)));
    else assert.deepEqual(response.body.data, []);
    const own = await context.request('GET', collection, { key: owner.key });
    assert.ok(own.body.data.length >= 1);
  }
});

test('the order of checks: 401 before 415/422, 403 before body validation', async () => {
  const noKeyBadBody = await context.request('POST', '/v1/clients', {
    rawBody: '{oops',
    headers: { 'content-type': 'text/plain' },
  });
  assert.equal(noKeyBadBody.status, 401);
  const { key: readOnly } = await context.key(owner.accountId, ['clients:read']);
  const forbiddenBadBody = await context.request('POST', '/v1/clients', {
    key: readOnly,
    rawBody: '{oops',
    headers: { 'content-type': 'application/json' },
  });
  assert.equal(forbiddenBadBody.status, 403);
});

test('a key is looked up by hash: the secret is not stored, last_used_at is kept', async () => {
  const { id, key } = await context.key(owner.accountId, ['clients:read']);
  assert.ok(isUuid(id));
  const before = await context.database.db
    .selectFrom('api_keys')
    .selectAll()
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
  assert.equal(before.last_used_at, null);
  assert.doesNotMatch(JSON.stringify(before), new RegExp(key.slice(4)));
  assert.equal(before.prefix, key.slice(0, 12));
  await context.request('GET', '/v1/clients', { key });
  const afterUse = await context.database.db
    .selectFrom('api_keys')
    .select('last_used_at')
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
  assert.equal(afterUse.last_used_at, clock.now().toISOString());
});

test('keys are bms_ plus 40 base62 characters and all differ', async () => {
  const keys = await Promise.all(Array.from({ length: 20 }, () => context.key(owner.accountId, ['clients:read'])));
  for (const { key } of keys) assert.match(key, /^bms_[0-9A-Za-z]{40}$/);
  assert.equal(new Set(keys.map(({ key }) => key)).size, 20);
});

test('a key expiring now stops working at that instant', async () => {
  const { key } = await context.key(owner.accountId, ['clients:read'], {
    expiresAt: new Date(clock.now().getTime() + 60_000),
  });
  assert.equal((await context.request('GET', '/v1/clients', { key })).status, 200);
  clock.advance(60_000);
  assert.equal((await context.request('GET', '/v1/clients', { key })).status, 401);
});

test('making a document from another needs that one’s scope too, checked before it is looked up', async () => {
  const ids = Object.fromEntries(existing);
  const unknown = '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f01';
  const client = ids['/v1/clients'];
  // Each row: the key's scopes, the create, and the scope the link needs (contract section 3).
  const cases: Array<[string[], string, Record<string, unknown>, string]> = [
    [['invoices:write'], '/v1/invoices', { job_id: ids['/v1/jobs'] }, 'jobs:read'],
    [['invoices:write'], '/v1/invoices', { job_id: unknown }, 'jobs:read'],
    [['invoices:write', 'quotes:read'], '/v1/invoices', { quote_id: ids['/v1/quotes'] }, 'quotes:write'],
    [['jobs:write'], '/v1/jobs', { quote_id: ids['/v1/quotes'] }, 'quotes:write'],
    [
      ['jobs:write'],
      '/v1/jobs',
      { client_id: client, title: 'Fix', request_id: ids['/v1/service-requests'] },
      'requests:write',
    ],
    [['quotes:write'], '/v1/quotes', { client_id: client, request_id: unknown }, 'requests:write'],
  ];
  for (const [scopes, path, body, needed] of cases) {
    const { key } = await context.key(owner.accountId, scopes as never);
    const response = await context.request('POST', path, { key, body });
    assert.equal(response.status, 403, `${path} ${JSON.stringify(body)} with ${scopes}: ${response.text}`);
    assert.equal(response.body.error.code, 'INSUFFICIENT_SCOPE');
    assert.equal(
      response.headers['www-authenticate'],
      `Bearer realm="bms", error="insufficient_scope", scope="${needed}"`,
    );
  }
  assert.equal(
    (await context.request('GET', `/v1/service-requests/${ids['/v1/service-requests']}`, { key: owner.key })).body.data
      .status,
    'new',
    'nothing was converted',
  );
  const { key: both } = await context.key(owner.accountId, ['invoices:write', 'jobs:read']);
  const made = await context.request('POST', '/v1/invoices', { key: both, body: { job_id: ids['/v1/jobs'] } });
  assert.equal(made.status, 201, made.text);
  assert.equal(
    (await context.request('POST', '/v1/invoices', { key: both, body: { job_id: unknown } })).status,
    422,
    'with the scope, an unknown job is a 422 on job_id',
  );
});

test('a revoked key is looked up exactly as an unknown one: not found (so their timing is alike)', async () => {
  const { findApiKeyByHash } = await import('../src/modules/api-keys/api-keys.repository.js');
  const { hashApiKey } = await import('../src/modules/api-keys/api-keys.service.js');
  const unknown = await findApiKeyByHash(
    context.database.db,
    hashApiKey(`bms_${'Q'.repeat(40)}`, context.config.apiKeyPepper),
  );
  const revoked = await findApiKeyByHash(context.database.db, hashApiKey(revokedKey, context.config.apiKeyPepper));
  assert.equal(unknown, undefined);
  assert.equal(revoked, undefined);
});

describe('what a scope grants, as the guide says', () => {
  test('the guide’s scope table says that webhooks:write receives every event and that hosted_url acts as the customer', () => {
    const guide = fs.readFileSync(new URL('../docs/guide/access.md', import.meta.url), 'utf8');
    const section = guide.slice(guide.indexOf('## Scopes'), guide.indexOf('## Rate limits'));
    const row = (scope: string) =>
      section.split('\n').find((line) => line.startsWith('|') && line.includes(`\`${scope}\``)) ?? '';
    assert.match(row('webhooks:write'), /every event's data/);
    for (const scope of ['quotes:read', 'invoices:read', 'events:read'])
      assert.match(row(scope), /hosted_url.*acts as the customer/, scope);
  });
});
