// CSV import endpoints (docs/api-contract.md §26, "Imports"): imports:read / imports:write, plus the kind's write
// scope to make or apply one. The file is the API's one body that is not JSON: `text/csv`, at most 10 MiB.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { auth, contextOf, requireScope } from '../../http/auth.js';
import { created, meta, ok } from '../../http/envelope.js';
import { IdempotencyHeaders } from '../../http/idempotency.js';
import { listResponse, withCursor } from '../../http/pagination.js';
import {
  BODY_ERRORS,
  dataEnvelope,
  errorResponses,
  IDEMPOTENCY_ERRORS,
  IdParamsSchema,
  listEnvelope,
  schemaRef,
} from '../../http/schemas.js';
import { IMPORT_LIMITS, utf8Text } from './import-csv.js';
import { KIND_SPECS } from './import-fields.js';
import { presentImport } from './import-present.js';
import {
  CreateImportBody,
  ImportRowSchema,
  ImportSchema,
  ListImportRowsQuery,
  ListImportsQuery,
  NoBody,
} from './imports.schemas.js';
import * as service from './imports.service.js';

const tags = ['Imports'];

export const importRoutes: FastifyPluginAsyncTypebox = async (app) => {
  // The file, as text: a body that is not UTF-8 reaches the service as NOT_TEXT, which fails the import (§32).
  app.addContentTypeParser('text/csv', { parseAs: 'buffer', bodyLimit: IMPORT_LIMITS.bytes }, (_request, body, done) =>
    done(null, utf8Text(body as Buffer) ?? service.NOT_TEXT),
  );

  app.get(
    '/v1/imports',
    {
      config: { scope: 'imports:read' },
      schema: {
        tags,
        operationId: 'listImports',
        summary: 'List imports',
        querystring: ListImportsQuery,
        response: { 200: listEnvelope(schemaRef(ImportSchema)), ...errorResponses('VALIDATION_ERROR') },
      },
    },
    async (request, reply) => {
      const page = await service.listImports(contextOf(request), request.query);
      return listResponse(request, reply, page, request.query.limit, presentImport);
    },
  );

  app.post(
    '/v1/imports',
    {
      config: { scope: 'imports:write' },
      schema: {
        tags,
        operationId: 'createImport',
        summary: 'Create an import',
        description:
          'Makes an import of one kind (client, property, product or invoice) awaiting its file (`PUT /v1/imports/:id/file`). Also needs the kind’s write scope.',
        headers: IdempotencyHeaders,
        body: CreateImportBody,
        response: {
          201: dataEnvelope(schemaRef(ImportSchema)),
          ...errorResponses(...BODY_ERRORS, ...IDEMPOTENCY_ERRORS, 'INSUFFICIENT_SCOPE'),
        },
      },
    },
    async (request, reply) => {
      requireScope(request, KIND_SPECS[request.body.kind].writeScope);
      const made = await service.createImport(contextOf(request), request.body, auth(request).scopes);
      return created(request, reply, '/v1/imports', made);
    },
  );

  app.get(
    '/v1/imports/:id',
    {
      config: { scope: 'imports:read' },
      schema: {
        tags,
        operationId: 'getImport',
        summary: 'Get an import',
        params: IdParamsSchema,
        response: { 200: dataEnvelope(schemaRef(ImportSchema)), ...errorResponses('NOT_FOUND') },
      },
    },
    async (request) => ok(request, await service.getImport(contextOf(request), request.params.id)),
  );

  app.put(
    '/v1/imports/:id/file',
    {
      config: { scope: 'imports:write' },
      bodyLimit: IMPORT_LIMITS.bytes,
      schema: {
        tags,
        operationId: 'uploadImportFile',
        summary: 'Upload an import’s CSV file',
        description:
          'The CSV file as the body, `Content-Type: text/csv` (the API’s one body that is not JSON), at most 10 MiB: UTF-8, a header row, then a row per object (invoices: a row per line). Again while the import is queued; then `409`. Answers 202: the worker reads it.',
        consumes: ['text/csv'],
        params: IdParamsSchema,
        body: Type.String({ description: 'The CSV text.', example: 'name,email\r\nLena Park,lena@example.com\r\n' }),
        response: {
          202: dataEnvelope(schemaRef(ImportSchema)),
          ...errorResponses(...BODY_ERRORS, 'NOT_FOUND', 'INVALID_STATE'),
        },
      },
    },
    async (request, reply) => {
      const answer = await service.attachFile(contextOf(request), request.params.id, request.body);
      reply.code(202);
      return ok(request, answer);
    },
  );

  app.post(
    '/v1/imports/:id/apply',
    {
      config: { scope: 'imports:write' },
      schema: {
        tags,
        operationId: 'applyImport',
        summary: 'Apply a dry run: the same file as a real import',
        description:
          'Makes a completed dry run a real import of the same file, mapping and options, queued at once (a new import). Also needs the kind’s write scope.',
        headers: IdempotencyHeaders,
        params: IdParamsSchema,
        body: NoBody,
        response: {
          201: dataEnvelope(schemaRef(ImportSchema)),
          ...errorResponses(...BODY_ERRORS, ...IDEMPOTENCY_ERRORS, 'NOT_FOUND', 'INVALID_STATE', 'INSUFFICIENT_SCOPE'),
        },
      },
    },
    async (request, reply) => {
      const ctx = contextOf(request);
      const source = await service.getImport(ctx, request.params.id);
      requireScope(request, KIND_SPECS[source.kind].writeScope);
      return created(request, reply, '/v1/imports', await service.applyDryRun(ctx, source.id));
    },
  );

  app.post(
    '/v1/imports/:id/cancel',
    {
      config: { scope: 'imports:write' },
      schema: {
        tags,
        operationId: 'cancelImport',
        summary: 'Cancel an import',
        description:
          'Stops an import that has not ended: rows already committed stay, the others are reported skipped.',
        headers: IdempotencyHeaders,
        params: IdParamsSchema,
        body: NoBody,
        response: {
          200: dataEnvelope(schemaRef(ImportSchema)),
          ...errorResponses(...BODY_ERRORS, ...IDEMPOTENCY_ERRORS, 'NOT_FOUND', 'INVALID_STATE'),
        },
      },
    },
    async (request) => ok(request, await service.cancelImport(contextOf(request), request.params.id)),
  );

  app.get(
    '/v1/imports/:id/rows',
    {
      config: { scope: 'imports:read' },
      schema: {
        tags,
        operationId: 'listImportRows',
        summary: 'List an import’s report: each row’s outcome',
        params: IdParamsSchema,
        querystring: ListImportRowsQuery,
        response: {
          200: listEnvelope(schemaRef(ImportRowSchema)),
          ...errorResponses('NOT_FOUND', 'VALIDATION_ERROR'),
        },
      },
    },
    async (request, reply) => {
      const page = await service.listReport(contextOf(request), request.params.id, request.query);
      if (page.nextCursor) reply.header('link', `<${withCursor(request.url, page.nextCursor)}>; rel="next"`);
      return {
        data: page.items,
        meta: {
          ...meta(request),
          pagination: { limit: request.query.limit ?? 25, has_more: page.hasMore, next_cursor: page.nextCursor },
        },
      };
    },
  );

  app.get(
    '/v1/imports/:id/errors.csv',
    {
      config: { scope: 'imports:read' },
      schema: {
        tags,
        operationId: 'getImportErrorsCsv',
        summary: 'Download the failed rows as CSV, with an errors column',
        description:
          'The failed rows as they were sent, in the file’s columns, and an `errors` column: fix them and upload them again in a new import. UTF-8 with a BOM, CRLF, formulas escaped.',
        params: IdParamsSchema,
        response: {
          200: {
            description: 'The failed rows as CSV.',
            content: { 'text/csv': { schema: { type: 'string', description: 'RFC 4180, UTF-8 with a BOM, CRLF.' } } },
          },
          ...errorResponses('NOT_FOUND'),
        },
      },
    },
    async (request, reply) => {
      const text = await service.failedRowsCsv(contextOf(request), request.params.id);
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="import-${request.params.id}-errors.csv"`)
        .send(Buffer.from(text, 'utf8'));
    },
  );
};
