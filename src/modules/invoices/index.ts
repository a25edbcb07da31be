// The face of the invoices module: what other modules, the workers and the composition may use. The rest is private.
export { getInvoiceRecord, presentInvoice } from './invoices.presenter.js';
export {
  findInvoice,
  findInvoiceByToken,
  findIssuedInvoicesOfJob,
  setInvoiceDeliveryStatus,
} from './invoices.repository.js';
export { CreateInvoiceBody, type CreateInvoiceInput, InvoiceSchema } from './invoices.schemas.js';
export {
  createInvoice,
  getInvoice,
  type InvoiceOrigin,
  listInvoices,
  SENDABLE_INVOICE,
  updateInvoice,
} from './invoices.service.js';
export { CreatePaymentBody, PaymentSchema, RefundPaymentBody } from './payments.schemas.js';
export { createPayment, getPayment, refundPayment } from './payments.service.js';
export {
  ApplyBody,
  type ApplyInput,
  PAYMENT_METHODS,
  type PaymentMethod,
  UnapplyBody,
  type UnapplyInput,
} from './payments.schemas.js';
export {
  applicationEntry,
  type ApplicationSource,
  applyToInvoices,
  findApplication,
  invoiceBefore,
  laterDate,
  listRecentApplications,
  liveApplications,
  lockInvoices,
  settleInvoice,
  takeBack,
} from './applications.service.js';
export { type CreditReleaseListener, onCreditNoteReleased } from './invoices.ledger.js';
export { depositReceivedOn } from './applications.repository.js';
export {
  addTimeLines,
  billedEntryIds,
  lockDraftInvoice,
  onTimeReleased,
  type TimeReleaseListener,
} from './invoices.time.js';
export { lateFeeOf, sendAccountReminders, sendDueReminder } from './reminders.service.js';
export { type InvoiceSentListener, onInvoiceSent } from './invoices.freezing.js';
