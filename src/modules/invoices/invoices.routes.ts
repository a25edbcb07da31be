// Invoice endpoints: the five standard operations, send, and the hosted link's rotation.
import { resourceRoutes, rotateLinkAction, sendAction } from '../../http/resource-routes.js';
import type { HostedLinks } from '../documents/hosted-links.js';
import { CreateInvoiceBody, InvoiceSchema, ListInvoicesQuery, UpdateInvoiceBody } from './invoices.schemas.js';
import { presentInvoice } from './invoices.presenter.js';
import * as service from './invoices.service.js';

/** `links`: where the hub pages are, for the links a send issues. */
export const invoiceRoutes = (links: HostedLinks) =>
  resourceRoutes({
    path: '/v1/invoices',
    names: ['invoice', 'invoices'],
    scopes: { read: 'invoices:read', write: 'invoices:write', delete: 'invoices:delete' },
    schemas: { item: InvoiceSchema, create: CreateInvoiceBody, update: UpdateInvoiceBody, list: ListInvoicesQuery },
    // An invoice from a job reads the job; from a quote, converts the quote.
    linkScopes: { job_id: 'jobs:read', quote_id: 'quotes:write' },
    stateErrors: ['INVALID_STATE'],
    service: {
      list: service.listInvoices,
      present: presentInvoice,
      create: service.createInvoice,
      get: service.getInvoice,
      update: (db, clock, accountId, id, body, precondition) => service.updateInvoice(db, clock, links, accountId, id, body, precondition),
      delete: service.deleteInvoice,
    },
    actions: [
      sendAction('invoice', 'invoices:send', (db, clock, accountId, id, body) => service.sendInvoice(db, clock, links, accountId, id, body)),
      rotateLinkAction('invoice', 'invoices:write', (db, clock, accountId, id) => service.rotateInvoiceLink(db, clock, links, accountId, id)),
    ],
  });
