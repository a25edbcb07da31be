// buildApp(): the one composition root, used by the server and by the tests. Plugins and modules are
// registered explicitly, in order, so the request flow can be followed from here.
import Fastify, { LogController, type FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Config } from './config.js';
import { GRANTABLE_SCOPES } from './kernel/scopes.js';
import type { Database } from './db/index.js';
import { systemClock, type Clock } from './core/deps.js';
import { TestClock } from './core/test-clock.js';
import { testClockRoutes, type WorkerPasses } from './http/test-clock.routes.js';
import './http/fastify-types.js';
import { registerAuthentication } from './http/auth.js';
import { clientErrorHandler, newRequestId, serverFactory } from './http/connections.js';
import { AppError } from './core/errors.js';
import { registerErrorHandling, sendError } from './http/error-handler.js';
import { registerIdempotency } from './http/idempotency.js';
import { registerOperationChecks } from './http/operation-checks.js';
import { registerMetrics } from './http/metrics.js';
import { REDACTED_LOG_PATHS } from './http/log-redaction.js';
import { logRequest, requestLoggerFactory } from './http/request-log.js';
import { BODY_LIMIT_BYTES, registerJsonBodyParser } from './http/json-body.js';
import { bufferedStdout } from './http/log-destination.js';
import { registerOverloadShedding } from './http/overload.js';
import { registerStorableTextCheck } from './http/storable-text.js';
import { registerStrictQueries } from './http/query-strings.js';
import { StorageHealth } from './http/storage-health.js';
import { RateLimiter } from './http/rate-limit/rate-limiter.js';
import { FailOpenStore, MemoryStore, RedisStore, type RateLimitStore } from './http/rate-limit/stores.js';
import { RouteTable, trackRoutes } from './http/route-table.js';
import { documentationRoutes } from './http/documentation.js';
import { standardDocument } from './http/openapi-document.js';
import { webhookDocumentation } from './http/openapi-webhooks.js';
import { ErrorEnvelopeSchema } from './http/schemas.js';
import { buildSerializer, buildSerializerOnFirstUse } from './http/serializers.js';
import { compiledOnFirstUse, schemaCompiler } from './http/validation.js';
import { clientRoutes } from './modules/clients/clients.routes.js';
import { ClientSchema } from './modules/clients/index.js';
import { teamMemberRoutes } from './modules/team-members/team-members.routes.js';
import { TeamMemberSchema } from './modules/team-members/index.js';
import { visitRoutes } from './modules/visits/visits.routes.js';
import { VisitListItemSchema, VisitSchema } from './modules/visits/index.js';
import { visitScheduleRoutes } from './modules/visit-schedules/visit-schedules.routes.js';
import { projectOccurrences, VisitScheduleSchema } from './modules/visit-schedules/index.js';
import { ProductSchema, TaxRateSchema } from './modules/catalog/index.js';
import { productRoutes } from './modules/catalog/products.routes.js';
import { taxRateRoutes } from './modules/catalog/tax-rates.routes.js';
import { propertyRoutes } from './modules/properties/properties.routes.js';
import { deletePropertiesOfClient, PropertySchema } from './modules/properties/index.js';
import { invoicePreviewRoutes, invoiceRoutes } from './modules/invoices/invoices.routes.js';
import { InvoiceSchema } from './modules/invoices/index.js';
import { jobRoutes } from './modules/jobs/jobs.routes.js';
import { DeliverySchema } from './modules/sent-documents/index.js';
import { documentFileRoutes } from './modules/sent-documents/document-files.routes.js';
import { einvoiceRoutes } from './modules/einvoices/einvoices.routes.js';
import { EinvoiceValidationSchema, freezeCreditNote, freezeEinvoice } from './modules/einvoices/index.js';
import { onCreditNoteIssued } from './modules/credit-notes/index.js';
import { onInvoiceSent } from './modules/invoices/index.js';
import { apiKeyAuthenticator, ApiKeySchema } from './modules/api-keys/index.js';
import { apiKeyRoutes } from './modules/api-keys/api-keys.routes.js';
import { changeSetRoutes } from './modules/change-sets/change-sets.routes.js';
import { ImportRowSchema, ImportSchema } from './modules/imports/index.js';
import { importRoutes } from './modules/imports/imports.routes.js';
import { exportRoutes } from './modules/exports/exports.routes.js';
import { ChangeSetSchema } from './modules/change-sets/index.js';
import { ChangeSchema, changeRoutes } from './modules/events/changes.routes.js';
import {
  accessTokenAuthenticator,
  AppDeliverySchema,
  AppInstallSchema,
  AppSchema,
  type AppSettings,
  InstallLinkSchema,
  isAccessToken,
} from './modules/apps/index.js';
import { appRoutes } from './modules/apps/apps.routes.js';
import { installRoutes } from './modules/apps/installs.routes.js';
import { oauthRoutes } from './modules/apps/oauth.routes.js';
import { mcpRoutes } from './mcp/mcp.routes.js';
import { creditNoteActions, invoiceActions, quoteActions } from './modules/sent-documents/sending.routes.js';
import { accountRoutes } from './modules/accounts/accounts.routes.js';
import { hubRoutes } from './modules/sent-documents/hub.routes.js';
import { AccountSchema } from './modules/accounts/index.js';
import { PdfPool } from './mail/pdf-pool.js';
import { eventRoutes } from './modules/events/events.routes.js';
import { EventSchema } from './modules/events/index.js';
import { paymentRoutes } from './modules/invoices/payments.routes.js';
import { PaymentSchema } from './modules/invoices/index.js';
import { JobSchema } from './modules/jobs/index.js';
import { quotePreviewRoutes, quoteRoutes, quoteSignatureRoutes } from './modules/quotes/quotes.routes.js';
import { QuoteSchema } from './modules/quotes/index.js';
import { serviceRequestRoutes } from './modules/service-requests/service-requests.routes.js';
import { ServiceRequestSchema } from './modules/service-requests/index.js';
import { systemRoutes } from './modules/system/system.routes.js';
import { attachmentRoutes } from './modules/attachments/attachments.routes.js';
import { AttachmentSchema, type AttachmentStore, openAttachmentStore } from './modules/attachments/index.js';
import { recurringInvoiceRoutes } from './modules/recurring-invoices/recurring-invoices.routes.js';
import { RecurringInvoiceSchema } from './modules/recurring-invoices/index.js';
import { billTimeAction, timeEntryRoutes } from './modules/time-entries/time-entries.routes.js';
import { JobCostingSchema, TimeEntrySchema, TimeLockSchema } from './modules/time-entries/index.js';
import { customFieldRoutes } from './modules/custom-fields/custom-fields.routes.js';
import { CustomFieldSchema, CustomFieldsSchemaSchema } from './modules/custom-fields/index.js';
import { tagRoutes } from './modules/tags/tags.routes.js';
import { TagSchema } from './modules/tags/index.js';
import { webhookRoutes } from './modules/events/webhooks.routes.js';
import { ledgerRoutes } from './modules/ledger/ledger.routes.js';
import { reportRoutes } from './modules/reports/reports.routes.js';
import { creditNotePreviewRoutes, creditNoteRoutes } from './modules/credit-notes/credit-notes.routes.js';
import { CreditNoteSchema } from './modules/credit-notes/index.js';
import { ClientBalanceSchema, LedgerEntrySchema } from './modules/ledger/index.js';
import {
  AgedReceivablesReportSchema,
  ClientStatementReportSchema,
  JobProfitabilityReportSchema,
  RevenueReportSchema,
  TaxSummaryReportSchema,
} from './modules/reports/index.js';
import { WebhookDeliverySchema, WebhookEndpointSchema } from './modules/events/index.js';
import { availabilityRoutes } from './modules/availability/availability.routes.js';
import { availabilityExceptionRoutes } from './modules/availability/exceptions.routes.js';
import {
  AvailabilityExceptionSchema,
  bookHold,
  HoldSchema,
  resolveHold,
  SlotSchema,
} from './modules/availability/index.js';

