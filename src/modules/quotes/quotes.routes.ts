// Quote endpoints: the five standard operations; app.ts adds the actions of a sent document (send, the
// hosted link's rotation) from sent-documents, which stands above quotes.
import { tagSeam } from '../tags/index.js';
import { customFieldSeam } from '../custom-fields/index.js';
import { documentFieldChecks } from '../documents/index.js';
import type { ResourceAction } from '../../http/resource-definition.js';
import { resourceRoutes } from '../../http/resource-routes.js';
import { CreateQuoteBody, ListQuotesQuery, QuoteSchema, UpdateQuoteBody, type Quote } from './quotes.schemas.js';
import * as service from './quotes.service.js';
import { previewRoute } from '../../http/preview-route.js';
import { LINE_REFERENCES, referenceChecks } from '../shared/index.js';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { isUuid } from '../../core/deps.js';
import { notFound } from '../../core/errors.js';
import { contextOf } from '../../http/auth.js';
import { meta } from '../../http/envelope.js';
import { errorResponses, IdParamsSchema, listEnvelope } from '../../http/schemas.js';
import { pageQueryProperties } from '../../kernel/fields.js';
import { SignatureSchema } from './quotes.schemas.js';
import { findSignature, findSignatures, presentSignature } from './signatures.js';

/** POST /v1/quotes/preview (docs/api-contract.md §19): quotes:read; a service request named is read, not converted. */
export const quotePreviewRoutes = previewRoute({
  path: '/v1/quotes',
  names: ['quote', 'quotes'],
  scope: 'quotes:read',
  item: QuoteSchema,
  body: CreateQuoteBody,
  linkScopes: { request_id: 'requests:read' },
  errors: ['NOT_FOUND', 'INVALID_STATE', 'CONFLICT'],
  fieldChecks: documentFieldChecks,
  referenceChecks: referenceChecks(
    {
      client_id: { table: 'clients', kind: 'client' },
      property_id: { table: 'properties', kind: 'property' },
      request_id: { table: 'service_requests', kind: 'service request', scope: 'requests:read' },
    },
    LINE_REFERENCES,
  ),
  preview: (ctx, body) => service.previewQuote(ctx, body as Parameters<typeof service.previewQuote>[1]),
});

export const quoteRoutes = (actions: ReadonlyArray<ResourceAction<Quote>>) =>
  resourceRoutes({
    path: '/v1/quotes',
    names: ['quote', 'quotes'],
    scopes: { read: 'quotes:read', write: 'quotes:write', delete: 'quotes:delete' },
    schemas: { item: QuoteSchema, create: CreateQuoteBody, update: UpdateQuoteBody, list: ListQuotesQuery },
    // A quote from a service request converts it.
    linkScopes: { request_id: 'requests:write' },
    stateErrors: ['INVALID_STATE', 'CONFLICT'],
    // The lines' and discount's own checks join a 422 of the schema's.
    fieldChecks: documentFieldChecks,
    // Every unknown id of the body joins a 422 too (client, property, request, each line's product and rates).
    referenceChecks: {
      create: referenceChecks(
        {
          client_id: { table: 'clients', kind: 'client' },
          property_id: { table: 'properties', kind: 'property' },
          request_id: { table: 'service_requests', kind: 'service request', scope: 'requests:write' },
        },
        LINE_REFERENCES,
      ),
      update: referenceChecks(
        { client_id: { table: 'clients', kind: 'client' }, property_id: { table: 'properties', kind: 'property' } },
        LINE_REFERENCES,
      ),
    },
    customFields: customFieldSeam('quote'),
    tags: tagSeam('quote'),
    service: {
      list: service.listQuotes,
      present: service.presentQuote,
      create: service.createQuote,
      get: service.getQuote,
      update: service.updateQuote,
      delete: service.deleteQuote,
    },
    actions,
  });

const SignaturesQuery = Type.Object(pageQueryProperties, { additionalProperties: false });

const SignatureParams = Type.Object({
  id: Type.String({ description: 'The quote id.' }),
  signature_id: Type.String({ description: 'The signature id.' }),
});

/**
 * A quote's signatures (docs/api-contract.md §30): every hub approval's, oldest first, and the signed content
 * one binds, as the exact bytes its `document_sha256` hashes.
 */
export const quoteSignatureRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/v1/quotes/:id/signatures',
    {
      config: { scope: 'quotes:read' },
      schema: {
        tags: ['Quotes'],
        operationId: 'listQuoteSignatures',
        summary: 'List a quote’s signatures',
        description:
          'Every signature of a hub approval of the quote, oldest first, each bound to the SHA-256 of the signed content; a revised quote’s are invalidated.',
        params: IdParamsSchema,
        querystring: SignaturesQuery,
        response: { 200: listEnvelope(SignatureSchema), ...errorResponses('NOT_FOUND', 'VALIDATION_ERROR') },
      },
    },
    async (request) => {
      const ctx = contextOf(request);
      const quote = await service.getQuote(ctx, request.params.id);
      const rows = await findSignatures(ctx.db, ctx.accountId, quote.id);
      // A quote has a handful of signatures (one per approval): paged in memory, the cursor the last id given.
      const limit = request.query.limit ?? 25;
      const after = request.query.cursor ? Buffer.from(request.query.cursor, 'base64url').toString('utf8') : undefined;
      const start = after === undefined ? 0 : rows.findIndex((row) => row.id === after) + 1;
      const page = rows.slice(start, start + limit);
      const hasMore = start + limit < rows.length;
      const last = page.at(-1);
      return {
        data: page.map(presentSignature),
        meta: {
          ...meta(request),
          pagination: {
            limit,
            has_more: hasMore,
            next_cursor: hasMore && last ? Buffer.from(last.id, 'utf8').toString('base64url') : null,
          },
        },
      };
    },
  );

  app.get(
    '/v1/quotes/:id/signatures/:signature_id/document',
    {
      config: { scope: 'quotes:read' },
      schema: {
        tags: ['Quotes'],
        operationId: 'getQuoteSignatureDocument',
        summary: 'Get the signed content of a signature',
        description:
          'The RFC 8785 canonical JSON of the quote’s signed content as it was signed: the exact bytes whose SHA-256 is the signature’s document_sha256.',
        params: SignatureParams,
        response: {
          200: {
            description: 'The signed content’s canonical JSON bytes.',
            content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } },
          },
          ...errorResponses('NOT_FOUND'),
        },
      },
    },
    async (request, reply) => {
      const ctx = contextOf(request);
      const quote = await service.getQuote(ctx, request.params.id);
      const row = isUuid(request.params.signature_id)
        ? await findSignature(ctx.db, ctx.accountId, quote.id, request.params.signature_id)
        : undefined;
      if (!row) throw notFound('signature', request.params.signature_id);
      return reply
        .type('application/json')
        .header('etag', `"${row.document_sha256}"`)
        .send(Buffer.from(row.document, 'utf8'));
    },
  );
};
