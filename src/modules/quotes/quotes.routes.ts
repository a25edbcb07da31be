// Quote endpoints: the five standard operations and send.
import { resourceRoutes, sendAction } from '../../http/resource-routes.js';
import { CreateQuoteBody, ListQuotesQuery, QuoteSchema, UpdateQuoteBody } from './quotes.schemas.js';
import * as service from './quotes.service.js';

export const quoteRoutes = resourceRoutes({
  path: '/v1/quotes',
  names: ['quote', 'quotes'],
  scopes: { read: 'quotes:read', write: 'quotes:write', delete: 'quotes:delete' },
  schemas: { item: QuoteSchema, create: CreateQuoteBody, update: UpdateQuoteBody, list: ListQuotesQuery },
  // A quote from a service request converts it.
  linkScopes: { request_id: 'requests:write' },
  stateErrors: ['INVALID_STATE'],
  service: {
    list: service.listQuotes,
    present: service.presentQuote,
    create: service.createQuote,
    get: service.getQuote,
    update: service.updateQuote,
    delete: service.deleteQuote,
  },
  actions: [sendAction('quote', 'quotes:send', service.sendQuote)],
});