/** An API answer is data, never a page: no sniffing, framing or referrers; HTTPS remembered. */
const SECURITY_HEADERS = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'strict-transport-security': 'max-age=31536000',
};
/** What a key can see must not be kept by shared caches or proxies. */
const AUTHENTICATED_HEADERS = { ...SECURITY_HEADERS, 'cache-control': 'no-store' };

export interface AppDependencies {
  database: Database;
  clock?: Clock;
  /** Where rate-limit buckets live; from REDIS_URL (else the process) when absent. */
  rateLimitStore?: RateLimitStore;
  /** A destination for the JSON log lines (tests capture them); stdout when absent. */
  logStream?: NodeJS.WritableStream;
  /** The PDF renderer; a pool of config.pdf's size, closed with the app, when absent. */
  pdf?: PdfPool;
  /**
   * The workers' single passes that `POST /test/workers/run` runs (config.testClock only); the composition that
   * starts the workers fills it, after the app is built.
   */
  workerPasses?: WorkerPasses;
  /** Where attachments' bytes are kept; the one ATTACHMENTS_STORE names, closed with the app, when absent. */
  attachmentStore?: AttachmentStore;
  /**
   * Compile each route's request validators and response serializer when the route is first used, not at
   * start-up (the tests' apps, and `COMPILE_SCHEMAS=on-first-use`). The same schemas, compiled alike; only when.
   */
  compileOnFirstUse?: boolean;
}

