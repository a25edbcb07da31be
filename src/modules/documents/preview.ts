// A create run to its answer and then undone (docs/api-contract.md §19 preview): the same code computes the
// document as POST stores it, inside a transaction that is always rolled back, so nothing is stored, no
// event is recorded and no counter moves.
import type { Context } from '../../kernel/context.js';

const ROLLBACK = Symbol('preview rollback');

export async function withoutStoring<T>(ctx: Context, create: (tx: Context) => Promise<T>): Promise<T> {
  if (ctx.db.isTransaction) throw new Error('a preview opens its own transaction');
  let answer: { value: T } | undefined;
  try {
    await ctx.db.transaction().execute(async (trx) => {
      answer = { value: await create({ ...ctx, db: trx }) };
      throw ROLLBACK;
    });
  } catch (error) {
    if (error !== ROLLBACK) throw error;
  }
  if (!answer) throw new Error('preview: the create did not answer');
  return answer.value;
}
