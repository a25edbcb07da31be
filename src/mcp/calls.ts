// The MCP server's safety for writes (docs/api-contract.md §20, §32): a dry run (the operation in a transaction
// that is rolled back, so it answers exactly what would happen and changes nothing), a retried write answered
// from its record instead of acting again (only while nothing it read or wrote has changed, and within 10
// minutes), and the confirmation tokens of sends and money: bound to the key, the tool, the exact arguments
// and the version of each object the summary describes, valid 10 minutes, used once.
import { createHash, randomBytes } from 'node:crypto';
import { newId } from '../core/deps.js';
import { type Executor, fromJson } from '../db/index.js';
import type { McpCallRow } from '../db/types.js';
import { type Context, inTransaction } from '../kernel/context.js';
import { lockObjects, type ObjectRef, type ObjectVersion, sameVersions, versionsOf } from './versions.js';

export const CONFIRMATION_TTL_MS = 10 * 60 * 1000;
/** How long a write's answer is replayed to a repeat of the same call (same key, tool and arguments). */
export const REPLAY_TTL_MS = 10 * 60 * 1000;

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** The same JSON with its keys in a fixed order, so a retry that reorders fields is the same call. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, canonical((value as Record<string, unknown>)[key])]),
    );
  return value;
}

export function argumentsHash(tool: string, args: Record<string, unknown>): string {
  return sha256(`${tool}\n${JSON.stringify(canonical(args))}`);
}

class Rollback {
  constructor(readonly result: unknown) {}
}

/** Runs `work` in a transaction that is always rolled back: its answer, and no change, no event, no e-mail. */
export async function dryRun<T>(ctx: Context, work: (tx: Context) => Promise<T>): Promise<T> {
  const db = ctx.db as Executor & { transaction(): { execute<R>(run: (trx: Executor) => Promise<R>): Promise<R> } };
  try {
    await db.transaction().execute(async (trx) => {
      throw new Rollback(await work({ ...ctx, db: trx }));
    });
  } catch (error) {
    if (error instanceof Rollback) return error.result as T;
    throw error;
  }
  throw new Error('unreachable: a dry run always rolls back');
}

async function findCall(db: Executor, callHash: string): Promise<McpCallRow | undefined> {
  return db.selectFrom('mcp_calls').selectAll().where('call_hash', '=', callHash).executeTakeFirst();
}

function keyId(ctx: Context): string {
  if (ctx.actor.id === null) throw new Error('an MCP call without a key');
  return ctx.actor.id;
}

/** Forgets calls whose time is long past (a day after they expired), a few at a time. */
async function pruneCalls(db: Executor, now: Date): Promise<void> {
  const before = new Date(now.getTime() - 24 * 3_600_000).toISOString();
  const old = await db.selectFrom('mcp_calls').select('id').where('expires_at', '<', before).limit(100).execute();
  if (old.length > 0)
    await db
      .deleteFrom('mcp_calls')
      .where(
        'id',
        'in',
        old.map((row) => row.id),
      )
      .execute();
}

export type Replayed<T> = { result: T; replayed: boolean };

/**
 * Whether a recorded call may answer a repeat from memory: it acted, within the last 10 minutes, and every object
 * it read or wrote is still at the version it left it in (checked on every path that replays).
 */
async function replayable(ctx: Context, row: McpCallRow, now: Date): Promise<boolean> {
  if (row.result == null || row.versions == null || row.voided_at != null) return false;
  if (row.expires_at <= now.toISOString()) return false;
  const then = fromJson<ObjectVersion[]>(row.versions);
  return sameVersions(then, await versionsOf(ctx, then));
}

/**
 * A write that is not confirmed (a create, a move): a repeat by the same key with the same arguments is answered
 * what the call answered, and acts no more, while nothing it read or wrote (`touches`: its objects, from its
 * arguments and result) has changed and within 10 minutes; otherwise it acts anew.
 */
export async function onceByArguments<T>(
  ctx: Context,
  tool: string,
  args: Record<string, unknown>,
  act: (tx: Context) => Promise<T>,
  touches: (result: T) => ObjectRef[],
): Promise<Replayed<T>> {
  const hash = argumentsHash(tool, args);
  const callHash = sha256(`call\n${keyId(ctx)}\n${hash}`);
  const now = ctx.clock.now();
  let outdated: string | undefined;
  try {
    const outcome = await inTransaction(ctx, async (tx) => {
      const earlier = await findCall(tx.db, callHash);
      if (earlier) {
        if (await replayable(tx, earlier, now)) return { result: fromJson<T>(earlier.result!), replayed: true };
        outdated = earlier.id;
        await tx.db.deleteFrom('mcp_calls').where('id', '=', earlier.id).execute();
      }
      const done = await act(tx);
      await tx.db
        .insertInto('mcp_calls')
        .values({
          id: newId(),
          account_id: tx.accountId,
          key_id: keyId(tx),
          tool,
          arguments_hash: hash,
          call_hash: callHash,
          result: JSON.stringify(done),
          versions: JSON.stringify(await versionsOf(tx, touches(done))),
          expires_at: new Date(now.getTime() + REPLAY_TTL_MS).toISOString(),
          completed_at: now.toISOString(),
          created_at: now.toISOString(),
        })
        .execute();
      return { result: done, replayed: false };
    });
    if (!outcome.replayed) await pruneCalls(ctx.db, now).catch(() => undefined);
    return outcome;
  } catch (error) {
    // The same call, run at the same moment, committed first: answer what it did, if that may be replayed. The
    // record this call found outdated (expired, or its objects changed) is never answered.
    const concurrent = await findCall(ctx.db, callHash);
    if (concurrent && concurrent.id !== outdated && (await replayable(ctx, concurrent, ctx.clock.now())))
      return { result: fromJson<T>(concurrent.result!), replayed: true };
    throw error;
  }
}

