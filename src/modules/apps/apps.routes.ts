// App publishing endpoints (docs/api-contract.md §25): list, create, get, PUT, DELETE, roll the client secret,
// rotate the webhook secret, upload or remove the logo and read the webhook's attempt log. Create and the two
// rolls answer secrets once; they take no Idempotency-Key.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { fieldError } from '../../core/errors.js';
import { contextOf } from '../../http/auth.js';
import { created, ok } from '../../http/envelope.js';
import { listResponse } from '../../http/pagination.js';
import {
  BODY_ERRORS,
  DeletedSchema,
  dataEnvelope,
  errorResponses,
  IdParamsSchema,
  listEnvelope,
  schemaRef,
} from '../../http/schemas.js';
import {
  AppDeliverySchema,
  AppSchema,
  AppWithSecretsSchema,
  CreateAppBody,
  ListAppDeliveriesQuery,
  ListAppsQuery,
  RollAppSecretBody,
  UpdateAppBody,
} from './apps.schemas.js';
import { LogoBody, type LogoInput } from '../accounts/index.js';
import * as service from './apps.service.js';
import type { AppSettings } from './settings.js';

const tags = ['Apps'];
const PATH = '/v1/apps';

function refuseIdempotencyKey(request: FastifyRequest): void {
  if (request.headers['idempotency-key'] !== undefined)
    throw fieldError(
      'Idempotency-Key',
      'is not accepted here: the answer holds a secret that is never stored, so it cannot be replayed.',
    );
}

