// The OpenAPI document as integrators' linters read it: Spectral's `spectral:oas` ruleset finds no error and no
// warning, Redocly's `recommended` no error, and every operation has the operationId the SDKs are named after
// (stated here literally).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { createTestContext, temporaryDirectory, type TestContext } from './helpers/context.js';
import { ROOT } from './helpers/processes.js';

let context: TestContext;
let document: {
  paths: Record<string, Record<string, { operationId?: string; tags?: string[] }>>;
  tags?: Array<{ name: string }>;
  servers?: unknown[];
  info: { contact?: unknown };
};

before(async () => {
  context = await createTestContext();
  document = (await context.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json();
});
after(() => context.close());

const OPERATIONS: Array<[string, string]> = [
  ['GET /health', 'getHealth'],
  ['GET /ready', 'getReadiness'],
  ['GET /v1/clients', 'listClients'],
  ['POST /v1/clients', 'createClient'],
  ['GET /v1/clients/{id}', 'getClient'],
  ['PUT /v1/clients/{id}', 'updateClient'],
  ['DELETE /v1/clients/{id}', 'deleteClient'],
  ['GET /v1/properties', 'listProperties'],
  ['POST /v1/properties', 'createProperty'],
  ['GET /v1/properties/{id}', 'getProperty'],
  ['PUT /v1/properties/{id}', 'updateProperty'],
  ['DELETE /v1/properties/{id}', 'deleteProperty'],
  ['GET /v1/service-requests', 'listServiceRequests'],
  ['POST /v1/service-requests', 'createServiceRequest'],
  ['GET /v1/service-requests/{id}', 'getServiceRequest'],
  ['PUT /v1/service-requests/{id}', 'updateServiceRequest'],
  ['GET /v1/quotes', 'listQuotes'],
  ['POST /v1/quotes', 'createQuote'],
  ['GET /v1/quotes/{id}', 'getQuote'],
  ['PUT /v1/quotes/{id}', 'updateQuote'],
  ['DELETE /v1/quotes/{id}', 'deleteQuote'],
  ['POST /v1/quotes/{id}/send', 'sendQuote'],
  ['POST /v1/quotes/{id}/hosted-link/rotate', 'rotateQuoteHostedLink'],
  ['GET /v1/quotes/{id}/pdf', 'getQuotePdf'],
  ['GET /v1/quotes/{id}/deliveries', 'listQuoteDeliveries'],
  ['GET /v1/jobs', 'listJobs'],
  ['POST /v1/jobs', 'createJob'],
  ['GET /v1/jobs/{id}', 'getJob'],
  ['PUT /v1/jobs/{id}', 'updateJob'],
  ['DELETE /v1/jobs/{id}', 'deleteJob'],
  ['GET /v1/invoices', 'listInvoices'],
  ['POST /v1/invoices', 'createInvoice'],
  ['GET /v1/invoices/{id}', 'getInvoice'],
  ['PUT /v1/invoices/{id}', 'updateInvoice'],
  ['DELETE /v1/invoices/{id}', 'deleteInvoice'],
  ['POST /v1/invoices/{id}/send', 'sendInvoice'],
  ['POST /v1/invoices/{id}/hosted-link/rotate', 'rotateInvoiceHostedLink'],
  ['GET /v1/invoices/{id}/pdf', 'getInvoicePdf'],
  ['GET /v1/invoices/{id}/deliveries', 'listInvoiceDeliveries'],
  ['GET /v1/payments', 'listPayments'],
  ['POST /v1/payments', 'createPayment'],
  ['GET /v1/payments/{id}', 'getPayment'],
  ['PUT /v1/payments/{id}', 'updatePayment'],
  ['POST /v1/payments/{id}/refund', 'refundPayment'],
  ['POST /v1/payments/{id}/apply', 'applyPayment'],
  ['POST /v1/payments/{id}/unapply', 'unapplyPayment'],
  ['GET /v1/ledger-entries', 'listLedgerEntries'],
  ['GET /v1/ledger-entries/{id}', 'getLedgerEntry'],
  ['GET /v1/clients/{id}/balance', 'getClientBalance'],
  ['GET /v1/reports/aged-receivables', 'getReportsAgedReceivables'],
  ['GET /v1/reports/client-statement', 'getReportsClientStatement'],
  ['GET /v1/reports/revenue', 'getReportsRevenue'],
  ['GET /v1/reports/tax-summary', 'getReportsTaxSummary'],
  ['GET /v1/reports/job-profitability', 'getReportsJobProfitability'],
  ['GET /v1/credit-notes', 'listCreditNotes'],
  ['POST /v1/credit-notes', 'createCreditNote'],
  ['GET /v1/credit-notes/{id}', 'getCreditNote'],
  ['PUT /v1/credit-notes/{id}', 'updateCreditNote'],
  ['DELETE /v1/credit-notes/{id}', 'deleteCreditNote'],
  ['POST /v1/credit-notes/{id}/apply', 'applyCreditNote'],
  ['POST /v1/credit-notes/{id}/unapply', 'unapplyCreditNote'],
  ['POST /v1/credit-notes/{id}/refund', 'refundCreditNote'],
  ['POST /v1/credit-notes/preview', 'previewCreditNote'],
  ['POST /v1/credit-notes/{id}/send', 'sendCreditNote'],
  ['POST /v1/credit-notes/{id}/hosted-link/rotate', 'rotateCreditNoteHostedLink'],
  ['GET /v1/credit-notes/{id}/pdf', 'getCreditNotePdf'],
  ['GET /v1/credit-notes/{id}/deliveries', 'listCreditNoteDeliveries'],
  ['GET /v1/invoices/{id}/einvoice', 'getInvoiceEinvoice'],
  ['POST /v1/invoices/{id}/einvoice/validate', 'validateInvoiceEinvoice'],
  ['GET /v1/credit-notes/{id}/einvoice', 'getCreditNoteEinvoice'],
  ['POST /v1/credit-notes/{id}/einvoice/validate', 'validateCreditNoteEinvoice'],
  ['GET /v1/events', 'listEvents'],
  ['GET /v1/events/{id}', 'getEvent'],
  ['POST /v1/events/{id}/resend', 'resendEvent'],
  ['GET /v1/webhook-endpoints', 'listWebhookEndpoints'],
  ['POST /v1/webhook-endpoints', 'createWebhookEndpoint'],
  ['GET /v1/webhook-endpoints/{id}', 'getWebhookEndpoint'],
  ['PUT /v1/webhook-endpoints/{id}', 'updateWebhookEndpoint'],
  ['DELETE /v1/webhook-endpoints/{id}', 'deleteWebhookEndpoint'],
  ['POST /v1/webhook-endpoints/{id}/rotate-secret', 'rotateWebhookEndpointSecret'],
  ['POST /v1/webhook-endpoints/{id}/test', 'testWebhookEndpoint'],
  ['GET /v1/webhook-endpoints/{id}/deliveries', 'listWebhookEndpointDeliveries'],
  ['POST /v1/webhook-endpoints/{id}/recover', 'recoverWebhookEndpoint'],
  ['GET /v1/account', 'getAccount'],
  ['PUT /v1/account', 'updateAccount'],
  ['PUT /v1/account/logo', 'uploadAccountLogo'],
  ['DELETE /v1/account/logo', 'deleteAccountLogo'],
  ['GET /v1/team-members', 'listTeamMembers'],
  ['POST /v1/team-members', 'createTeamMember'],
  ['GET /v1/team-members/{id}', 'getTeamMember'],
  ['PUT /v1/team-members/{id}', 'updateTeamMember'],
  ['DELETE /v1/team-members/{id}', 'deleteTeamMember'],
  // Contract section 20: keys through the API.
  ['GET /v1/api-keys', 'listApiKeys'],
  ['POST /v1/api-keys', 'createApiKey'],
  ['GET /v1/api-keys/{id}', 'getApiKey'],
  ['PUT /v1/api-keys/{id}', 'updateApiKey'],
  ['DELETE /v1/api-keys/{id}', 'revokeApiKey'],
  ['GET /v1/visits', 'listVisits'],
  ['POST /v1/visits', 'createVisit'],
  ['GET /v1/visits/{id}', 'getVisit'],
  ['PUT /v1/visits/{id}', 'updateVisit'],
  ['DELETE /v1/visits/{id}', 'deleteVisit'],
  ['POST /v1/visits/{id}/assignees', 'addVisitAssignee'],
  ['DELETE /v1/visits/{id}/assignees/{team_member_id}', 'removeVisitAssignee'],
  ['POST /v1/api-keys/{id}/roll', 'rollApiKey'],
  // Contract section 18: visit schedules.
  ['GET /v1/visit-schedules', 'listVisitSchedules'],
  ['POST /v1/visit-schedules', 'createVisitSchedule'],
  ['GET /v1/visit-schedules/{id}', 'getVisitSchedule'],
  ['PUT /v1/visit-schedules/{id}', 'updateVisitSchedule'],
  ['DELETE /v1/visit-schedules/{id}', 'deleteVisitSchedule'],
  ['POST /v1/visit-schedules/{id}/skip', 'skipVisitSchedule'],
  ['POST /v1/visit-schedules/{id}/unskip', 'unskipVisitSchedule'],
  ['POST /v1/visit-schedules/{id}/pause', 'pauseVisitSchedule'],
  ['POST /v1/visit-schedules/{id}/resume', 'resumeVisitSchedule'],
  ['POST /v1/visit-schedules/{id}/split', 'splitVisitSchedule'],
  ['GET /v1/visit-schedules/{id}/occurrences', 'listVisitScheduleOccurrences'],
  // Contract section 19.
  ['GET /v1/products', 'listProducts'],
  ['POST /v1/products', 'createProduct'],
  ['GET /v1/products/{id}', 'getProduct'],
  ['PUT /v1/products/{id}', 'updateProduct'],
  ['DELETE /v1/products/{id}', 'deleteProduct'],
  ['GET /v1/tax-rates', 'listTaxRates'],
  ['POST /v1/tax-rates', 'createTaxRate'],
  ['GET /v1/tax-rates/{id}', 'getTaxRate'],
  ['PUT /v1/tax-rates/{id}', 'updateTaxRate'],
  ['DELETE /v1/tax-rates/{id}', 'deleteTaxRate'],
  ['POST /v1/quotes/preview', 'previewQuote'],
  ['POST /v1/invoices/preview', 'previewInvoice'],
  // Contract section 23.
  ['GET /v1/recurring-invoices', 'listRecurringInvoices'],
  ['POST /v1/recurring-invoices', 'createRecurringInvoice'],
  ['GET /v1/recurring-invoices/{id}', 'getRecurringInvoice'],
  ['PUT /v1/recurring-invoices/{id}', 'updateRecurringInvoice'],
  ['DELETE /v1/recurring-invoices/{id}', 'deleteRecurringInvoice'],
  ['POST /v1/recurring-invoices/{id}/skip', 'skipRecurringInvoice'],
  ['POST /v1/recurring-invoices/{id}/unskip', 'unskipRecurringInvoice'],
  ['POST /v1/recurring-invoices/{id}/pause', 'pauseRecurringInvoice'],
  ['POST /v1/recurring-invoices/{id}/resume', 'resumeRecurringInvoice'],
  ['GET /v1/recurring-invoices/{id}/occurrences', 'listRecurringInvoiceOccurrences'],
  // Contract section 28.
  ['GET /v1/availability-exceptions', 'listAvailabilityExceptions'],
  ['POST /v1/availability-exceptions', 'createAvailabilityException'],
  ['GET /v1/availability-exceptions/{id}', 'getAvailabilityException'],
  ['PUT /v1/availability-exceptions/{id}', 'updateAvailabilityException'],
  ['DELETE /v1/availability-exceptions/{id}', 'deleteAvailabilityException'],
  ['GET /v1/availability', 'listAvailability'],
  ['POST /v1/availability/holds', 'createAvailabilityHold'],
  ['GET /v1/availability/holds', 'listAvailabilityHolds'],
  ['GET /v1/availability/holds/{id}', 'getAvailabilityHold'],
  ['DELETE /v1/availability/holds/{id}', 'releaseAvailabilityHold'],
  ['POST /v1/time-entries/start', 'startTimeEntry'],
  ['POST /v1/time-entries/approve', 'bulkApproveTimeEntries'],
  ['POST /v1/time-entries/lock', 'lockTimeEntries'],
  ['POST /v1/time-entries/unlock', 'unlockTimeEntries'],
  ['GET /v1/time-entries', 'listTimeEntries'],
  ['POST /v1/time-entries', 'createTimeEntry'],
  ['GET /v1/time-entries/{id}', 'getTimeEntry'],
  ['PUT /v1/time-entries/{id}', 'updateTimeEntry'],
  ['DELETE /v1/time-entries/{id}', 'deleteTimeEntry'],
  ['POST /v1/time-entries/{id}/stop', 'stopTimeEntry'],
  ['POST /v1/time-entries/{id}/approve', 'approveTimeEntry'],
  ['POST /v1/time-entries/{id}/unapprove', 'unapproveTimeEntry'],
  ['POST /v1/invoices/{id}/time-entries', 'billInvoiceTimeEntries'],
  ['GET /v1/jobs/{id}/costing', 'getJobCosting'],
  // Contract section 26.
  ['POST /v1/change-sets', 'createChangeSet'],
  ['GET /v1/changes', 'listChanges'],
  ['GET /v1/apps', 'listApps'],
  ['POST /v1/apps', 'createApp'],
  ['GET /v1/apps/{id}', 'getApp'],
  ['PUT /v1/apps/{id}', 'updateApp'],
  ['DELETE /v1/apps/{id}', 'deleteApp'],
  ['POST /v1/apps/{id}/roll-secret', 'rollAppSecret'],
  ['POST /v1/apps/{id}/rotate-webhook-secret', 'rotateAppWebhookSecret'],
  ['GET /v1/apps/{id}/deliveries', 'listAppDeliveries'],
  ['PUT /v1/apps/{id}/logo', 'uploadAppLogo'],
  ['DELETE /v1/apps/{id}/logo', 'deleteAppLogo'],
  ['POST /v1/app-install-links', 'createAppInstallLink'],
  ['GET /v1/app-installs', 'listAppInstalls'],
  ['GET /v1/app-installs/current', 'getCurrentAppInstall'],
  ['DELETE /v1/app-installs/current', 'deleteCurrentAppInstall'],
  ['GET /v1/app-installs/{id}', 'getAppInstall'],
  ['PUT /v1/app-installs/{id}', 'updateAppInstall'],
  ['DELETE /v1/app-installs/{id}', 'deleteAppInstall'],
  ['GET /v1/custom-fields/schema', 'getCustomFieldsSchema'],
  ['GET /v1/custom-fields', 'listCustomFields'],
  ['POST /v1/custom-fields', 'createCustomField'],
  ['GET /v1/custom-fields/{id}', 'getCustomField'],
  ['PUT /v1/custom-fields/{id}', 'updateCustomField'],
  ['DELETE /v1/custom-fields/{id}', 'deleteCustomField'],
  ['POST /v1/clients/{id}/tags', 'addClientTags'],
  ['DELETE /v1/clients/{id}/tags/{tag}', 'removeClientTag'],
  ['POST /v1/properties/{id}/tags', 'addPropertyTags'],
  ['DELETE /v1/properties/{id}/tags/{tag}', 'removePropertyTag'],
  ['POST /v1/quotes/{id}/tags', 'addQuoteTags'],
  ['DELETE /v1/quotes/{id}/tags/{tag}', 'removeQuoteTag'],
  ['POST /v1/jobs/{id}/tags', 'addJobTags'],
  ['DELETE /v1/jobs/{id}/tags/{tag}', 'removeJobTag'],
  ['POST /v1/invoices/{id}/tags', 'addInvoiceTags'],
  ['DELETE /v1/invoices/{id}/tags/{tag}', 'removeInvoiceTag'],
  ['POST /v1/visits/{id}/tags', 'addVisitTags'],
  ['DELETE /v1/visits/{id}/tags/{tag}', 'removeVisitTag'],
  ['GET /v1/tags', 'listTags'],
  ['GET /v1/tags/{id}', 'getTag'],
  ['PUT /v1/tags/{id}', 'renameTag'],
  ['DELETE /v1/tags/{id}', 'deleteTag'],
  ['GET /v1/imports', 'listImports'],
  ['POST /v1/imports', 'createImport'],
  ['GET /v1/imports/{id}', 'getImport'],
  ['PUT /v1/imports/{id}/file', 'uploadImportFile'],
  ['POST /v1/imports/{id}/apply', 'applyImport'],
  ['POST /v1/imports/{id}/cancel', 'cancelImport'],
  ['GET /v1/imports/{id}/rows', 'listImportRows'],
  ['GET /v1/imports/{id}/errors.csv', 'getImportErrorsCsv'],
  ['GET /v1/exports/{list}', 'downloadExport'],
  ['GET /v1/attachments', 'listAttachments'],
  ['POST /v1/attachments', 'createAttachment'],
  ['GET /v1/attachments/{id}', 'getAttachment'],
  ['PUT /v1/attachments/{id}', 'updateAttachment'],
  ['DELETE /v1/attachments/{id}', 'deleteAttachment'],
  ['GET /v1/attachments/{id}/content', 'downloadAttachment'],
  ['GET /v1/quotes/{id}/signatures', 'listQuoteSignatures'],
  ['GET /v1/quotes/{id}/signatures/{signature_id}/document', 'getQuoteSignatureDocument'],
];

test('every operation has the operationId the SDKs use, and every tag it uses is declared', () => {
  const found = Object.entries(document.paths).flatMap(([route, operations]) =>
    Object.entries(operations).map(
      ([method, operation]) =>
        [`${method.toUpperCase()} ${route}`, operation.operationId] as [string, string | undefined],
    ),
  );
  assert.deepEqual(new Map(found), new Map(OPERATIONS));
  const declared = new Set((document.tags ?? []).map((tag) => tag.name));
  for (const operations of Object.values(document.paths))
    for (const operation of Object.values(operations))
      for (const tag of operation.tags ?? []) assert.ok(declared.has(tag), `tag ${tag} is declared`);
  assert.ok((document.servers ?? []).length > 0 && document.info.contact, 'servers and contact');
});

test('Spectral (spectral:oas) reports no error and no warning', () => {
  const directory = temporaryDirectory('bms-spectral-');
  try {
    const file = path.join(directory, 'openapi.json');
    fs.writeFileSync(file, JSON.stringify(document));
    const spectral = path.join(ROOT, 'node_modules/@stoplight/spectral-cli/dist/index.js');
    const report = path.join(directory, 'report.json');
    const result = spawnSync(
      process.execPath,
      [
        spectral,
        'lint',
        file,
        '--ruleset',
        path.join(ROOT, '.spectral.yaml'),
        '--format',
        'json',
        '--output',
        report,
        '--fail-severity',
        'hint',
      ],
      { encoding: 'utf8' },
    );
    const problems = JSON.parse(fs.readFileSync(report, 'utf8')) as Array<{
      code: string;
      severity: number;
      path: string[];
    }>;
    assert.deepEqual(
      problems.map((problem) => `${problem.code} at ${problem.path.join('.')}`),
      [],
      result.stderr,
    );
    assert.equal(result.status, 0, result.stderr);
  } finally {
    fs.rmSync(directory, { recursive: true, force: true });
  }
});

test('Redocly (recommended) reports no error; its two warnings are the public checks without a 4xx', () => {
  const directory = temporaryDirectory('bms-redocly-');
  try {
    const file = path.join(directory, 'openapi.json');
    fs.writeFileSync(file, JSON.stringify(document));
    const redocly = path.join(ROOT, 'node_modules/@redocly/cli/bin/cli.js');
    const result = spawnSync(
      process.execPath,
      [redocly, 'lint', '--extends', 'recommended', '--format', 'json', file],
      {
        encoding: 'utf8',
        cwd: directory,
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
      },
    );
    const report = JSON.parse(result.stdout) as {
      totals: { errors: number; warnings: number };
      problems: Array<{ ruleId: string; severity: string; location: Array<{ pointer: string }> }>;
    };
    assert.deepEqual(
      report.problems.map((problem) => `${problem.severity} ${problem.ruleId} at ${problem.location[0]?.pointer}`),
      [
        // Liveness and readiness answer 200 or 503 and nothing else: there is no 4xx to declare.
        'warn operation-4xx-response at #/paths/~1health/get/responses',
        'warn operation-4xx-response at #/paths/~1ready/get/responses',
      ],
      result.stderr,
    );
    assert.equal(report.totals.errors, 0);
    assert.equal(result.status, 0, result.stderr);
  } finally {
    fs.rmSync(directory, { recursive: true, force: true });
  }
});
