// Quote endpoints: the five standard operations, send, and the hosted link's rotation.
import { resourceRoutes, rotateLinkAction, sendAction } from '../../http/resource-routes.js';
import type { HostedLinks } from '../documents/hosted-links.js';
import { CreateQuoteBody, ListQuotesQuery, QuoteSchema, UpdateQuoteBody } from './quotes.schemas.js';
import * as service from './quotes.service.js';

/** `links`: where the hub pages are, for the links a send issues. */
export const quoteRoutes = (links: HostedLinks) =>
  resourceRoutes({
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
      update: (db, clock, accountId, id, body, precondition) => service.updateQuote(db, clock, links, accountId, id, body, precondition),
      delete: service.deleteQuote,
    },
    actions: [
      sendAction('quote', 'quotes:send', (db, clock, accountId, id, body) => service.sendQuote(db, clock, links, accountId, id, body)),
      rotateLinkAction('quote', 'quotes:write', (db, clock, accountId, id) => service.rotateQuoteLink(db, clock, links, accountId, id)),
    ],
  });
