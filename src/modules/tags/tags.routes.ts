// Tag endpoints (docs/api-contract.md §27): the account's tags, made by their first use on an object; rename
// (?merge=true onto another tag's name) and delete reach every kind at once. tags:read / tags:write.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { contextOf } from '../../http/auth.js';
import { ok } from '../../http/envelope.js';
import { etagOf, ifMatch, IfMatchHeaders } from '../../http/etag.js';
import { listResponse } from '../../http/pagination.js';
import {
  BODY_ERRORS,
  dataEnvelope,
  DeletedSchema,
  errorResponses,
  IdParamsSchema,
  listEnvelope,
  schemaRef,
} from '../../http/schemas.js';
import { ListTagsQuery, TagSchema, UpdateTagBody, UpdateTagQuery } from './tags.schemas.js';
import * as service from './tags.service.js';

const PATH = '/v1/tags';
const tags = ['Tags'];

export const tagRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const tag = schemaRef(TagSchema);

  app.get(
    PATH,
    {
      config: { scope: 'tags:read' },
      schema: {
        tags,
        operationId: 'listTags',
        summary: 'List tags',
        description: 'The account’s tags with their counts per kind; `q` keeps those whose name starts with it.',
        querystring: ListTagsQuery,
        response: { 200: listEnvelope(tag), ...errorResponses('VALIDATION_ERROR') },
      },
    },
    async (request, reply) =>
      listResponse(
        request,
        reply,
        await service.listTags(contextOf(request), request.query),
        request.query.limit,
        service.presentTag,
      ),
  );

  app.get(
    `${PATH}/:id`,
    {
      config: { scope: 'tags:read' },
      schema: {
        tags,
        operationId: 'getTag',
        summary: 'Get a tag',
        params: IdParamsSchema,
        response: { 200: dataEnvelope(tag), ...errorResponses('NOT_FOUND') },
      },
    },
    async (request, reply) => {
      const item = await service.getTag(contextOf(request), request.params.id);
      reply.header('etag', etagOf(item));
      return ok(request, item);
    },
  );

  app.put(
    `${PATH}/:id`,
    {
      config: { scope: 'tags:write' },
      schema: {
        tags,
        operationId: 'renameTag',
        summary: 'Rename a tag everywhere',
        description:
          'Every object holding the tag answers its new name at once (their updated_at stays, their ETags change). Onto another tag’s name: 409 CONFLICT, unless ?merge=true merges this tag into that one.',
        params: IdParamsSchema,
        querystring: UpdateTagQuery,
        headers: IfMatchHeaders,
        body: UpdateTagBody,
        response: {
          200: dataEnvelope(tag),
          ...errorResponses(...BODY_ERRORS, 'NOT_FOUND', 'PRECONDITION_FAILED', 'CONFLICT'),
        },
      },
    },
    async (request, reply) => {
      const item = await service.renameTag(
        contextOf(request),
        request.params.id,
        request.body.name,
        request.query.merge === true,
        ifMatch(request.headers['if-match']),
      );
      reply.header('etag', etagOf(item));
      return ok(request, item);
    },
  );

  app.delete(
    `${PATH}/:id`,
    {
      config: { scope: 'tags:write' },
      schema: {
        tags,
        operationId: 'deleteTag',
        summary: 'Delete a tag everywhere',
        description: 'Takes the tag from every object holding it (their updated_at stays), then deletes it.',
        params: IdParamsSchema,
        headers: IfMatchHeaders,
        response: { 200: dataEnvelope(DeletedSchema), ...errorResponses('NOT_FOUND', 'PRECONDITION_FAILED') },
      },
    },
    async (request) =>
      ok(request, await service.deleteTag(contextOf(request), request.params.id, ifMatch(request.headers['if-match']))),
  );
};
