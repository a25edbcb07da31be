// The FTS5 indexes kept in few segments, off the event loop. FTS5 writes each committed batch's terms as a new
// segment of the index and merges segments as they pile up (`automerge`: four of a level make one of the next),
// so at a million clients the index is nine segments over four levels, and a search reads each of its trigrams in
// every one: the ids' read of `q=<one e-mail>` took 1.66 ms over nine segments and 0.74 over one (bench/README.md,
// "SQLite: the FTS5 index's segments"). Merging them all into one is FTS5's `merge` with a negative page count,
// run in steps; a step cannot split a term's list of rows, so at a million rows one takes 40–184 ms. Each step runs
// on the checkpoint thread's connection (db/sqlite/sqlite-checkpoint.ts), while the server's writer is held with
// its batch committed (GroupCommit.whileWriterIdle): the server's writes wait for the step (asynchronously, as for
// each other) instead of its `BEGIN IMMEDIATE` blocking the event loop, and reads go on. The writes that arrived
// during a step go before the next one.
//
// When: a while after commits (TIDY_DELAY_MS), an index whose segments other than its largest hold an eighth of
// its largest's pages or more (needsMerge), so that the whole index is rewritten only after it has grown by about
// an eighth since it was last: a write is merged again a bounded number of times, and the largest of FTS5's own
// merges, inside the writer's batches, stays among the newer, smaller segments.
import { onCheckpointThread } from './sqlite-checkpoint.js';
import type { Merged } from './sqlite-checkpoint-worker.js';

/** How long after a commit the indexes are looked at: commits in between share one look. */
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

/** Tidies one database file's FTS5 indexes after its commits, one tidy at a time. */
export class IndexTidy {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  /** Commits since the running tidy began: another one follows it. */
  private dirty = false;
  private closed = false;
  private failures = 0;
  /** Merge steps run: the tests' and the benchmark's evidence. */
  steps = 0;

  constructor(
    private readonly file: string,
    private readonly writer: IdleWriter,
  ) {
    // A database opened with an untidy index (a server started on a file another process wrote) is looked at too.
    this.committed();
  }

  /** A batch committed: a tidy follows within TIDY_DELAY_MS (or after the one running). */
  committed(): void {
    this.dirty = true;
    if (this.timer || this.running || this.closed) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.running = this.tidy().finally(() => {
        this.running = undefined;
        if (this.dirty) this.committed();
      });
    }, TIDY_DELAY_MS);
    this.timer.unref();
  }

  /** Each index that needs it merged into one segment, a step at a time; the same as `committed` then waits for. */
  async tidy(): Promise<void> {
    this.dirty = false;
    try {
      const indexes = await onCheckpointThread<Record<string, number[]>>({ file: this.file, segments: true });
      for (const [fts, segments] of Object.entries(indexes)) {
        // Until the segments there were are one: a step's writes in between add segments of their own, too
        // small to merge the whole index again for (needsMerge).
        let pages = segments;
        while (!this.closed && needsMerge(pages)) {
          const step = await this.writer.whileWriterIdle(() =>
            onCheckpointThread<Merged>({ file: this.file, merge: fts, pages: STEP_PAGES }),
          );
          if (!step.worked) break;
          this.steps += 1;
          pages = step.pages;
          // The writes that queued for the writer during the step take it before the next step does.
          await new Promise((resolve) => setImmediate(resolve));
        }
      }
      this.failures = 0;
    } catch (error) {
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
