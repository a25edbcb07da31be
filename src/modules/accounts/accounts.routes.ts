// The business profile: GET and PUT /v1/account, and its logo (PUT and DELETE /v1/account/logo).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { auth, contextOf } from '../../http/auth.js';
import { ok } from '../../http/envelope.js';
import { etagOf, ifMatch, IfMatchHeaders } from '../../http/etag.js';
import { BODY_ERRORS, dataEnvelope, errorResponses, schemaRef } from '../../http/schemas.js';
import {
  AccountSchema,
  LogoBody,
  UpdateAccountBody,
  type Account,
  type LogoInput,
  type UpdateAccountInput,
} from './accounts.schemas.js';
import * as service from './accounts.service.js';

const tags = ['Account'];
const item = dataEnvelope(schemaRef(AccountSchema));

/** Every account operation answers with the account and its ETag. */
function answer(request: FastifyRequest, reply: FastifyReply, account: Account) {
  reply.header('etag', etagOf(account));
  return ok(request, account);
}

export const accountRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/v1/account',
    {
      config: { scope: 'account:read' },
      schema: {
        tags,
        operationId: 'getAccount',
        summary: 'Get the business profile',
        description: 'The account of the API key: the business as its invoices and quotes present it.',
        response: { 200: item, ...errorResponses() },
      },
    },
    async (request, reply) => {
      return answer(request, reply, await service.getAccount(contextOf(request).db, auth(request).accountId));
    },
  );

  app.put(
    '/v1/account',
    {
      config: { scope: 'account:write' },
      schema: {
        tags,
        operationId: 'updateAccount',
        summary: 'Update the business profile (partial: absent fields are kept, null clears)',
        description:
          'Documents sent from now on print the new profile; e-mails already queued keep the profile they were sent with.',
        headers: IfMatchHeaders,
        body: UpdateAccountBody,
        response: { 200: item, ...errorResponses(...BODY_ERRORS, 'PRECONDITION_FAILED') },
      },
    },
    async (request, reply) => {
      return answer(
        request,
        reply,
        await service.updateAccount(
          contextOf(request),
          request.body as UpdateAccountInput,
          ifMatch(request.headers['if-match']),
        ),
      );
    },
  );

  app.put(
    '/v1/account/logo',
    {
      config: { scope: 'account:write' },
      schema: {
        tags,
        operationId: 'uploadAccountLogo',
        summary: 'Upload the logo',
        description:
          'A PNG or JPEG, base64 in JSON, at most 512 KB decoded, 1 to 4,000 pixels a side; checked to be a real image of the stated type that the PDF renderer can draw. Replaces any logo before. Answers with the account.',
        body: LogoBody,
        response: { 200: item, ...errorResponses(...BODY_ERRORS) },
      },
    },
    async (request, reply) => {
      return answer(
        request,
        reply,
        await service.putLogo(app.db, app.clock, app.pdf, auth(request).accountId, request.body as LogoInput),
      );
    },
  );

  app.delete(
    '/v1/account/logo',
    {
      config: { scope: 'account:write' },
      schema: {
        tags,
        operationId: 'deleteAccountLogo',
        summary: 'Remove the logo',
        description:
          'Documents print the business name instead. Answers with the account (also when there was no logo).',
        response: { 200: item, ...errorResponses() },
      },
    },
    async (request, reply) => {
      return answer(request, reply, await service.deleteLogo(app.db, app.clock, auth(request).accountId));
    },
  );
};
