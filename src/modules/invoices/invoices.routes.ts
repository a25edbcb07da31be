// Invoice endpoints: the five standard operations; app.ts adds the actions of a sent document (send, the
// hosted link's rotation) from sent-documents, which stands above invoices.
import { tagSeam } from '../tags/index.js';
import { customFieldSeam } from '../custom-fields/index.js';
import { documentFieldChecks } from '../documents/index.js';
import type { ResourceAction } from '../../http/resource-definition.js';
import { resourceRoutes } from '../../http/resource-routes.js';
import {
  CreateInvoiceBody,
  InvoiceSchema,
  ListInvoicesQuery,
  UpdateInvoiceBody,
  type Invoice,
} from './invoices.schemas.js';
import { presentInvoice } from './invoices.presenter.js';
import * as service from './invoices.service.js';
import { previewRoute } from '../../http/preview-route.js';
import { LINE_REFERENCES, referenceChecks } from '../shared/index.js';

/** POST /v1/invoices/preview (docs/api-contract.md §19): invoices:read; a job or quote named is read, not converted. */
export const invoicePreviewRoutes = previewRoute({
  path: '/v1/invoices',
  names: ['invoice', 'invoices'],
  scope: 'invoices:read',
  item: InvoiceSchema,
  body: CreateInvoiceBody,
  linkScopes: { job_id: 'jobs:read', quote_id: 'quotes:read' },
  errors: ['NOT_FOUND', 'INVALID_STATE', 'CONFLICT'],
  fieldChecks: documentFieldChecks,
  referenceChecks: referenceChecks(
    {
      client_id: { table: 'clients', kind: 'client' },
      property_id: { table: 'properties', kind: 'property' },
      job_id: { table: 'jobs', kind: 'job', scope: 'jobs:read' },
      quote_id: { table: 'quotes', kind: 'quote', scope: 'quotes:read' },
    },
    LINE_REFERENCES,
  ),
  preview: (ctx, body) => service.previewInvoice(ctx, body as Parameters<typeof service.previewInvoice>[1]),
});

export const invoiceRoutes = (actions: ReadonlyArray<ResourceAction<Invoice>>) =>
  resourceRoutes({
    path: '/v1/invoices',
    names: ['invoice', 'invoices'],
    scopes: { read: 'invoices:read', write: 'invoices:write', delete: 'invoices:delete' },
    schemas: { item: InvoiceSchema, create: CreateInvoiceBody, update: UpdateInvoiceBody, list: ListInvoicesQuery },
    // An invoice from a job reads the job; from a quote, converts the quote.
    linkScopes: { job_id: 'jobs:read', quote_id: 'quotes:write' },
    stateErrors: ['INVALID_STATE', 'CONFLICT'],
    // The lines' and discount's own checks join a 422 of the schema's.
    fieldChecks: documentFieldChecks,
    // Every unknown id of the body joins a 422 too (client, property, job, quote, each line's product and rates).
    referenceChecks: {
      create: referenceChecks(
        {
          client_id: { table: 'clients', kind: 'client' },
          property_id: { table: 'properties', kind: 'property' },
          job_id: { table: 'jobs', kind: 'job', scope: 'jobs:read' },
          quote_id: { table: 'quotes', kind: 'quote', scope: 'quotes:write' },
        },
        LINE_REFERENCES,
      ),
      update: referenceChecks(
        { client_id: { table: 'clients', kind: 'client' }, property_id: { table: 'properties', kind: 'property' } },
        LINE_REFERENCES,
      ),
    },
    customFields: customFieldSeam('invoice'),
    tags: tagSeam('invoice'),
    service: {
      list: service.listInvoices,
      present: presentInvoice,
      create: service.createInvoice,
      get: service.getInvoice,
      update: service.updateInvoice,
      delete: service.deleteInvoice,
    },
    actions,
  });
