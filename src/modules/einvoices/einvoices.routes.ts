// GET /v1/invoices/:id/einvoice and /v1/credit-notes/:id/einvoice (docs/api-contract.md §31): the document as an
// EN 16931 e-invoice, and POST …/einvoice/validate, which checks it against BMS's rules, the XSD and the
// EN 16931 Schematron.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { contextOf } from '../../http/auth.js';
import { ok } from '../../http/envelope.js';
import { noneMatch } from '../../http/etag.js';
import { BODY_ERRORS, dataEnvelope, errorResponses, IdParamsSchema, schemaRef } from '../../http/schemas.js';
import type { Scope } from '../../kernel/scopes.js';
import type { EinvoiceKind } from './einvoice.model.js';
import { type EinvoiceFormat, einvoiceFile, facturxFile } from './einvoices.service.js';
import { EinvoiceValidationSchema, validateEinvoice } from './validation.service.js';

const DOCUMENTS: Array<{ kind: EinvoiceKind; path: string; tag: string; name: string; noun: string; scope: Scope }> = [
  { kind: 'invoice', path: '/v1/invoices', tag: 'Invoices', name: 'Invoice', noun: 'invoice', scope: 'invoices:read' },
  {
    kind: 'credit_note',
    path: '/v1/credit-notes',
    tag: 'Credit notes',
    name: 'CreditNote',
    noun: 'credit note',
    scope: 'credit_notes:read',
  },
];

const EinvoiceQuery = Type.Object(
  {
    format: Type.Unsafe<EinvoiceFormat>({
      type: 'string',
      enum: ['ubl', 'cii', 'facturx'],
      description:
        'ubl: a UBL 2.1 Invoice (CreditNote for a credit note); cii: a UN/CEFACT CII D16B CrossIndustryInvoice; facturx: the PDF as a PDF/A-3b with that CII embedded as factur-x.xml (Factur-X 1.0, EN 16931).',
      example: 'ubl',
    }),
  },
  { additionalProperties: false },
);
const ValidateBody = Type.Object(
  {
    format: Type.Unsafe<EinvoiceFormat>({
      type: 'string',
      enum: ['ubl', 'cii', 'facturx'],
      description: 'ubl or cii: that file; facturx: its CII, then the embedding (factur-x.xml, /AF, the XMP).',
      example: 'cii',
    }),
  },
  { additionalProperties: false },
);

const Headers = Type.Object({
  'if-none-match': Type.Optional(
    Type.String({ maxLength: 1000, description: 'An ETag from an earlier GET of this file: 304 while unchanged.' }),
  ),
});

export const einvoiceRoutes: FastifyPluginAsyncTypebox = async (app) => {
  for (const { kind, path, tag, name, noun, scope } of DOCUMENTS) {
    app.get(
      `${path}/:id/einvoice`,
      {
        config: { scope },
        schema: {
          tags: [tag],
          operationId: `get${name}Einvoice`,
          summary: `Get the ${noun} as an EN 16931 e-invoice`,
          description:
            `The ${noun} as an EN 16931 core e-invoice (CustomizationID urn:cen.eu:en16931:2017) in UBL 2.1 or CII D16B, as an attachment named by its number. ` +
            `Amounts are in major units; the figures are the ${noun}’s own and valid by construction. With the account’s einvoicing_enabled, the three files are frozen when the ${noun} is ${kind === 'invoice' ? 'sent' : 'issued'} and answered byte for byte from then on. ` +
            `A draft is 409 INVALID_STATE; a ${noun} that cannot be an e-invoice is 422 with one detail per reason, each with its rule (EN 16931’s id, else BMS-EI-01…07). Send If-None-Match for a 304.`,
          params: IdParamsSchema,
          querystring: EinvoiceQuery,
          headers: Headers,
          response: {
            200: {
              description: 'The e-invoice.',
              content: {
                'application/xml': { schema: { type: 'string' } },
                'application/pdf': { schema: { type: 'string', format: 'binary' } },
              },
            },
            304: { description: 'Unchanged since the ETag given in If-None-Match.', type: 'null' },
            ...errorResponses('VALIDATION_ERROR', 'NOT_FOUND', 'INVALID_STATE', 'SERVICE_UNAVAILABLE'),
          },
        },
      },
      async (request, reply) => {
        const { format } = request.query as { format: EinvoiceFormat };
        const ctx = contextOf(request);
        const file =
          format === 'facturx'
            ? await facturxFile(ctx, app.pdf, kind, request.params.id, app.clock.now())
            : await einvoiceFile(ctx, kind, request.params.id, format, app.clock.now());
        reply.header('etag', file.etag);
        if (noneMatch(request.headers['if-none-match'], file.etag)) return reply.code(304).send();
        return reply
          .type(file.contentType)
          .header('content-disposition', `attachment; filename="${file.filename}"`)
          .send(file.bytes);
      },
    );

    app.post(
      `${path}/:id/einvoice/validate`,
      {
        config: { scope },
        schema: {
          tags: [tag],
          operationId: `validate${name}Einvoice`,
          summary: `Validate the ${noun}’s e-invoice`,
          description:
            `Checks the ${noun}’s e-invoice as GET …/einvoice answers it: the files frozen when it was ${kind === 'invoice' ? 'sent' : 'issued'} (whatever changed since), else built from it as it stands (a draft too: numbered DRAFT, dated today). BMS’s own checks, then the XSD, then the EN 16931 Schematron (CEN validation artefacts 1.3.15). ` +
            'valid is true when no error is fatal; each error names its rule, severity, XPath location and message. Runs in the rendering pool, bounded by PDF_RENDER_TIMEOUT_MS.',
          params: IdParamsSchema,
          body: ValidateBody,
          response: {
            200: dataEnvelope(schemaRef(EinvoiceValidationSchema)),
            ...errorResponses(...BODY_ERRORS, 'NOT_FOUND', 'SERVICE_UNAVAILABLE'),
          },
        },
      },
      async (request) => {
        const body = request.body as { format: EinvoiceFormat };
        return ok(
          request,
          await validateEinvoice(contextOf(request), app.pdf, kind, request.params.id, body.format, app.clock.now()),
        );
      },
    );
  }
};