export function appRoutes(settings: AppSettings): FastifyPluginAsyncTypebox {
  return async (app) => {
    const appRef = schemaRef(AppSchema);
    const item = { params: IdParamsSchema, tags };

    app.get(
      PATH,
      {
        config: { scope: 'apps:read' },
        schema: {
          tags,
          operationId: 'listApps',
          summary: 'List apps',
          description: 'The apps this account publishes, newest first.',
          querystring: ListAppsQuery,
          response: { 200: listEnvelope(appRef), ...errorResponses('VALIDATION_ERROR') },
        },
      },
      async (request, reply) => {
        const query = request.query;
        return listResponse(
          request,
          reply,
          await service.listApps(contextOf(request), query),
          query.limit,
          service.presentApp,
        );
      },
    );

    app.post(
      PATH,
      {
        config: { scope: 'apps:write', answersSecret: true },
        schema: {
          tags,
          operationId: 'createApp',
          summary: 'Create an app',
          description:
            'Publishes an OAuth client: its id is the client_id. Answers `client_secret` (confidential apps) and `webhook_secret`, shown this once.',
          body: CreateAppBody,
          response: { 201: dataEnvelope(AppWithSecretsSchema), ...errorResponses(...BODY_ERRORS, 'CONFLICT') },
        },
      },
      async (request, reply) => {
        refuseIdempotencyKey(request);
        return created(request, reply, PATH, await service.createApp(contextOf(request), settings, request.body));
      },
    );

    app.get(
      `${PATH}/:id`,
      {
        config: { scope: 'apps:read' },
        schema: {
          ...item,
          operationId: 'getApp',
          summary: 'Get an app',
          response: { 200: dataEnvelope(appRef), ...errorResponses('NOT_FOUND') },
        },
      },
      async (request) => ok(request, await service.getApp(contextOf(request), request.params.id)),
    );

    app.put(
      `${PATH}/:id`,
      {
        config: { scope: 'apps:write' },
        schema: {
          ...item,
          operationId: 'updateApp',
          summary: 'Update an app',
          description:
            'A scope removed leaves every install at once; a scope added is granted only by a new consent. `client_type` is fixed.',
          body: UpdateAppBody,
          response: { 200: dataEnvelope(appRef), ...errorResponses(...BODY_ERRORS, 'NOT_FOUND') },
        },
      },
      async (request) =>
        ok(request, await service.updateApp(contextOf(request), settings, request.params.id, request.body)),
    );

    app.delete(
      `${PATH}/:id`,
      {
        config: { scope: 'apps:write' },
        schema: {
          ...item,
          operationId: 'deleteApp',
          summary: 'Delete an app',
          description: 'Uninstalls every install of it, in every account (`app_deleted`), in the same transaction.',
          response: { 200: dataEnvelope(DeletedSchema), ...errorResponses('NOT_FOUND') },
        },
      },
      async (request) => ok(request, await service.deleteApp(contextOf(request), request.params.id)),
    );

    app.post(
      `${PATH}/:id/roll-secret`,
      {
        config: { scope: 'apps:write', answersSecret: true },
        schema: {
          ...item,
          operationId: 'rollAppSecret',
          summary: 'Roll an app’s client secret',
          description:
            'Answers the app with a new `client_secret`, shown this once. The old one keeps working for `overlap_hours` (0 to 168, default 0).',
          body: RollAppSecretBody,
          response: {
            200: dataEnvelope(AppWithSecretsSchema),
            ...errorResponses(...BODY_ERRORS, 'NOT_FOUND', 'INVALID_STATE'),
          },
        },
      },
      async (request) => {
        refuseIdempotencyKey(request);
        const overlap = request.body?.overlap_hours ?? 0;
        return ok(request, await service.rollClientSecret(contextOf(request), settings, request.params.id, overlap));
      },
    );

    app.put(
      `${PATH}/:id/logo`,
      {
        config: { scope: 'apps:write' },
        schema: {
          ...item,
          operationId: 'uploadAppLogo',
          summary: 'Upload an app’s logo',
          description:
            'As the account’s logo: a PNG or JPEG, base64 in JSON, at most 512 KB decoded, 1 to 4,000 pixels a side, checked to be a real image of the stated type. The consent page shows it. Answers with the app.',
          body: LogoBody,
          response: { 200: dataEnvelope(appRef), ...errorResponses(...BODY_ERRORS, 'NOT_FOUND') },
        },
      },
      async (request) =>
        ok(request, await service.putAppLogo(contextOf(request), request.params.id, request.body as LogoInput)),
    );

    app.delete(
      `${PATH}/:id/logo`,
      {
        config: { scope: 'apps:write' },
        schema: {
          ...item,
          operationId: 'deleteAppLogo',
          summary: 'Remove an app’s logo',
          description: 'Answers with the app (also when it had no logo).',
          response: { 200: dataEnvelope(appRef), ...errorResponses('NOT_FOUND') },
        },
      },
      async (request) => ok(request, await service.deleteAppLogo(contextOf(request), request.params.id)),
    );

    app.get(
      `${PATH}/:id/deliveries`,
      {
        config: { scope: 'apps:read' },
        schema: {
          ...item,
          operationId: 'listAppDeliveries',
          summary: 'List an app’s webhook deliveries',
          description:
            'The attempt log of the app’s webhook, newest first, across every account that installed it (`account_id`): one entry per attempt.',
          querystring: ListAppDeliveriesQuery,
          response: {
            200: listEnvelope(schemaRef(AppDeliverySchema)),
            ...errorResponses('VALIDATION_ERROR', 'NOT_FOUND'),
          },
        },
      },
      async (request, reply) => {
        const query = request.query;
        const page = await service.listDeliveries(contextOf(request), request.params.id, query);
        return listResponse(request, reply, page, query.limit, service.presentAppDelivery);
      },
    );

    app.post(
      `${PATH}/:id/rotate-webhook-secret`,
      {
        config: { scope: 'apps:write', answersSecret: true },
        schema: {
          ...item,
          operationId: 'rotateAppWebhookSecret',
          summary: 'Rotate an app’s webhook secret',
          description: 'Answers the app with a new `webhook_secret`, shown this once.',
          response: { 200: dataEnvelope(AppWithSecretsSchema), ...errorResponses('NOT_FOUND') },
        },
      },
      async (request) => {
        refuseIdempotencyKey(request);
        return ok(request, await service.rotateWebhookSecret(contextOf(request), request.params.id));
      },
    );
  };
}
