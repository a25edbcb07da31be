// Credit note endpoints (docs/api-contract.md §22): the five standard operations, preview, and the money's
// actions (apply, unapply, refund). Issuing is `PUT {status: "issued"}`; voiding `PUT {status: "void"}`.
import { previewRoute } from '../../http/preview-route.js';
import type { ResourceAction } from '../../http/resource-definition.js';
import { resourceRoutes } from '../../http/resource-routes.js';
import { documentFieldChecks } from '../documents/index.js';
import { LINE_REFERENCES, referenceChecks } from '../shared/index.js';
import { applyCreditNote, refundCreditNote, unapplyCreditNote } from './credit-notes.money.js';
import { presentCreditNote } from './credit-notes.presenter.js';
import {
  ApplyCreditNoteBody,
  type ApplyCreditNoteInput,
  CreateCreditNoteBody,
  CreditNoteSchema,
  ListCreditNotesQuery,
  RefundCreditNoteBody,
  type CreditNote,
  type RefundCreditNoteInput,
  UnapplyCreditNoteBody,
  type UnapplyCreditNoteInput,
  UpdateCreditNoteBody,
} from './credit-notes.schemas.js';
import * as service from './credit-notes.service.js';

const references = {
  client_id: { table: 'clients', kind: 'client' },
  property_id: { table: 'properties', kind: 'property' },
  invoice_id: { table: 'invoices', kind: 'invoice', scope: 'invoices:read' },
} as const;

/** POST /v1/credit-notes/preview: credit_notes:read (and invoices:read for an invoice_id), nothing stored. */
export const creditNotePreviewRoutes = previewRoute({
  path: '/v1/credit-notes',
  names: ['credit note', 'credit notes'],
  scope: 'credit_notes:read',
  item: CreditNoteSchema,
  body: CreateCreditNoteBody,
  linkScopes: { invoice_id: 'invoices:read' },
  errors: ['NOT_FOUND', 'INVALID_STATE', 'CONFLICT'],
  fieldChecks: documentFieldChecks,
  referenceChecks: referenceChecks(references, LINE_REFERENCES),
  preview: (ctx, body) => service.previewCreditNote(ctx, body as Parameters<typeof service.previewCreditNote>[1]),
});

export const creditNoteRoutes = (sent: ReadonlyArray<ResourceAction<CreditNote>>) =>
  resourceRoutes({
    path: '/v1/credit-notes',
    names: ['credit note', 'credit notes'],
    scopes: { read: 'credit_notes:read', write: 'credit_notes:write', delete: 'credit_notes:delete' },
    schemas: {
      item: CreditNoteSchema,
      create: CreateCreditNoteBody,
      update: UpdateCreditNoteBody,
      list: ListCreditNotesQuery,
    },
    // A note against an invoice reads the invoice (§22).
    linkScopes: { invoice_id: 'invoices:read' },
    stateErrors: ['INVALID_STATE', 'CONFLICT'],
    fieldChecks: documentFieldChecks,
    referenceChecks: {
      create: referenceChecks(references, LINE_REFERENCES),
      update: referenceChecks(
        { client_id: references.client_id, property_id: references.property_id },
        LINE_REFERENCES,
      ),
    },
    service: {
      list: service.listCreditNotes,
      present: presentCreditNote,
      create: service.createCreditNote,
      get: service.getCreditNote,
      update: service.updateCreditNote,
      delete: service.deleteCreditNote,
    },
    actions: [
      {
        name: 'apply',
        operationId: 'applyCreditNote',
        scope: 'credit_notes:write',
        summary: 'Apply a credit note to invoices',
        description:
          'Applies what remains of an issued credit note to 1–50 sent invoices of its client and currency, all or nothing. An invoice at 0 becomes `paid`.',
        body: ApplyCreditNoteBody,
        errors: ['INVALID_STATE'],
        run: (ctx, id, body) => applyCreditNote(ctx, id, body as ApplyCreditNoteInput),
      },
      {
        name: 'unapply',
        operationId: 'unapplyCreditNote',
        scope: 'credit_notes:write',
        summary: 'Reverse one application of a credit note',
        description: 'The invoice owes that money again (a `paid` invoice returns to `sent`); released already: 409.',
        body: UnapplyCreditNoteBody,
        errors: ['INVALID_STATE'],
        run: (ctx, id, body) => unapplyCreditNote(ctx, id, body as UnapplyCreditNoteInput),
      },
      {
        name: 'refund',
        operationId: 'refundCreditNote',
        scope: 'credit_notes:write',
        // Money leaves the business: the payments scope too (§22).
        alsoScopes: ['payments:write'],
        summary: 'Refund a credit note',
        description:
          'Records money paid back to the client from what remains of the note (default all of it); more is 422. Needs payments:write too.',
        body: RefundCreditNoteBody,
        errors: ['INVALID_STATE'],
        run: (ctx, id, body) => refundCreditNote(ctx, id, body as RefundCreditNoteInput),
      },
      ...sent,
    ],
  });
