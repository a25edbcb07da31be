// The face of the recurring-invoices module: what the workers and the composition may use. The rest is private.
export { RecurringInvoiceSchema } from './recurring-invoices.schemas.js';
export { makeNextOccurrence, type Turn } from './making.js';
export { dueTemplates } from './recurring-invoices.repository.js';
