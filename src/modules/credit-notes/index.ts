// The face of the credit-notes module: what other modules, the workers and the composition may use. The rest is private.
export { CREDIT_NOTE_LIFECYCLE, CREDIT_NOTE_STATUSES } from './credit-notes.lifecycle.js';
export { CreditNoteSchema, CreateCreditNoteBody, type CreditNote } from './credit-notes.schemas.js';
export { createCreditNote, getCreditNote, previewCreditNote, updateCreditNote } from './credit-notes.service.js';
export { applyCreditNote, refundCreditNote } from './credit-notes.money.js';
export { presentCreditNote } from './credit-notes.presenter.js';
export { findCreditNote, findCreditNoteByToken, setCreditNoteDeliveryStatus } from './credit-notes.repository.js';
export { printableCreditNote, SENDABLE_CREDIT_NOTE, sendCreditNote } from './credit-notes.sending.js';
export { getCreditNoteRecord } from './credit-notes.presenter.js';
export { type CreditNoteIssuedListener, onCreditNoteIssued } from './credit-notes.freezing.js';