/** The process's clock: the one given, else the test clock when config.testClock, else the system's. */
function clockOf(config: Config, given: Clock | undefined): Clock {
  if (!config.testClock) return given ?? systemClock;
  if (given === undefined) return new TestClock();
  if (!(given instanceof TestClock)) throw new Error('BMS_TEST_CLOCK=true needs the app built with a TestClock');
  return given;
}

/** Every tag an operation uses, in the order the reference shows them. */
const API_TAGS = [
  { name: 'Clients', description: 'The people and businesses you work for.' },
  { name: 'Properties', description: 'The places where a client has work done: service addresses.' },
  { name: 'Service requests', description: 'What a client asked for, before it is quoted.' },
  { name: 'Quotes', description: 'Priced offers, sent to the client to approve.' },
  { name: 'Jobs', description: 'Scheduled work, from an approved quote or on its own.' },
  { name: 'Visits', description: 'Scheduled occurrences of a job, with their people: the calendar.' },
  { name: 'Visit schedules', description: 'Repeating visits: a job’s visits on an RFC 5545 rule in local time.' },
  { name: 'Invoices', description: 'Bills sent to the client, and what is still due.' },
  {
    name: 'Recurring invoices',
    description: 'Templates that make an invoice on each date of a rule, in the account’s zone.',
  },
  { name: 'Payments', description: 'Money received against an invoice, and refunds.' },
  { name: 'Credit notes', description: 'Credit given to a client: applied to invoices, refunded or kept.' },
  { name: 'Ledger', description: 'Every move of a client’s money, append-only, and the client’s balance.' },
  {
    name: 'Reports',
    description: 'Aged receivables, statements, revenue and tax from the ledger, each repeatable at its sequence.',
  },
  { name: 'Events', description: 'Everything that changed, newest first: what webhooks deliver.' },
  { name: 'Webhook endpoints', description: 'Where events are delivered, signed per Standard Webhooks.' },
  { name: 'Webhooks', description: 'The requests BMS sends to your endpoints.' },
  { name: 'Account', description: 'The business profile and logo printed on documents.' },
  { name: 'Team members', description: 'The people of the business who are assigned work.' },
  {
    name: 'Availability exceptions',
    description: 'Time off and extra hours of team members, beside their weekly working hours.',
  },
  { name: 'Availability', description: 'Bookable slots, and holds that keep one for a key until it books.' },
  {
    name: 'API keys',
    description: 'Keys made, limited, rolled and revoked through the API, never beyond the calling key.',
  },
  { name: 'Apps', description: 'Third-party apps this account publishes: OAuth clients of this server.' },
  { name: 'App installs', description: 'Apps connected to this account through OAuth, and their install links.' },
  { name: 'Products', description: 'The price list: services, materials and fees that lines are made from.' },
  { name: 'Tax rates', description: 'Named, printed tax rates (GST, QST, VAT), compound or not.' },
  { name: 'Time entries', description: 'Members’ time on jobs and visits: timers, costs, approval and locks.' },
  {
    name: 'Change sets',
    description: 'Up to 50 operations in one transaction, all or none, with a dry run that leaves nothing behind.',
  },
  { name: 'Custom fields', description: 'Typed fields of your own on nine kinds of objects, checked and filterable.' },
  { name: 'Tags', description: 'Tags on six kinds of objects, renamed and deleted everywhere at once.' },
  {
    name: 'Imports',
    description:
      'CSV files of clients, properties, products or invoices, checked row by row, with a dry run and a report.',
  },
  { name: 'Exports', description: 'Every object of a list as CSV or NDJSON, streamed from one snapshot.' },
  {
    name: 'Attachments',
    description: 'Photos, documents and signatures on clients, quotes, jobs, visits and invoices, checked and cleaned.',
  },
  { name: 'System', description: 'Liveness and readiness, without an API key.' },
];

