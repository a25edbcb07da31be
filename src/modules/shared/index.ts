// The face of the shared module: what other modules, the workers and the composition may use. The rest is private.
export { type Address, AddressResponseSchema, AddressSchema, presentAddress, serializeAddress } from './address.js';
export { requireReference, requireRow } from './lookup.js';
export {
  externalIdConflict,
  findExternalIdHolder,
  findExternalIdHolders,
  guardExternalId,
  guardUnique,
  isUniqueViolation,
  type ExternalIdTable,
} from './external-ids.js';
export {
  LINE_REFERENCES,
  referenceChecks,
  type ReferenceChecks,
  type ReferencedField,
  type ReferencedTable,
} from './references.js';
export {
  checkWorkingHours,
  minutesOf,
  WEEKDAYS,
  type Weekday,
  type WorkingHours,
  WorkingHoursSchema,
} from './working-hours.js';
export {
  ElectronicAddressSchema,
  EinvoiceFormatSchema,
  einvoicingProblems,
  ibanHolds,
  mergeEinvoicing,
  PaymentAccountResponseSchema,
  PaymentAccountSchema,
  readEinvoicing,
  RegistrationSchemeSchema,
  registrationIdSchema,
  VatIdSchema,
  type EinvoiceFormat,
  type Einvoicing,
  type EinvoicingInput,
  type ElectronicAddress,
  type PaymentAccount,
} from './einvoicing.js';
