// API key endpoints (docs/api-contract.md §20): list, create, get, PUT, DELETE (revokes) and roll. Create and
// roll answer the secret once; they take no Idempotency-Key, since a replay would need the secret kept.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { fieldError } from '../../core/errors.js';
import { contextOf } from '../../http/auth.js';
import { created, ok } from '../../http/envelope.js';
import { etagOf } from '../../http/etag.js';
import { listResponse } from '../../http/pagination.js';
import {
  BODY_ERRORS,
  dataEnvelope,
  errorResponses,
  IdParamsSchema,
  listEnvelope,
  schemaRef,
} from '../../http/schemas.js';
import {
  ApiKeySchema,
  ApiKeyWithSecretSchema,
  CreateApiKeyBody,
  ListApiKeysQuery,
  RollApiKeyBody,
  UpdateApiKeyBody,
  type ListApiKeysInput,
} from './api-keys.schemas.js';
import * as service from './api-keys.service.js';
import { keyFieldChecks } from './networks.js';

const tags = ['API keys'];
const PATH = '/v1/api-keys';

/** A create or roll with an Idempotency-Key is refused rather than silently not replayable. */
function refuseIdempotencyKey(request: FastifyRequest): void {
  if (request.headers['idempotency-key'] !== undefined)
    throw fieldError(
      'Idempotency-Key',
      'is not accepted here: the answer holds a secret that is never stored, so it cannot be replayed. Send the request without it, and revoke any key a lost answer made.',
    );
}

export function apiKeyRoutes(pepper: string | undefined): FastifyPluginAsyncTypebox {
  return async (app) => {
    const key = schemaRef(ApiKeySchema);
    const item = { params: IdParamsSchema, tags };

    app.get(
      PATH,
      {
        config: { scope: 'api_keys:read' },
        schema: {
          tags,
          operationId: 'listApiKeys',
          summary: 'List API keys',
          description: 'Newest first, revoked keys too. Secrets are never listed.',
          querystring: ListApiKeysQuery,
          response: { 200: listEnvelope(key), ...errorResponses('VALIDATION_ERROR') },
        },
      },
      async (request, reply) => {
        const query = request.query as ListApiKeysInput;
        return listResponse(
          request,
          reply,
          await service.listKeys(contextOf(request), query),
          query.limit,
          service.presentApiKey,
        );
      },
    );

    app.post(
      PATH,
      {
        config: { scope: 'api_keys:write', answersSecret: true, fieldChecks: keyFieldChecks },
        schema: {
          tags,
          operationId: 'createApiKey',
          summary: 'Create an API key',
          description:
            'Answers the key with its `secret`, shown this once. No escalation: the new key’s scopes must be among the calling key’s (403 otherwise), and its expiry, rate limits and networks no wider (422); what the body leaves out is the calling key’s own.',
          body: CreateApiKeyBody,
          response: { 201: dataEnvelope(ApiKeyWithSecretSchema), ...errorResponses(...BODY_ERRORS) },
        },
      },
      async (request, reply) => {
        refuseIdempotencyKey(request);
        return created(request, reply, PATH, await service.createKey(contextOf(request), pepper, request.body));
      },
    );

    app.get(
      `${PATH}/:id`,
      {
        config: { scope: 'api_keys:read' },
        schema: {
          ...item,
          operationId: 'getApiKey',
          summary: 'Get an API key',
          response: { 200: dataEnvelope(key), ...errorResponses('NOT_FOUND') },
        },
      },
      async (request, reply) => {
        const found = await service.getKey(contextOf(request), request.params.id);
        reply.header('etag', etagOf(found));
        return ok(request, found);
      },
    );

    app.put(
      `${PATH}/:id`,
      {
        config: { scope: 'api_keys:write', fieldChecks: keyFieldChecks },
        schema: {
          ...item,
          operationId: 'updateApiKey',
          summary: 'Update an API key',
          description:
            'Changes its name, scopes, expiry, rate limits or networks, at once in this server (other instances within 2 seconds). The key, as it is and as it would be, must be within the calling key’s powers.',
          body: UpdateApiKeyBody,
          response: { 200: dataEnvelope(key), ...errorResponses(...BODY_ERRORS, 'NOT_FOUND', 'INVALID_STATE') },
        },
      },
      async (request) => ok(request, await service.updateKey(contextOf(request), request.params.id, request.body)),
    );

    app.delete(
      `${PATH}/:id`,
      {
        config: { scope: 'api_keys:write' },
        schema: {
          ...item,
          operationId: 'revokeApiKey',
          summary: 'Revoke an API key',
          description:
            'Answers the key with `revoked_at` set; it stays readable. The next request with it is 401 (other instances: within 2 seconds). Revoking twice is harmless.',
          response: { 200: dataEnvelope(key), ...errorResponses('NOT_FOUND') },
        },
      },
      async (request) => ok(request, await service.revokeKey(contextOf(request), request.params.id)),
    );

    app.post(
      `${PATH}/:id/roll`,
      {
        config: { scope: 'api_keys:write', answersSecret: true },
        schema: {
          ...item,
          operationId: 'rollApiKey',
          summary: 'Roll an API key',
          description:
            'Answers the key with a new `secret`, shown this once. The old secret keeps working for `overlap_hours` (0 to 168, default 0), then stops. The key must be within the calling key’s powers.',
          body: RollApiKeyBody,
          response: {
            200: dataEnvelope(ApiKeyWithSecretSchema),
            ...errorResponses(...BODY_ERRORS, 'NOT_FOUND', 'INVALID_STATE'),
          },
        },
      },
      async (request) => {
        refuseIdempotencyKey(request);
        return ok(request, await service.rollKey(contextOf(request), pepper, request.params.id, request.body ?? {}));
      },
    );
  };
}
