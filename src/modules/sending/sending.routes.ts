// POST /v1/invoices/:id/send and POST /v1/quotes/:id/send.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { auth } from '../../http/auth.js';
import { etagOf } from '../../http/etag.js';
import { ok } from '../../http/envelope.js';
import { IdempotencyHeaders } from '../../http/idempotency.js';
import { BODY_ERRORS, IDEMPOTENCY_ERRORS, dataEnvelope, errorResponses, IdParamsSchema, schemaRef } from '../../http/schemas.js';
import { InvoiceSchema } from '../invoices/invoices.schemas.js';
import { QuoteSchema } from '../quotes/quotes.schemas.js';
import { SendBody, type SendInput } from './sending.schemas.js';
import { sendInvoice, sendQuote } from './sending.service.js';

const description =
  'Assigns the number on first send, moves the document to `sent` and queues an e-mail (text, HTML and a PDF) to the client’s stored address. ' +
  'Allowed from `draft` and `sent` (a re-send). The response does not wait for delivery.';

export const sendingRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post('/v1/invoices/:id/send', {
    config: { scope: 'invoices:send' },
    schema: { tags: ['Invoices'], summary: 'Send an invoice to its client', description, params: IdParamsSchema, headers: IdempotencyHeaders, body: SendBody, response: { 200: dataEnvelope(schemaRef(InvoiceSchema)), ...errorResponses(...BODY_ERRORS, ...IDEMPOTENCY_ERRORS, 'NOT_FOUND', 'INVALID_STATE') } },
  }, async (request, reply) => {
    const invoice = await sendInvoice(app.db, app.clock, auth(request).accountId, request.params.id, request.body as SendInput);
    reply.header('etag', etagOf(invoice));
    return ok(request, invoice);
  });

  app.post('/v1/quotes/:id/send', {
    config: { scope: 'quotes:send' },
    schema: { tags: ['Quotes'], summary: 'Send a quote to its client', description, params: IdParamsSchema, headers: IdempotencyHeaders, body: SendBody, response: { 200: dataEnvelope(schemaRef(QuoteSchema)), ...errorResponses(...BODY_ERRORS, ...IDEMPOTENCY_ERRORS, 'NOT_FOUND', 'INVALID_STATE') } },
  }, async (request, reply) => {
    const quote = await sendQuote(app.db, app.clock, auth(request).accountId, request.params.id, request.body as SendInput);
    reply.header('etag', etagOf(quote));
    return ok(request, quote);
  });
};
