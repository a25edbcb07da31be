// The face of the quotes module: what other modules, the workers and the composition may use. The rest is private.
export { findQuote, findQuoteByToken, setQuoteDeliveryStatus } from './quotes.repository.js';
export { CreateQuoteBody, ListQuotesQuery, type Quote, QuoteSchema } from './quotes.schemas.js';
export {
  answerQuote,
  changeQuoteDepositPaid,
  lockDepositQuote,
  convertQuote,
  createQuote,
  getQuote,
  listQuotes,
  presentQuote,
  quoteVersion,
  updateQuote,
  SENDABLE_QUOTE,
  type QuoteAnswer,
} from './quotes.service.js';
export { isQuoteExpired } from './quotes.lifecycle.js';
export { signedDocument } from './signatures.js';
export { depositAmountOf } from './quotes.deposits.js';
