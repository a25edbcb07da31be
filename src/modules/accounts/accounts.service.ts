// Accounts: created from the CLI (or once, on an empty development database); their business profile and
// logo read and changed through /v1/account.
import { hash } from 'node:crypto';
import type { Clock } from '../../core/deps.js';
import { newId } from '../../core/deps.js';
import { fieldError, type Precondition, validationError } from '../../core/errors.js';
import { canonicalTimeZone } from '../../core/time.js';
import { type Db, type Executor, fromJson } from '../../db/index.js';
import type { AccountRow } from '../../db/types.js';
import type { MailBusiness } from '../../mail/document-mail.js';
import type { PdfPool } from '../../mail/pdf-pool.js';
import { createApiKey, type CreatedApiKey } from '../api-keys/index.js';
import { SCOPES } from '../../kernel/scopes.js';
import { type Context, inTransaction } from '../../kernel/context.js';
import { requireTaxRates } from '../catalog/index.js';
import {
  checkWorkingHours,
  einvoicingProblems,
  mergeEinvoicing,
  presentAddress,
  readEinvoicing,
  serializeAddress,
  type WorkingHours,
} from '../shared/index.js';
import { bookingSettings, mergeBooking } from './booking.js';
import { mergeReminders, reminderSettings } from './reminders.js';
import * as repository from './accounts.repository.js';
import {
  DEFAULT_PAYMENT_TERMS_DAYS,
  type Account,
  type LogoInput,
  type QuoteSignatureMode,
  type UpdateAccountInput,
} from './accounts.schemas.js';
import { decodeLogo } from './logo.js';
import { accountLimits } from './limits.js';
import { canonicalLocale, DEFAULT_LOCALE, effectivePaperSize } from './locale.js';

