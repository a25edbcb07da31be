// The FTS5 indexes kept in few segments, off the event loop. FTS5 writes each committed batch's terms as a new
// segment of the index and merges segments as they pile up (`automerge`: four of a level make one of the next),
// so at a million clients the index is nine segments over four levels, and a search reads each of its trigrams in
// every one: the ids' read of `q=<one e-mail>` took 1.66 ms over nine segments and 0.74 over one (bench/README.md,
// "SQLite: the FTS5 index's segments"). Merging them all into one is FTS5's `merge` with a negative page count,
// run in steps; a step cannot split a term's list of rows, so at a million clients a step took 10 ms at p50 and up
// to 134 ms (the whole merge 188 steps, 4.6 s: bench/README.md). Each step runs
// on the checkpoint thread's connection (db/sqlite/sqlite-checkpoint.ts), while the server's writer is held with
// its batch committed (GroupCommit.whileWriterIdle): a write that arrives meanwhile waits for the step
// (asynchronously, as for another write) instead of the writer's `BEGIN IMMEDIATE` blocking the event loop, and
// reads go on.
//
// When: once the writes pause (TIDY_DELAY_MS with no commit), an index whose segments other than its largest hold an
// eighth of its largest's pages or more (needsMerge). The first step begins the merge of every segment (a negative
// page count); the next ones go on with it (a positive count), so the segments a write adds meanwhile stand beside
// it and the merge is not begun again (a negative step after a write merges the unfinished output with the rest once
// more: 55 steps instead of 45 on a test index); it is taken to its end, the writes going first between steps. While
// a merge is unfinished, FTS5's own merging inside the writer's batches would go on with it on the event loop.
// Under a stream of creates no merge begins: a tidy that ran between creates merged the whole (growing) index again
// and again, and the durable create's CPU went from 240 to 408 µs a request (bench:hot). The eighth bounds how often
// the index is rewritten (after it has grown by an eighth), and keeps FTS5's own merges, inside the writer's
// batches, among the newer, smaller segments.
import { onCheckpointThread } from './sqlite-checkpoint.js';

/** How long the writes pause (no commit) before the indexes are looked at. */
const TIDY_DELAY_MS = 2000;
/** About how many pages a merge step writes (a step holds the server's writes back while it runs). */
const STEP_PAGES = 100;
/** Failed tidies in a row after which the tidy stops (FTS5's own merging still runs). */
const MAX_FAILURES = 3;

/**
 * Whether an index of segments of these sizes (pages) is merged into one: its segments other than the largest
 * hold an eighth of the largest's pages or more.
 */
export function needsMerge(pages: readonly number[]): boolean {
  if (pages.length < 2) return false;
  const largest = Math.max(...pages);
  const others = pages.reduce((sum, size) => sum + size, 0) - largest;
  return others * 8 >= largest;
}

/** What the tidy needs of the writer: its turn, with no batch open (db/sqlite/group-commit.ts). */
export interface IdleWriter {
  whileWriterIdle<T>(work: () => Promise<T>): Promise<T>;
}

/**
 * Tidies one database file's FTS5 indexes once its writes pause: TIDY_DELAY_MS after the last commit, a merge
 * begun then taken to its end.
 */
export class IndexTidy {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  /** A commit since the running tidy began: another follows the next pause. */
  private dirty = false;
  private closed = false;
  private failures = 0;

  constructor(
    private readonly file: string,
    private readonly writer: IdleWriter,
  ) {
    // A database opened with an untidy index (a server started on a file another process wrote) is looked at too.
    this.committed();
  }

  /** A batch committed: the tidy waits until TIDY_DELAY_MS have passed with no commit. */
  committed(): void {
    this.dirty = true;
    if (this.running || this.closed) return;
    if (this.timer) {
      this.timer.refresh();
      return;
    }
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.running = this.tidy().finally(() => {
        this.running = undefined;
        if (this.dirty) this.committed();
      });
    }, TIDY_DELAY_MS);
    this.timer.unref();
  }

  /** Each index that needs it merged into one segment, a step at a time, until done or the database closes. */
  private async tidy(): Promise<void> {
    this.dirty = false;
    try {
      const indexes = await onCheckpointThread<Record<string, number[]>>({ file: this.file, segments: true });
      for (const [fts, segments] of Object.entries(indexes)) {
        if (!needsMerge(segments)) continue;
        for (let begun = false; !this.closed; begun = true) {
          const worked = await this.writer.whileWriterIdle(async () =>
            this.closed
              ? false
              : onCheckpointThread<boolean>({ file: this.file, merge: fts, pages: begun ? STEP_PAGES : -STEP_PAGES }),
          );
          // The step's log copied into the database file (its connection never checkpoints inside a step), the
          // writer free meanwhile: the writes that queued for it during the step go before the next step.
          await onCheckpointThread(this.file);
          if (!worked) break;
        }
      }
      this.failures = 0;
    } catch (error) {
      // Tried again at the next pause: a write is not needed for that.
      this.dirty = true;
      this.failures += 1;
      if (this.failures < MAX_FAILURES) return;
      this.closed = true;
      process.emitWarning(`${(error as Error).message}; the FTS5 indexes are left to FTS5's own merging`);
    }
  }

  /** No more tidies; waits for the running one (it stops after its current step). */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }
}
