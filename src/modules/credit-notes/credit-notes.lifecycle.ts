// A credit note's life (docs/api-contract.md §22): draft → issued (send, or PUT {status: "issued"}) → void
// (PUT {status: "void"}). Fields change in draft only; an issued note takes metadata and void; delete: draft.
import type { CreditNoteRow } from '../../db/types.js';
import type { Lifecycle } from '../documents/index.js';

export const CREDIT_NOTE_STATUSES = ['draft', 'issued', 'void'] as const;
export type CreditNoteStatus = (typeof CREDIT_NOTE_STATUSES)[number];

export const CREDIT_NOTE_LIFECYCLE: Lifecycle<CreditNoteStatus, CreditNoteRow> = {
  kind: 'credit note',
  statuses: CREDIT_NOTE_STATUSES,
  moves: { draft: ['issued'], issued: ['void'], void: [] },
  events: { issued: 'credit_note.issued', void: 'credit_note.voided' },
  // Issuing's columns (number, dates) are the issue's own work; a void note's hosted page stops working.
  stamps: {
    void: (now) => ({ voided_at: now, hosted_token: null, hosted_url: null, hosted_recipient: null }),
  },
  holds: {},
  editable: ['draft'],
  sendable: ['draft', 'issued'],
  deletable: ['draft'],
  refusals: {
    edit: (status) =>
      status === 'void'
        ? "This credit note is 'void', which is final: nothing about it can change."
        : `This credit note is '${status}'; only its metadata can change (or PUT {"status": "void"}).`,
    delete: (status) => `This credit note is '${status}'; only draft credit notes can be deleted. Void it instead.`,
  },
};