const API_DESCRIPTION = `REST API for small service businesses: clients, service requests, quotes, jobs and invoices.

Authenticate with \`Authorization: Bearer <API_KEY>\`. Every response carries \`meta.request_id\` and \`meta.timestamp\`;
errors carry \`error.code\`, \`error.message\` and, for validation errors, \`error.details\`.`;

export async function buildApp(config: Config, dependencies: AppDependencies): Promise<FastifyInstance> {
  const routes = new RouteTable();
  const stdout = dependencies.logStream ? undefined : bufferedStdout();
  const app = Fastify({
    logger: {
      level: config.logLevel,
      redact: { paths: ['authorization', ...REDACTED_LOG_PATHS], censor: '[redacted]' },
      // Synchronous writes of a bounded buffer (http/log-destination.ts): pino's asynchronous mode is slower
      // here, and its buffer grows without bound under load.
      stream: dependencies.logStream ?? stdout!.stream,
    },
    genReqId: newRequestId,
    // One serializer per distinct response shape, not per route and status (http/serializers.ts).
    schemaController: {
      compilersFactory: {
        buildSerializer: dependencies.compileOnFirstUse ? buildSerializerOnFirstUse : buildSerializer,
      },
    },
    serverFactory: serverFactory(config),
    clientErrorHandler,
    // Our own ids only: a client-chosen X-Request-Id could collide or forge log lines.
    requestIdHeader: false,
    bodyLimit: BODY_LIMIT_BYTES,
    // On SIGTERM, a request arriving on an open connection is still served (with Connection: close)
    // rather than refused with Fastify's own 503 body: nothing that reached us is dropped.
    return503OnClosing: false,
    // A number of hops trusts that many proxies nearest to us (hop 0 is the one that connected).
    trustProxy:
      typeof config.trustProxy === 'number'
        ? (_address: string, hop: number) => hop < (config.trustProxy as number)
        : config.trustProxy,
    // One line per request, written by the onResponse hook below, instead of Fastify's two.
    logController: new LogController({ disableRequestLogging: true }),
    // A request's child logger is made only if something logs through it (http/request-log.ts).
    childLoggerFactory: requestLoggerFactory,
    frameworkErrors: (error, request, reply) => {
      sendError(
        request,
        reply,
        new AppError(error.code === 'FST_ERR_BAD_URL' ? 'NOT_FOUND' : 'BAD_REQUEST', error.message),
      );
    },
  }).withTypeProvider<TypeBoxTypeProvider>();

  if (stdout) app.addHook('onClose', () => stdout.close());
  app.decorate('database', dependencies.database);
  app.decorate('db', dependencies.database.db);
  const clock = clockOf(config, dependencies.clock);
  app.decorate('clock', clock);
  const workerPasses: WorkerPasses = dependencies.workerPasses ?? new Map();
  app.decorate('workerPasses', workerPasses);
  app.decorate('links', { publicBaseUrl: config.publicBaseUrl });
  app.decorate('storage', new StorageHealth());
  const pdf = dependencies.pdf ?? new PdfPool(config.pdf);
  app.decorate('pdf', pdf);
  if (!dependencies.pdf) app.addHook('onClose', () => pdf.close());
  // An invoice's e-invoice is frozen at its send, validated in this app's pool (contract §31).
  const stopFreezing = onInvoiceSent((tx, invoice) => freezeEinvoice(tx, pdf, invoice));
  const stopFreezingNotes = onCreditNoteIssued((tx, note) => freezeCreditNote(tx, pdf, note));
  app.addHook('onClose', async () => {
    stopFreezing();
    stopFreezingNotes();
  });
  const attachmentStore = dependencies.attachmentStore ?? openAttachmentStore(config.attachments);
  if (!dependencies.attachmentStore) app.addHook('onClose', () => attachmentStore.close());
  const attachmentSettings = {
    store: attachmentStore,
    maxBytes: config.attachments.maxBytes,
    sharedBytesPerSecond: config.attachments.sharedBytesPerSecond,
  };
  app.setValidatorCompiler(dependencies.compileOnFirstUse ? compiledOnFirstUse(schemaCompiler) : schemaCompiler);
  app.addSchema({ ...ErrorEnvelopeSchema, $id: 'ErrorEnvelope' });
  for (const schema of [
    ClientSchema,
    PropertySchema,
    ServiceRequestSchema,
    QuoteSchema,
    JobSchema,
    VisitSchema,
    VisitListItemSchema,
    VisitScheduleSchema,
    InvoiceSchema,
    RecurringInvoiceSchema,
    PaymentSchema,
    CreditNoteSchema,
    EinvoiceValidationSchema,
    LedgerEntrySchema,
    ClientBalanceSchema,
    AgedReceivablesReportSchema,
    ClientStatementReportSchema,
    RevenueReportSchema,
    TaxSummaryReportSchema,
    JobProfitabilityReportSchema,
    EventSchema,
    WebhookEndpointSchema,
    WebhookDeliverySchema,
    DeliverySchema,
    AccountSchema,
    TeamMemberSchema,
    ApiKeySchema,
    AppSchema,
    AppInstallSchema,
    InstallLinkSchema,
    AppDeliverySchema,
    ProductSchema,
    TaxRateSchema,
    AvailabilityExceptionSchema,
    SlotSchema,
    HoldSchema,
    TimeEntrySchema,
    TimeLockSchema,
    JobCostingSchema,
    ChangeSetSchema,
    ChangeSchema,
    ImportSchema,
    ImportRowSchema,
    CustomFieldSchema,
    CustomFieldsSchemaSchema,
    TagSchema,
    AttachmentSchema,
  ])
    app.addSchema(schema);
  trackRoutes(app, routes);
  registerErrorHandling(app, routes);
  await registerOverloadShedding(app, config.overloadMaxEventLoopDelayMs);
  registerJsonBodyParser(app);
  registerStorableTextCheck(app);
  registerStrictQueries(app);

  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header('x-request-id', request.id);
    reply.headers(request.auth ? AUTHENTICATED_HEADERS : SECURITY_HEADERS);
    done(null, payload);
  });
  // One line per request (reqId, method, url with credentials redacted, status, ms): http/request-log.ts.
  app.addHook('onResponse', (request, reply, done) => {
    logRequest(app.log, request, reply);
    done();
  });
  // Prometheus metrics and GET /metrics, only when METRICS_TOKEN is set (http/metrics.ts).
  await registerMetrics(app, { token: config.metricsToken, database: dependencies.database });

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'BMS API',
        version: '1.0.0',
        description: API_DESCRIPTION,
        license: { name: 'MIT', identifier: 'MIT' },
        // A self-hosted service: whoever runs this server answers for it, and its reference is here.
        contact: { name: 'The operator of this BMS server', url: `${config.publicBaseUrl}/docs` },
      },
      servers: [{ url: config.publicBaseUrl, description: 'This server, as PUBLIC_BASE_URL names it.' }],
      tags: API_TAGS,
      webhooks: webhookDocumentation(),
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', description: 'An API key: bms_ followed by 40 characters.' },
          oauth2: {
            type: 'oauth2',
            description:
              'An app’s access token (bmsat_…), from the authorization-code flow with PKCE S256; it acts as a key holding the install’s scopes.',
            flows: {
              authorizationCode: {
                authorizationUrl: `${config.publicBaseUrl}/oauth/authorize`,
                tokenUrl: `${config.publicBaseUrl}/oauth/token`,
                refreshUrl: `${config.publicBaseUrl}/oauth/token`,
                scopes: Object.fromEntries(GRANTABLE_SCOPES.map((scope) => [scope, `The scope ${scope}.`])),
              },
            },
          },
        },
      },
    },
    // Standard OpenAPI only, named bodies and shared error answers (http/openapi-document.ts).
    transformObject: (document) => standardDocument('openapiObject' in document ? document.openapiObject : {}),
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, index) => String(json.$id ?? `def-${index}`) },
    transform: ({ schema: declared, url, route }) => {
      // A body that is not JSON (an upload) is described by the route for the document only: its
      // validation is the handler's (http/fastify-types.ts, `documentedBody`).
      const documentedBody = route.config?.documentedBody;
      const schema = documentedBody ? { ...declared, body: documentedBody } : declared;
      const scope = route.config?.scope;
      // An operation without a scope is public: `security: []` says so, rather than leaving it unstated.
      // A route that needs any key or token, whatever its scopes (an app token's own install).
      if (!scope && route.config?.authenticated && url.startsWith('/v1/'))
        return {
          schema: { ...schema, security: [{ bearerAuth: [] }, { oauth2: [] }] as Array<Record<string, string[]>> },
          url,
        };
      if (!scope) return { schema: { ...schema, security: [] }, url };
      const requires = `Requires the scope \`${scope}\`.`;
      return {
        schema: {
          ...schema,
          security: (GRANTABLE_SCOPES.includes(scope)
            ? [{ bearerAuth: [] }, { oauth2: [scope] }]
            : [{ bearerAuth: [] }]) as Array<Record<string, string[]>>,
          description: schema?.description ? `${schema.description}\n\n${requires}` : requires,
        },
        url,
      };
    },
  });
  await app.register(documentationRoutes);

  // With REDIS_URL every instance shares the buckets; if Redis fails, each process limits on its own.
  const store =
    dependencies.rateLimitStore ??
    (config.redisUrl
      ? new FailOpenStore(new RedisStore(config.redisUrl), new MemoryStore(), app.log)
      : new MemoryStore());
  const limiter = new RateLimiter(store);
  app.addHook('onClose', () => limiter.close());
  const appSettings: AppSettings = {
    pepper: config.apiKeyPepper,
    issuer: config.publicBaseUrl,
    accessTokenTtlSeconds: config.oauth.accessTokenTtlSeconds,
    refreshReuseGraceSeconds: config.oauth.refreshReuseGraceSeconds,
    allowHttpWebhooks: config.webhooks.allowHttp,
    allowPrivateWebhooks: config.webhooks.allowPrivate,
  };
  // A bearer credential is an API key, or an app's access token acting as its install (docs/api-contract.md §25).
  const keys = apiKeyAuthenticator(app.clock, config.apiKeyPepper);
  const tokens = accessTokenAuthenticator(app.clock, config.apiKeyPepper);
  registerAuthentication(app, {
    authenticate: (db, credential, ip) => (isAccessToken(credential) ? tokens : keys)(db, credential, ip),
    limiter,
    resourceMetadataUrl: `${config.publicBaseUrl}/.well-known/oauth-protected-resource`,
  });
  registerIdempotency(app, dependencies.database.db);
  registerOperationChecks(app);
  await app.register(systemRoutes, {
    readyChecks: [{ name: 'attachment store', check: () => attachmentStore.check() }],
  });
  await app.register(clientRoutes({ deleteWithClient: deletePropertiesOfClient }));
  await app.register(propertyRoutes);
  await app.register(serviceRequestRoutes);
  await app.register(quoteRoutes(quoteActions));
  await app.register(quotePreviewRoutes);
  await app.register(quoteSignatureRoutes);
  await app.register(jobRoutes(resolveHold));
  await app.register(visitRoutes, { project: projectOccurrences, book: bookHold });
  await app.register(visitScheduleRoutes);
  await app.register(invoiceRoutes([...invoiceActions, billTimeAction]));
  await app.register(invoicePreviewRoutes);
  await app.register(recurringInvoiceRoutes);
  await app.register(paymentRoutes);
  await app.register(creditNoteRoutes(creditNoteActions));
  await app.register(creditNotePreviewRoutes);
  await app.register(ledgerRoutes);
  await app.register(reportRoutes);
  await app.register(eventRoutes);
  await app.register(webhookRoutes(config.webhooks));
  await app.register(documentFileRoutes, { store: attachmentStore });
  await app.register(einvoiceRoutes);
  await app.register(accountRoutes);
  await app.register(teamMemberRoutes);
  await app.register(apiKeyRoutes(config.apiKeyPepper));
  await app.register(changeSetRoutes({ limiter }));
  await app.register(changeRoutes({ retentionDays: config.changeRetentionDays }));
  await app.register(importRoutes);
  await app.register(exportRoutes);
  await app.register(appRoutes(appSettings));
  await app.register(installRoutes(appSettings));
  await app.register(productRoutes);
  await app.register(taxRateRoutes);
  await app.register(timeEntryRoutes);
  await app.register(customFieldRoutes);
  await app.register(tagRoutes);
  await app.register(attachmentRoutes(attachmentSettings));
  if (clock instanceof TestClock) await app.register(testClockRoutes(clock, workerPasses));

  await app.register(availabilityExceptionRoutes);
  await app.register(availabilityRoutes);
  // The MCP server (docs/api-contract.md §20), authenticated and rate-limited by the same hook as /v1.
  await app.register(mcpRoutes(AUTHENTICATED_HEADERS));
  await app.register(hubRoutes({ links: config, limiter, attachments: attachmentSettings }), { prefix: '/hub' });
  // The OAuth 2.1 authorization server and its consent page (docs/api-contract.md §25).
  await app.register(oauthRoutes({ settings: appSettings, limiter }));

  app.decorate('routeTable', routes);
  return app;
}
