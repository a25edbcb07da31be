// The face of the invoices module: what other modules, the workers and the composition may use. The rest is private.
export { getInvoiceRecord, presentInvoice } from './invoices.presenter.js';
export { findInvoice, findInvoiceByToken, setInvoiceDeliveryStatus } from './invoices.repository.js';
export { InvoiceSchema } from './invoices.schemas.js';
export { getInvoice, SENDABLE_INVOICE } from './invoices.service.js';
export { PaymentSchema } from './payments.schemas.js';
