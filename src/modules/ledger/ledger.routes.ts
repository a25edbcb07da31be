// Ledger endpoints (reports:read): the entries, one entry, and a client's balance.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { contextOf } from '../../http/auth.js';
import { etagOf } from '../../http/etag.js';
import { ok } from '../../http/envelope.js';
import { listResponse } from '../../http/pagination.js';
import { dataEnvelope, errorResponses, IdParamsSchema, listEnvelope, schemaRef } from '../../http/schemas.js';
import {
  ClientBalanceSchema,
  LedgerEntrySchema,
  ListLedgerEntriesQuery,
  type ListLedgerEntriesInput,
} from './ledger.schemas.js';
import * as service from './ledger.service.js';

const tags = ['Ledger'];

export const ledgerRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const entry = schemaRef(LedgerEntrySchema);

  app.get(
    '/v1/ledger-entries',
    {
      config: { scope: 'reports:read' },
      schema: {
        tags,
        operationId: 'listLedgerEntries',
        summary: 'List ledger entries',
        description:
          'Every move of every client’s money, append-only. `sort=sequence` with `after_sequence` is a feed that never skips an entry.',
        querystring: ListLedgerEntriesQuery,
        response: { 200: listEnvelope(entry), ...errorResponses('VALIDATION_ERROR') },
      },
    },
    async (request, reply) => {
      const query = request.query as ListLedgerEntriesInput;
      return listResponse(
        request,
        reply,
        await service.listLedgerEntries(contextOf(request), query),
        query.limit,
        service.presentLedgerEntry,
      );
    },
  );

  app.get(
    '/v1/ledger-entries/:id',
    {
      config: { scope: 'reports:read' },
      schema: {
        tags,
        operationId: 'getLedgerEntry',
        summary: 'Get a ledger entry',
        params: IdParamsSchema,
        response: { 200: dataEnvelope(entry), ...errorResponses('NOT_FOUND') },
      },
    },
    async (request, reply) => {
      const found = await service.getLedgerEntry(contextOf(request), request.params.id);
      reply.header('etag', etagOf(found));
      return ok(request, found);
    },
  );

  app.get(
    '/v1/clients/:id/balance',
    {
      config: { scope: 'reports:read' },
      schema: {
        tags,
        operationId: 'getClientBalance',
        summary: 'Get a client’s balance',
        description:
          'Per currency: what the client owes on sent invoices, the credit it holds (unapplied payments, credit notes), and the difference.',
        params: IdParamsSchema,
        response: { 200: dataEnvelope(schemaRef(ClientBalanceSchema)), ...errorResponses('NOT_FOUND') },
      },
    },
    async (request) => ok(request, await service.getClientBalance(contextOf(request), request.params.id)),
  );
};
