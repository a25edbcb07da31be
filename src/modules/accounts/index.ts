// The face of the accounts module: what other modules, the workers and the composition may use. The rest is private.
export {
  findAccount,
  findAccountReminders,
  listAccountsWithReminders,
  findAccountTimezone,
  findLogo,
  findLogoHash,
  hasLogo,
} from './accounts.repository.js';
export {
  AccountSchema,
  DEFAULT_PAYMENT_TERMS_DAYS,
  LogoBody,
  type LogoInput,
  type QuoteSignatureMode,
} from './accounts.schemas.js';
export { decodeLogo } from './logo.js';
export {
  accountExists,
  bootstrapDefaultAccount,
  businessOnDocument,
  createAccount,
  findQuoteSignatureMode,
  getAccount,
  printSettings,
} from './accounts.service.js';
export { type BookingSettings, bookingSettings } from './booking.js';
export {
  DEFAULT_REMINDERS,
  readReminders,
  type ReminderReading,
  type ReminderSettings,
  reminderSettings,
  type ReminderStep,
} from './reminders.js';
export { DEFAULT_LOCALE, effectivePaperSize, type PaperSize } from './locale.js';
export {
  accountLimits,
  DEFAULT_MAX_RECURRING_INVOICES,
  DEFAULT_MAX_WEBHOOK_ENDPOINTS,
  setAccountLimits,
} from './limits.js';
