// The face of the e-invoices module (docs/api-contract.md §31): what other modules and the composition may use.
export {
  type EinvoiceFormat,
  einvoiceFile,
  einvoiceModel,
  facturxFile,
  refusal,
  writeModel,
  type XmlFormat,
} from './einvoices.service.js';
export { EinvoiceValidationSchema, type EinvoiceValidator, validateEinvoice } from './validation.service.js';
export type { EinvoiceKind, EinvoiceModel, EinvoiceProblem } from './einvoice.model.js';
export { freezeCreditNote, freezeEinvoice } from './freezing.js';
