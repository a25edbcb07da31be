// Install links and installs (docs/api-contract.md §25): `POST /v1/app-install-links` (apps:install), and the
// installs of apps in this account; a token reads or ends its own at `/v1/app-installs/current`.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { auth, contextOf } from '../../http/auth.js';
import { created, ok } from '../../http/envelope.js';
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
  AppInstallSchema,
  CreateInstallLinkBody,
  InstallLinkSchema,
  ListInstallsQuery,
  UpdateInstallBody,
} from './apps.schemas.js';
import * as service from './installs.service.js';
import type { AppSettings } from './settings.js';

const tags = ['App installs'];
const LINKS = '/v1/app-install-links';
const INSTALLS = '/v1/app-installs';

export function installRoutes(settings: AppSettings): FastifyPluginAsyncTypebox {
  return async (app) => {
    const install = schemaRef(AppInstallSchema);
    const item = { params: IdParamsSchema, tags };

    app.post(
      LINKS,
      {
        config: { scope: 'apps:install', answersSecret: true },
        schema: {
          tags,
          operationId: 'createAppInstallLink',
          summary: 'Create an install link',
          description:
            'A one-time link (5 to 60 minutes) that hands this key’s authority to approve one install of an app to a browser. Its scopes lie within the key’s (403) and the app’s (422); the `url` is shown this once.',
          body: CreateInstallLinkBody,
          response: { 201: dataEnvelope(schemaRef(InstallLinkSchema)), ...errorResponses(...BODY_ERRORS) },
        },
      },
      async (request, reply) =>
        created(
          request,
          reply,
          LINKS,
          await service.createInstallLink(contextOf(request), settings, auth(request), request.body),
        ),
    );

    app.get(
      INSTALLS,
      {
        config: { scope: 'app_installs:read' },
        schema: {
          tags,
          operationId: 'listAppInstalls',
          summary: 'List app installs',
          description: 'The apps installed in this account, uninstalled ones too, newest first.',
          querystring: ListInstallsQuery,
          response: { 200: listEnvelope(install), ...errorResponses('VALIDATION_ERROR') },
        },
      },
      async (request, reply) => {
        const query = request.query;
        return listResponse(
          request,
          reply,
          await service.listInstalls(contextOf(request), query),
          query.limit,
          (row) => row,
        );
      },
    );

    // Before `/:id`, which would otherwise take `current` as an id.
    app.get(
      `${INSTALLS}/current`,
      {
        config: { authenticated: true },
        schema: {
          tags,
          operationId: 'getCurrentAppInstall',
          summary: 'Get the calling token’s install',
          description: 'With an app’s access token: its own install. An API key has none (404).',
          response: { 200: dataEnvelope(install), ...errorResponses('NOT_FOUND') },
        },
      },
      async (request) => {
        const ctx = contextOf(request);
        return ok(request, await service.getInstall(ctx, service.currentInstallId(auth(request))));
      },
    );

    app.delete(
      `${INSTALLS}/current`,
      {
        config: { authenticated: true },
        schema: {
          tags,
          operationId: 'deleteCurrentAppInstall',
          summary: 'Uninstall the calling token’s install',
          description: 'With an app’s access token: the app uninstalls itself (`app`). An API key has none (404).',
          response: { 200: dataEnvelope(install), ...errorResponses('NOT_FOUND') },
        },
      },
      async (request) => {
        const ctx = contextOf(request);
        return ok(request, await service.deleteInstall(ctx, service.currentInstallId(auth(request)), 'app'));
      },
    );

    app.get(
      `${INSTALLS}/:id`,
      {
        config: { scope: 'app_installs:read' },
        schema: {
          ...item,
          operationId: 'getAppInstall',
          summary: 'Get an app install',
          response: { 200: dataEnvelope(install), ...errorResponses('NOT_FOUND') },
        },
      },
      async (request) => ok(request, await service.getInstall(contextOf(request), request.params.id)),
    );

    app.put(
      `${INSTALLS}/:id`,
      {
        config: { scope: 'app_installs:write' },
        schema: {
          ...item,
          operationId: 'updateAppInstall',
          summary: 'Update an app install',
          description:
            'Lowers the install’s own rate limits (higher than the defaults: 422; the operator raises them).',
          body: UpdateInstallBody,
          response: { 200: dataEnvelope(install), ...errorResponses(...BODY_ERRORS, 'NOT_FOUND') },
        },
      },
      async (request) => ok(request, await service.updateInstall(contextOf(request), request.params.id, request.body)),
    );

    app.delete(
      `${INSTALLS}/:id`,
      {
        config: { scope: 'app_installs:write' },
        schema: {
          ...item,
          operationId: 'deleteAppInstall',
          summary: 'Uninstall an app',
          description:
            'Uninstalls (`business`): every token of it is revoked at once. Answers the install, which stays readable; again: unchanged, no event.',
          response: { 200: dataEnvelope(install), ...errorResponses('NOT_FOUND') },
        },
      },
      async (request) => ok(request, await service.deleteInstall(contextOf(request), request.params.id, 'business')),
    );
  };
}
