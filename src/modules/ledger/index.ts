// The face of the ledger module: what other modules, the workers and the composition may use. The rest is private.
export {
  ClientBalanceSchema,
  INVOICE_DOCUMENT_TYPES,
  LEDGER_ENTRY_TYPES,
  LedgerEntrySchema,
  type LedgerEntryType,
} from './ledger.schemas.js';
export {
  AMOUNT_COLUMNS,
  DAY_TOTAL_TYPES,
  type DayTotalAmounts,
  type DayTotalSource,
  dayTotalSharesOf,
  findDayTotals,
  rateKeyOf,
  untaxedOf,
} from './ledger.day-totals.js';
export {
  CASH_TYPES,
  type CashEntry,
  type CashMove,
  cashMovesOf,
  cashSharesOf,
  CASH_AMOUNT_COLUMNS,
  findCashDayTotals,
  type MoveTax,
} from './ledger.cash-totals.js';
export { largestRemainder, proRata } from './ledger.money.js';
export {
  figureHistoriesOf,
  findInvoiceFiguresMovedAfter,
  invoiceFiguresOf,
  type JobSums,
  jobSumPieces,
  jobSumsQuery,
} from './ledger.invoice-figures.js';
export {
  type ClientPiece,
  clientPieces,
  daysBefore,
  entriesOfItems,
  findItemsMovedAfter,
  findOpenItemsOn,
  findSettledOpenInvoices,
  findSettledOpenItemSums,
  findStillOpenMovedAfter,
  type FoundOpenItem,
  itemKeyOf,
  lastEntrySequence,
  type OpenItemEntry,
  type OpenItemKey,
  openItemMovesOf,
  openingOn,
  REPORT_PIECES,
  openItemsOnQuery,
  type SettledOpenInvoice,
  type SettledSum,
  settledOpenInvoicesQuery,
  settledOpenItemSumsQuery,
  stillOpenMovedAfterQuery,
} from './ledger.open-items.js';
export {
  effectiveDateOf,
  type EntryDraft,
  getClientBalance,
  getLedgerEntry,
  listLedgerEntries,
  postEntries,
  presentLedgerEntry,
} from './ledger.service.js';
