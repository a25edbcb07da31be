// The face of the e-invoices module (docs/api-contract.md §31): what other modules and the composition may use.
export { einvoiceFile, einvoiceModel, facturxFile, refusal, writeModel, type XmlFormat } from './einvoices.service.js';
export { EinvoiceValidationSchema } from './validation.service.js';
export type { EinvoiceKind, EinvoiceModel, EinvoiceProblem } from './einvoice.model.js';
export { freezeCreditNote, freezeEinvoice } from './freezing.js';
