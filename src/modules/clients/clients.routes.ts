// Client endpoints: schema + scope + service call + envelope, nothing more.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { auth } from '../../http/auth.js';
import { created, ok } from '../../http/envelope.js';
import { listResponse } from '../../http/pagination.js';
import { dataEnvelope, DeletedSchema, errorResponses, IdParamsSchema, listEnvelope } from '../../http/schemas.js';
import { ClientSchema, CreateClientBody, ListClientsQuery, UpdateClientBody } from './clients.schemas.js';
import * as service from './clients.service.js';

const tags = ['Clients'];
const ClientRef = { $ref: 'Client' } as unknown as typeof ClientSchema;

export const clientRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/v1/clients', {
    config: { scope: 'clients:read' },
    schema: { tags, summary: 'List clients', querystring: ListClientsQuery, response: { 200: listEnvelope(ClientRef), ...errorResponses('VALIDATION_ERROR') } },
  }, async (request, reply) => {
    const page = await service.listClients(app.db, auth(request).accountId, request.query);
    return listResponse(request, reply, page, request.query.limit ?? 25, service.presentClient);
  });

  app.post('/v1/clients', {
    config: { scope: 'clients:write' },
    schema: { tags, summary: 'Create a client', body: CreateClientBody, response: { 201: dataEnvelope(ClientRef), ...errorResponses('INVALID_JSON', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE', 'VALIDATION_ERROR') } },
  }, async (request, reply) => {
    const client = await service.createClient(app.db, app.clock, auth(request).accountId, request.body);
    return created(request, reply, '/v1/clients', client);
  });

  app.get('/v1/clients/:id', {
    config: { scope: 'clients:read' },
    schema: { tags, summary: 'Get a client', params: IdParamsSchema, response: { 200: dataEnvelope(ClientRef), ...errorResponses('NOT_FOUND') } },
  }, async (request) => ok(request, await service.getClient(app.db, auth(request).accountId, request.params.id)));

  app.put('/v1/clients/:id', {
    config: { scope: 'clients:write' },
    schema: { tags, summary: 'Update a client (partial; null clears a field)', params: IdParamsSchema, body: UpdateClientBody, response: { 200: dataEnvelope(ClientRef), ...errorResponses('INVALID_JSON', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE', 'VALIDATION_ERROR', 'NOT_FOUND') } },
  }, async (request) => ok(request, await service.updateClient(app.db, app.clock, auth(request).accountId, request.params.id, request.body)));

  app.delete('/v1/clients/:id', {
    config: { scope: 'clients:delete' },
    schema: { tags, summary: 'Delete a client (refused while other records refer to it)', params: IdParamsSchema, response: { 200: dataEnvelope(DeletedSchema), ...errorResponses('NOT_FOUND', 'CONFLICT') } },
  }, async (request) => ok(request, await service.deleteClient(app.db, auth(request).accountId, request.params.id)));
};