export function presentAccount(row: AccountRow, hasLogo: boolean): Account {
  const address = presentAddress(row.address);
  const einvoicing = readEinvoicing(row.einvoicing);
  return {
    id: row.id,
    object: 'account',
    name: row.name,
    legal_name: row.legal_name,
    email: row.email,
    phone: row.phone,
    website: row.website,
    address,
    tax_id: row.tax_id,
    vat_id: einvoicing.vat_id,
    registration_id: einvoicing.registration_id,
    registration_scheme: einvoicing.registration_scheme,
    electronic_address: einvoicing.electronic_address,
    payment_account: einvoicing.payment_account,
    einvoicing_enabled: einvoicing.einvoicing_enabled,
    currency: row.currency,
    payment_terms_days: row.payment_terms_days,
    payment_instructions: row.payment_instructions,
    invoice_footer: row.invoice_footer,
    quote_footer: row.quote_footer,
    timezone: row.timezone,
    locale: row.locale,
    paper_size: effectivePaperSize(row.paper_size, address?.country, row.locale),
    paper_size_source: row.paper_size === null ? 'country' : 'account',
    default_tax_rate_ids: fromJson<string[]>(row.default_tax_rate_ids ?? '[]'),
    prices_include_tax: Number(row.prices_include_tax) === 1,
    rounding: row.rounding as 'per_line' | 'per_document',
    working_hours: fromJson<WorkingHours>(row.working_hours ?? '[]'),
    booking: bookingSettings(row.booking),
    reminders: reminderSettings(row.reminders),
    time_billing_increment_minutes: Number(
      row.time_billing_increment_minutes ?? 3,
    ) as Account['time_billing_increment_minutes'],
    time_locked_through: row.time_locked_through ?? null,
    quote_signature: quoteSignatureMode(row.quote_signature),
    has_logo: hasLogo,
    attachment_storage: {
      used_bytes: Number(row.attachment_bytes ?? 0),
      quota_bytes: accountLimits(row).attachment_bytes,
    },
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** The stored mode as answered: `typed` unless `drawn` (docs/api-contract.md §30). */
function quoteSignatureMode(stored: string | null | undefined): QuoteSignatureMode {
  return stored === 'drawn' ? 'drawn' : 'typed';
}

/** How a hub approval of the account's quotes is signed: the name typed, or the name and a drawing. */
export async function findQuoteSignatureMode(db: Executor, accountId: string): Promise<QuoteSignatureMode> {
  return quoteSignatureMode(await repository.findQuoteSignature(db, accountId));
}

export async function createAccount(
  db: Executor,
  clock: Clock,
  input: { name: string; currency?: string },
): Promise<Account> {
  const name = input.name.trim();
  if (name === '' || name.length > 200) throw new Error('An account name must be 1 to 200 characters.');
  const currency = (input.currency ?? 'USD').toUpperCase();
  if (!/^[A-Z]{3}$/.test(currency)) throw new Error('A currency must be a three-letter ISO 4217 code, e.g. USD.');
  const now = clock.now().toISOString();
  const row: AccountRow = {
    id: newId(),
    name,
    legal_name: null,
    email: null,
    phone: null,
    website: null,
    address: null,
    tax_id: null,
    currency,
    payment_terms_days: DEFAULT_PAYMENT_TERMS_DAYS,
    payment_instructions: null,
    invoice_footer: null,
    quote_footer: null,
    timezone: 'UTC',
    locale: DEFAULT_LOCALE,
    paper_size: null,
    max_webhook_endpoints: null,
    max_recurring_invoices: null,
    time_billing_increment_minutes: 3,
    time_locked_through: null,
    time_lock_updated_at: null,
    webhook_endpoints_version: 0,
    default_tax_rate_ids: '[]',
    prices_include_tax: 0,
    rounding: 'per_line',
    working_hours: '[]',
    booking: null,
    reminders: null,
    einvoicing: null,
    attachment_bytes: 0,
    max_attachment_bytes: null,
    quote_signature: 'typed',
    created_at: now,
    updated_at: now,
  };
  await repository.insertAccount(db, row);
  return presentAccount(row, false);
}

export async function accountExists(db: Db, id: string): Promise<boolean> {
  return (await repository.findAccount(db, id)) !== undefined;
}

/** The account of an authenticated key: it exists while the key does. */
async function getRow(db: Executor, accountId: string, lock = false): Promise<AccountRow> {
  const row = await repository.findAccount(db, accountId, lock);
  if (!row) throw new Error(`account ${accountId} is missing`);
  return row;
}

export async function getAccount(db: Executor, accountId: string): Promise<Account> {
  return presentAccount(await getRow(db, accountId), await repository.hasLogo(db, accountId));
}

/** In the caller's transaction when it holds one (an operation of a change set), else in its own. */
export async function updateAccount(
  ctx: Context,
  input: UpdateAccountInput,
  precondition?: Precondition,
): Promise<Account> {
  const { clock, accountId } = ctx;
  return inTransaction(ctx, async ({ db: trx }) => {
    const current = await getRow(trx, accountId, true);
    const logo = await repository.hasLogo(trx, accountId);
    precondition?.(presentAccount(current, logo));
    if (Object.keys(input).length === 0) return presentAccount(current, logo);
    const {
      address,
      default_tax_rate_ids: taxRateIds,
      prices_include_tax: inclusive,
      working_hours: hours,
      booking,
      reminders,
      vat_id,
      registration_id,
      registration_scheme,
      electronic_address,
      payment_account,
      einvoicing_enabled,
      ...fields
    } = input;
    const party = {
      vat_id,
      registration_id,
      registration_scheme,
      electronic_address,
      payment_account,
      einvoicing_enabled,
    };
    const problems = einvoicingProblems(party, current.einvoicing);
    if (problems.length > 0) throw validationError(problems);
    const patch: Partial<AccountRow> = { ...fields, updated_at: clock.now().toISOString() };
    const einvoicing = mergeEinvoicing(current.einvoicing, party);
    if (einvoicing !== undefined) patch.einvoicing = einvoicing;
    if (hours !== undefined) {
      checkWorkingHours('working_hours', hours);
      patch.working_hours = JSON.stringify(hours);
    }
    if (booking !== undefined) patch.booking = JSON.stringify(mergeBooking(bookingSettings(current.booking), booking));
    if (reminders !== undefined) {
      const before = reminderSettings(current.reminders);
      const next = mergeReminders(before, reminders);
      const kept = new Set(before.steps.flatMap((step) => step.late_fee?.tax_rate_ids ?? []));
      for (const [index, step] of next.steps.entries())
        if (step.late_fee && step.late_fee.tax_rate_ids.length > 0)
          await requireTaxRates(
            trx,
            accountId,
            `reminders.steps[${index}].late_fee.tax_rate_ids`,
            step.late_fee.tax_rate_ids,
            kept,
          );
      patch.reminders = JSON.stringify(next);
    }
    if (taxRateIds !== undefined) {
      const kept = new Set(fromJson<string[]>(current.default_tax_rate_ids ?? '[]'));
      await requireTaxRates(trx, accountId, 'default_tax_rate_ids', taxRateIds, kept);
      patch.default_tax_rate_ids = JSON.stringify(taxRateIds);
    }
    if (inclusive !== undefined) patch.prices_include_tax = inclusive ? 1 : 0;
    if (fields.timezone !== undefined) {
      patch.timezone = canonicalTimeZone('timezone', fields.timezone);
      // Recurring invoices run at their send_time in this zone: their next run is looked at again at once.
      if (patch.timezone !== current.timezone)
        await repository.rescheduleRecurringInvoices(trx, accountId, patch.updated_at as string);
    }
    if (fields.locale !== undefined) patch.locale = canonicalLocale('locale', fields.locale);
    if (address !== undefined) patch.address = serializeAddress(address);
    return presentAccount((await repository.updateAccount(trx, accountId, patch)) ?? current, logo);
  });
}

/** Stores the logo once the PDF renderer has drawn it (so every later document can), replacing any before. */
export async function putLogo(
  db: Db,
  clock: Clock,
  pdf: Pick<PdfPool, 'prepareLogo'>,
  accountId: string,
  input: LogoInput,
): Promise<Account> {
  const data = decodeLogo(input);
  const sha256 = hash('sha256', data);
  try {
    // The check is the logo's one decoding: the renderer keeps what it made for the documents to come.
    await pdf.prepareLogo(data, accountId, sha256);
  } catch {
    throw fieldError(
      'data',
      `is not a ${input.content_type === 'image/png' ? 'PNG' : 'JPEG'} image the renderer can read (damaged or unsupported encoding)`,
    );
  }
  return db.transaction().execute(async (trx) => {
    await getRow(trx, accountId, true);
    const now = clock.now().toISOString();
    await repository.replaceLogo(trx, {
      account_id: accountId,
      content_type: input.content_type,
      data,
      sha256,
      created_at: now,
    });
    return presentAccount((await repository.updateAccount(trx, accountId, { updated_at: now }))!, true);
  });
}

export async function deleteLogo(db: Db, clock: Clock, accountId: string): Promise<Account> {
  return db.transaction().execute(async (trx) => {
    const current = await getRow(trx, accountId, true);
    if (!(await repository.deleteLogo(trx, accountId))) return presentAccount(current, false);
    return presentAccount(
      (await repository.updateAccount(trx, accountId, { updated_at: clock.now().toISOString() }))!,
      false,
    );
  });
}

/** How the account's documents are printed: locale, paper and time zone (docs/api-contract.md §10, §14). */
export function printSettings(row: AccountRow): { locale: string; paper_size: 'letter' | 'a4'; timezone: string } {
  const { locale, paper_size, timezone } = presentAccount(row, false);
  return { locale, paper_size, timezone };
}

/** The business as a document prints it; the footer is the invoice's or the quote's. */
export function businessOnDocument(row: AccountRow, kind: 'invoice' | 'quote' | 'credit_note'): MailBusiness {
  const { name, legal_name, email, phone, website, address, tax_id, payment_instructions } = presentAccount(row, false);
  return {
    name,
    legal_name,
    email,
    phone,
    website,
    address,
    tax_id,
    payment_instructions,
    footer: kind === 'quote' ? row.quote_footer : row.invoice_footer,
  };
}

/**
 * First run in development: with no account at all, create one and an all-scopes key so a newcomer
 * can call the API at once. Returns the key (shown once) or undefined when accounts already exist.
 */
export async function bootstrapDefaultAccount(
  db: Db,
  clock: Clock,
  pepper: string | undefined,
): Promise<{ account: Account; key: CreatedApiKey } | undefined> {
  return db.transaction().execute(async (trx) => {
    if ((await repository.countAccounts(trx)) > 0) return undefined;
    const account = await createAccount(trx, clock, { name: 'My Business' });
    const key = await createApiKey(trx, clock, pepper, {
      accountId: account.id,
      name: 'Default key',
      scopes: [...SCOPES],
    });
    return { account, key };
  });
}
