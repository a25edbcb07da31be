// Quote endpoints: the five standard operations; app.ts adds the actions of a sent document (send, the
// hosted link's rotation) from sent-documents, which stands above quotes.
import { tagSeam } from '../tags/index.js';
import { customFieldSeam } from '../custom-fields/index.js';
import { documentFieldChecks } from '../documents/index.js';
import { resourceRoutes, type ResourceAction } from '../../http/resource-routes.js';
import { CreateQuoteBody, ListQuotesQuery, QuoteSchema, UpdateQuoteBody, type Quote } from './quotes.schemas.js';
import * as service from './quotes.service.js';
import { previewRoute } from '../../http/preview-route.js';
import { LINE_REFERENCES, referenceChecks } from '../shared/index.js';

/** POST /v1/quotes/preview (docs/api-contract.md §19): quotes:read; a service request named is read, not converted. */
export const quotePreviewRoutes = previewRoute({
  path: '/v1/quotes',
  names: ['quote', 'quotes'],
  scope: 'quotes:read',
  item: QuoteSchema,
  body: CreateQuoteBody,
  linkScopes: { request_id: 'requests:read' },
  errors: ['NOT_FOUND', 'INVALID_STATE', 'CONFLICT'],
  fieldChecks: documentFieldChecks,
  referenceChecks: referenceChecks(
    {
      client_id: { table: 'clients', kind: 'client' },
      property_id: { table: 'properties', kind: 'property' },
      request_id: { table: 'service_requests', kind: 'service request', scope: 'requests:read' },
    },
    LINE_REFERENCES,
  ),
  preview: (ctx, body) => service.previewQuote(ctx, body as Parameters<typeof service.previewQuote>[1]),
});

export const quoteRoutes = (actions: ReadonlyArray<ResourceAction<Quote>>) =>
  resourceRoutes({
    path: '/v1/quotes',
    names: ['quote', 'quotes'],
    scopes: { read: 'quotes:read', write: 'quotes:write', delete: 'quotes:delete' },
    schemas: { item: QuoteSchema, create: CreateQuoteBody, update: UpdateQuoteBody, list: ListQuotesQuery },
    // A quote from a service request converts it.
    linkScopes: { request_id: 'requests:write' },
    stateErrors: ['INVALID_STATE', 'CONFLICT'],
    // The lines' and discount's own checks join a 422 of the schema's.
    fieldChecks: documentFieldChecks,
    // Every unknown id of the body joins a 422 too (client, property, request, each line's product and rates).
    referenceChecks: {
      create: referenceChecks(
        {
          client_id: { table: 'clients', kind: 'client' },
          property_id: { table: 'properties', kind: 'property' },
          request_id: { table: 'service_requests', kind: 'service request', scope: 'requests:write' },
        },
        LINE_REFERENCES,
      ),
      update: referenceChecks(
        { client_id: { table: 'clients', kind: 'client' }, property_id: { table: 'properties', kind: 'property' } },
        LINE_REFERENCES,
      ),
    },
    customFields: customFieldSeam('quote'),
    tags: tagSeam('quote'),
    service: {
      list: service.listQuotes,
      present: service.presentQuote,
      create: service.createQuote,
      get: service.getQuote,
      update: service.updateQuote,
      delete: service.deleteQuote,
    },
    actions,
  });
