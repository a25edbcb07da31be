// `POST /:id/send` and `POST /:id/hosted-link/rotate` of quotes and invoices (docs/api-contract.md §7, §12),
// declared once for both kinds; app.ts gives them to each kind's routes, after its standard five.
import { article, pascal, type ResourceAction } from '../../http/resource-definition.js';
import type { Scope } from '../../kernel/scopes.js';
import { NoBody, SendBody, type PrintableDocument, type SendableKind, type SendInput } from '../documents/index.js';
import { SENDABLE_INVOICE } from '../invoices/index.js';
import { SENDABLE_QUOTE } from '../quotes/index.js';
import { SENDABLE_CREDIT_NOTE, sendCreditNote, type CreditNote } from '../credit-notes/index.js';
import { rotateHostedLink, sendDocument, type SentRow } from './sending.js';

function sentDocumentActions<Row extends SentRow, Item extends PrintableDocument>(
  kind: SendableKind<Row, Item>,
  scopes: { send: Scope; write: Scope },
): Array<ResourceAction<Item>> {
  const singular = kind.kind;
  return [
    {
      name: 'send',
      operationId: `send${pascal(singular)}`,
      scope: scopes.send,
      summary: `Send ${article(singular)} to its client`,
      description:
        'Assigns the number on first send, moves the document to `sent` and queues an e-mail (text, HTML and a PDF) to the client’s stored address. ' +
        'Allowed from `draft` and `sent` (a re-send). The response does not wait for delivery.',
      body: SendBody,
      errors: ['INVALID_STATE'],
      run: (ctx, id, body) => sendDocument(ctx, kind, id, body as SendInput),
    },
    {
      name: 'hosted-link/rotate',
      operationId: `rotate${pascal(singular)}HostedLink`,
      scope: scopes.write,
      summary: `Replace ${article(singular)}'s hosted link`,
      description:
        'Issues a new `hosted_url` for the client hub page; the old link stops working at once (use it when a link reached the wrong person). ' +
        'The document must have been sent and not be a draft again or void. The new link is not e-mailed: send the document again to e-mail it.',
      body: NoBody,
      errors: ['INVALID_STATE'],
      run: (ctx, id) => rotateHostedLink(ctx, kind, id),
    },
  ];
}

export const quoteActions = sentDocumentActions(SENDABLE_QUOTE, { send: 'quotes:send', write: 'quotes:write' });
export const invoiceActions = sentDocumentActions(SENDABLE_INVOICE, { send: 'invoices:send', write: 'invoices:write' });

/** A credit note's send issues it when it is a draft (its own operation); its link rotates as the others' do. */
export const creditNoteActions: Array<ResourceAction<CreditNote>> = [
  {
    name: 'send',
    operationId: 'sendCreditNote',
    scope: 'credit_notes:send',
    summary: 'Send a credit note to its client',
    description:
      'E-mails the credit note (text, HTML and a PDF) to the client’s stored address; from `draft` it is issued first (number, ledger entries, application to its sent invoice). Allowed from `draft` and `issued`.',
    body: SendBody,
    errors: ['INVALID_STATE'],
    run: (ctx, id, body) => sendCreditNote(ctx, id, body as SendInput),
  },
  {
    name: 'hosted-link/rotate',
    operationId: 'rotateCreditNoteHostedLink',
    scope: 'credit_notes:write',
    summary: 'Replace a credit note’s hosted link',
    description:
      'Issues a new `hosted_url` for the credit note’s hub page; the old link stops working at once. The note must be issued.',
    body: NoBody,
    errors: ['INVALID_STATE'],
    run: (ctx, id) => rotateHostedLink(ctx, SENDABLE_CREDIT_NOTE, id),
  },
];
