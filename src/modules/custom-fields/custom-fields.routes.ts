// Custom field endpoints (docs/api-contract.md §27): the five standard operations and the account's JSON Schema of
// a kind's `custom_fields` (with an ETag), custom_fields:read / custom_fields:write.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { contextOf } from '../../http/auth.js';
import { ok } from '../../http/envelope.js';
import { etagOf } from '../../http/etag.js';
import { resourceRoutes } from '../../http/resource-routes.js';
import { dataEnvelope, errorResponses, schemaRef } from '../../http/schemas.js';
import {
  CreateCustomFieldBody,
  CustomFieldSchema,
  CustomFieldsSchemaQuery,
  CustomFieldsSchemaSchema,
  ListCustomFieldsQuery,
  UpdateCustomFieldBody,
} from './custom-fields.schemas.js';
import * as service from './custom-fields.service.js';

const standardRoutes = resourceRoutes({
  path: '/v1/custom-fields',
  names: ['custom field', 'custom fields'],
  scopes: { read: 'custom_fields:read', write: 'custom_fields:write', delete: 'custom_fields:write' },
  schemas: {
    item: CustomFieldSchema,
    create: CreateCustomFieldBody,
    update: UpdateCustomFieldBody,
    list: ListCustomFieldsQuery,
  },
  stateErrors: ['CONFLICT'],
  service: {
    list: service.listCustomFields,
    present: service.presentCustomField,
    create: service.createCustomField,
    get: service.getCustomField,
    update: service.updateCustomField,
    delete: service.deleteCustomField,
  },
});

export const customFieldRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/v1/custom-fields/schema',
    {
      config: { scope: 'custom_fields:read' },
      schema: {
        tags: ['Custom fields'],
        operationId: 'getCustomFieldsSchema',
        summary: 'Get the JSON Schema of a kind’s custom fields',
        description:
          'The account’s JSON Schema 2020-12 of the `custom_fields` value of one kind of object, with an ETag that moves when a definition changes.',
        querystring: CustomFieldsSchemaQuery,
        response: { 200: dataEnvelope(schemaRef(CustomFieldsSchemaSchema)), ...errorResponses('VALIDATION_ERROR') },
      },
    },
    async (request, reply) => {
      const answer = await service.customFieldsSchema(contextOf(request), request.query.resource);
      reply.header('etag', etagOf(answer));
      return ok(request, answer);
    },
  );
  await app.register(standardRoutes);
};
