// The orphan sweeper (docs/api-contract.md §30): removes stored files that no attachment names once they are 24
// hours old, and staged files an upload left (refused, failed, or its process killed) after as long. A file is
// put before its row commits, so a young file without a row may be an upload in flight: it is left alone. An
// upload that finds its bytes stored renews the file's age before its row commits, and puts it back from its
// staged copy should the sweeper have taken it meanwhile (attachments.service.ts).
// A delete (of an upload, or of a parent with its attachments) queues its files in its transaction; a pass removes
// each once no row names it, as soon as no upload has renewed it for IN_FLIGHT_MS.
import type { Executor } from '../../db/index.js';
import { dropRemoval, isNamed, queuedRemovals } from './attachments.repository.js';
import { type AttachmentStore, sweepStaging } from './store.js';

export const ORPHAN_AGE_MS = 24 * 60 * 60 * 1000;
/**
 * An upload puts (or renews) its file before its row commits, in well under this: a queued file younger than it
 * may belong to an upload in flight, and waits for a later pass.
 */
export const IN_FLIGHT_MS = 10 * 60 * 1000;

/** The files deletes queued, removed when no row names them: how many were removed. */
export async function removeQueued(db: Executor, store: AttachmentStore, now: Date): Promise<number> {
  let removed = 0;
  for (const queued of await queuedRemovals(db, 1000)) {
    if (!(await isNamed(db, queued.account_id, queued.sha256))) {
      const key = `${queued.account_id}/${queued.sha256}`;
      const file = await store.head(key);
      if (file && now.getTime() - file.modifiedAt.getTime() < IN_FLIGHT_MS) continue;
      if (file) {
        await store.delete(key);
        removed += 1;
      }
    }
    await dropRemoval(db, queued.account_id, queued.sha256);
  }
  return removed;
}

/** One pass over the store (the queued files first): how many files it removed. */
export async function sweepOrphans(
  db: Executor,
  store: AttachmentStore,
  now: Date,
  ageMs = ORPHAN_AGE_MS,
): Promise<number> {
  let removed = (await removeQueued(db, store, now)) + (await sweepStaging(store, now, ageMs));
  let after: string | undefined;
  for (;;) {
    const files = await store.list('', after);
    if (files.length === 0) break;
    for (const file of files) {
      after = file.key;
      if (now.getTime() - file.modifiedAt.getTime() < ageMs) continue;
      const [accountId, sha256] = file.key.split('/');
      if (accountId === undefined || sha256 === undefined) continue;
      if (await isNamed(db, accountId, sha256)) continue;
      // Looked at again just before: an upload of the same bytes renews the file's age first.
      const current = await store.head(file.key);
      if (!current || now.getTime() - current.modifiedAt.getTime() < ageMs) continue;
      await store.delete(file.key);
      removed += 1;
    }
    if (files.length < 1000) break;
  }
  return removed;
}
