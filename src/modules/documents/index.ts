// The face of the documents module: what other modules, the workers and the composition may use. The rest is private.
export { assertClientKept, assertCurrencyKept } from './client-link.js';
export {
  CurrencySchema,
  DateSchema,
  DELIVERY_STATUSES,
  type DeliveryStatus,
  deliveryStatusField,
  documentFields,
  hostedUrlField,
  NoBody,
  nullableDate,
  nullableTimestamp,
  PropertyReferenceInput,
  ReferenceSchema,
  SendBody,
  type SendInput,
  pricingInputFields,
  totalsFields,
} from './document.schemas.js';
export {
  hostedLinkOnClientChange,
  hostedLinkOnSend,
  isHostedToken,
  newHostedLink,
  presentHostedUrl,
} from './hosted-links.js';
export {
  DiscountSchema,
  InvoiceLineItemsInputSchema,
  type KeptLineFields,
  type LineItem,
  type LineItemInput,
  LineItemSchema,
  LineItemsInputSchema,
  type TaxBreakdown,
  TaxBreakdownSchema,
} from './line-items.js';
export {
  type PricedColumns,
  pricingForNew,
  pricingForUpdate,
  type PricingInput,
  pricingWithAddedLines,
  propertyAfter,
} from './pricing.js';
export { idFilter, parseStatusFilter, statusFilter } from './list-filters.js';
export { documentFieldChecks } from './field-checks.js';
export { type DocumentCost, documentCostOf } from './line-costs.js';
export { MAX_AMOUNT, multiplyDivideRounded } from './money.js';
export { withoutStoring } from './preview.js';
export { nextNumber, numberOnSend } from './numbering.js';
export { accountCurrency, addDays, lineItemsOf, localToday, presentPriced } from './priced.js';
export {
  assertHasHostedLink,
  assertSendable,
  documentSnapshot,
  type PrintableDocument,
  queueDocumentMail,
  type SendableKind,
  type SentKind,
} from './sending.js';
export {
  assertDeletable,
  assertEditable,
  assertHolds,
  assertMove,
  breaks,
  describeTransitions,
  enter,
  type Lifecycle,
  type TransitionTable,
} from './lifecycle.js';
export { shareInProportion } from './fractions.js';
