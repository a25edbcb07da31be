// Accounts: created from the CLI (or once, on an empty development database).
import type { Clock } from '../../core/deps.js';
import { newId } from '../../core/deps.js';
import type { Db, Executor } from '../../db/database.js';
import { countAccounts, findAccount, insertAccount } from './accounts.repository.js';
import { createApiKey, type CreatedApiKey } from '../api-keys/api-keys.service.js';
import { SCOPES } from '../api-keys/scopes.js';

export interface Account {
  id: string;
  name: string;
  currency: string;
  created_at: string;
}

export async function createAccount(db: Executor, clock: Clock, input: { name: string; currency?: string }): Promise<Account> {
  const name = input.name.trim();
  if (name === '' || name.length > 200) throw new Error('An account name must be 1 to 200 characters.');
  const currency = (input.currency ?? 'USD').toUpperCase();
  if (!/^[A-Z]{3}$/.test(currency)) throw new Error('A currency must be a three-letter ISO 4217 code, e.g. USD.');
  const now = clock.now().toISOString();
  const row = { id: newId(), name, currency, created_at: now, updated_at: now };
  await insertAccount(db, row);
  return { id: row.id, name, currency, created_at: now };
}

export async function accountExists(db: Db, id: string): Promise<boolean> {
  return (await findAccount(db, id)) !== undefined;
}

/**
 * First run in development: with no account at all, create one and an all-scopes key so a newcomer
 * can call the API at once. Returns the key (shown once) or undefined when accounts already exist.
 */
export async function bootstrapDefaultAccount(db: Db, clock: Clock, pepper: string | undefined): Promise<{ account: Account; key: CreatedApiKey } | undefined> {
  return db.transaction().execute(async (trx) => {
    if ((await countAccounts(trx)) > 0) return undefined;
    const account = await createAccount(trx, clock, { name: 'My Business' });
    const key = await createApiKey(trx, clock, pepper, { accountId: account.id, name: 'Default key', scopes: [...SCOPES] });
    return { account, key };
  });
}
