// What a sent document has beyond its fields: GET /v1/{quotes,invoices}/:id/pdf and …/deliveries.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type, type Static } from '@sinclair/typebox';
import { contextOf } from '../../http/auth.js';
import { noneMatch } from '../../http/etag.js';
import { listResponse } from '../../http/pagination.js';
import { errorResponses, IdParamsSchema, listEnvelope, schemaRef } from '../../http/schemas.js';
import type { Scope } from '../../kernel/scopes.js';
import { pageQueryProperties } from '../../kernel/fields.js';
import { DeliverySchema, listDeliveries, presentDelivery } from './deliveries.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { documentFile, type DocumentFile } from './document-files.js';
import type { SentKind } from '../documents/index.js';
import type { AttachmentStore } from '../attachments/index.js';

const DOCUMENTS: Array<{ kind: SentKind; path: string; tag: string; name: string; label: string; scope: Scope }> = [
  { kind: 'quote', path: '/v1/quotes', tag: 'Quotes', name: 'Quote', label: 'a quote', scope: 'quotes:read' },
  {
    kind: 'invoice',
    path: '/v1/invoices',
    tag: 'Invoices',
    name: 'Invoice',
    label: 'an invoice',
    scope: 'invoices:read',
  },
  {
    kind: 'credit_note',
    path: '/v1/credit-notes',
    tag: 'Credit notes',
    name: 'CreditNote',
    label: 'a credit note',
    scope: 'credit_notes:read',
  },
];

const PdfHeaders = Type.Object({
  'if-none-match': Type.Optional(
    Type.String({
      maxLength: 1000,
      description: 'An ETag from an earlier GET of this PDF: 304 while the document is unchanged.',
      example: '"f1dCq2lV0v9Xc7bW8HkY2uX4kR0sLmNp3qTt6yZzA1c"',
    }),
  ),
});
const ListDeliveriesQuery = Type.Object(pageQueryProperties, { additionalProperties: false });

/** The PDF with its ETag, or 304 when If-None-Match names that ETag (no rendering then). */
export async function sendDocumentFile(
  request: FastifyRequest,
  reply: FastifyReply,
  file: DocumentFile,
): Promise<FastifyReply> {
  reply.header('etag', file.etag);
  if (noneMatch(request.headers['if-none-match'], file.etag)) return reply.code(304).send();
  const pdf = await file.render();
  return reply.type('application/pdf').header('content-disposition', `inline; filename="${file.filename}"`).send(pdf);
}

/** The attachment store: an approved quote's PDF draws its drawn signature (docs/api-contract.md §30). */
export const documentFileRoutes: FastifyPluginAsyncTypebox<{ store: AttachmentStore }> = async (app, options) => {
  for (const { kind, path, tag, name, label, scope } of DOCUMENTS) {
    const noun = label.slice(label.indexOf(' ') + 1);
    app.get(
      `${path}/:id/pdf`,
      {
        config: { scope },
        schema: {
          tags: [tag],
          operationId: `get${name}Pdf`,
          summary: `Get the ${noun} as a PDF`,
          description:
            `The PDF e-mailed with the ${noun}, rendered from its current revision (a draft too): business and client blocks, every line, totals${kind === 'invoice' ? ', amount due, payment instructions and a PAID or VOID mark' : ''}. ` +
            'The same revision always gives the same bytes and ETag; send If-None-Match for a 304. Errors are JSON envelopes.',
          params: IdParamsSchema,
          headers: PdfHeaders,
          response: {
            200: {
              description: 'The PDF.',
              content: { 'application/pdf': { schema: { type: 'string', format: 'binary' } } },
            },
            304: { description: 'Unchanged since the ETag given in If-None-Match.', type: 'null' },
            ...errorResponses('NOT_FOUND'),
          },
        },
      },
      async (request, reply) => {
        return sendDocumentFile(
          request,
          reply,
          await documentFile(contextOf(request), app.pdf, kind, request.params.id, app.clock.now(), {
            store: options.store,
          }),
        );
      },
    );

    app.get(
      `${path}/:id/deliveries`,
      {
        config: { scope },
        schema: {
          tags: [tag],
          operationId: `list${name}Deliveries`,
          summary: `List the deliveries of ${label}`,
          description: `Every send of the ${noun} by e-mail, newest first, with what became of it. The ${noun}’s delivery_status is the first one’s status.`,
          params: IdParamsSchema,
          querystring: ListDeliveriesQuery,
          response: {
            200: listEnvelope(schemaRef(DeliverySchema)),
            ...errorResponses('VALIDATION_ERROR', 'NOT_FOUND'),
          },
        },
      },
      async (request, reply) => {
        const query = request.query as Static<typeof ListDeliveriesQuery>;
        const page = await listDeliveries(contextOf(request), kind, request.params.id, query);
        return listResponse(request, reply, page, query.limit, presentDelivery);
      },
    );
  }
};