/**
 * A new confirmation token for these arguments of this tool, for this key, bound to the versions of the objects
 * its summary describes; only its hash is kept.
 */
export async function issueConfirmation(
  ctx: Context,
  tool: string,
  args: Record<string, unknown>,
  versions: ObjectVersion[],
): Promise<{ token: string; expiresAt: string }> {
  const token = `mcpc_${randomBytes(24).toString('base64url')}`;
  const now = ctx.clock.now();
  const expiresAt = new Date(now.getTime() + CONFIRMATION_TTL_MS).toISOString();
  await ctx.db
    .insertInto('mcp_calls')
    .values({
      id: newId(),
      account_id: ctx.accountId,
      key_id: keyId(ctx),
      tool,
      arguments_hash: argumentsHash(tool, args),
      call_hash: sha256(`token\n${token}`),
      result: null,
      versions: JSON.stringify(versions),
      expires_at: expiresAt,
      completed_at: null,
      created_at: now.toISOString(),
    })
    .execute();
  return { token, expiresAt };
}

export class ConfirmationRefused extends Error {}

/** What a confirming call came to: it acted, it answered what an earlier use did, or its token is void. */
export type Confirmation<T> =
  | { status: 'done'; result: T }
  | { status: 'replayed'; result: T }
  | { status: 'changed'; used: boolean };

export interface ConfirmedSteps<T> {
  /** The versions, now, of the objects the summary describes (read in the action's transaction). */
  describe(tx: Context): Promise<ObjectVersion[]>;
  act(tx: Context): Promise<T>;
  /** The objects the action wrote, beyond those described (a payment it made). */
  touches(result: T): ObjectRef[];
}

/**
 * Acts once on a confirmation token: refused when the token is unknown, another key's, for another tool or
 * other arguments, or expired. When an object its summary described has changed since (its version is not the
 * one the token binds), the token is void and nothing is done: `changed` (the caller answers a fresh summary).
 * A used token answers what its call did, and acts no more, while what that call wrote is unchanged and within
 * 10 minutes of it.
 */
export async function confirmed<T>(
  ctx: Context,
  tool: string,
  args: Record<string, unknown>,
  token: string,
  steps: ConfirmedSteps<T>,
): Promise<Confirmation<T>> {
  const callHash = sha256(`token\n${token}`);
  const row = await findCall(ctx.db, callHash);
  if (!row || row.key_id !== keyId(ctx) || row.account_id !== ctx.accountId)
    throw new ConfirmationRefused(
      'This confirmation_token is not one this key was given. Call the tool again without it to get a summary and a new token.',
    );
  if (row.tool !== tool || row.arguments_hash !== argumentsHash(tool, args))
    throw new ConfirmationRefused(
      'This confirmation_token was issued for different arguments. Nothing was done. Call the tool again without a token to confirm these arguments.',
    );
  const now = ctx.clock.now();
  if (row.voided_at !== null) return { status: 'changed', used: false };
  if (row.completed_at !== null && row.result !== null) return answeredBefore(ctx, row, now);
  if (row.expires_at <= now.toISOString())
    throw new ConfirmationRefused(
      'This confirmation_token has expired (tokens last 10 minutes). Nothing was done. Call the tool again without it for a new summary and token.',
    );
  const outcome = await inTransaction(ctx, async (tx): Promise<Confirmation<T> | undefined> => {
    const bound = row.versions === null ? null : fromJson<ObjectVersion[]>(row.versions);
    if (bound) await lockObjects(tx, bound);
    if (bound === null || !sameVersions(bound, await steps.describe(tx))) {
      await tx.db
        .updateTable('mcp_calls')
        .set({ voided_at: now.toISOString() })
        .where('id', '=', row.id)
        .where('completed_at', 'is', null)
        .execute();
      return { status: 'changed', used: false };
    }
    const claimed = await tx.db
      .updateTable('mcp_calls')
      .set({ completed_at: now.toISOString() })
      .where('id', '=', row.id)
      .where('completed_at', 'is', null)
      .where('voided_at', 'is', null)
      .executeTakeFirst();
    if (Number(claimed.numUpdatedRows) === 0) return undefined;
    const done = await steps.act(tx);
    const written = await versionsOf(tx, [...bound, ...steps.touches(done)]);
    await tx.db
      .updateTable('mcp_calls')
      .set({
        result: JSON.stringify(done),
        versions: JSON.stringify(written),
        expires_at: new Date(now.getTime() + REPLAY_TTL_MS).toISOString(),
      })
      .where('id', '=', row.id)
      .execute();
    return { status: 'done', result: done };
  });
  if (outcome !== undefined) return outcome;
  // Another call with this token got there first: answer what it did.
  const done = await findCall(ctx.db, callHash);
  if (done?.voided_at != null) return { status: 'changed', used: false };
  if (done?.result != null) return answeredBefore(ctx, done, ctx.clock.now());
  throw new ConfirmationRefused('This confirmation_token is being used by another call right now; retry in a moment.');
}

/** A used token: its call's answer while that may be replayed; void once what it wrote changed; else expired. */
async function answeredBefore<T>(ctx: Context, row: McpCallRow, now: Date): Promise<Confirmation<T>> {
  if (await replayable(ctx, row, now)) return { status: 'replayed', result: fromJson<T>(row.result!) };
  if (row.expires_at <= now.toISOString())
    throw new ConfirmationRefused(
      'This confirmation_token was used more than 10 minutes ago; nothing more was done. Call the tool again without it for a new summary and token.',
    );
  return { status: 'changed', used: true };
}
