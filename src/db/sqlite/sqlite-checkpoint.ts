// SQLite's checkpoints off the event loop. In WAL mode SQLite copies the write-ahead log back into the
// database file from time to time (a checkpoint, syncing both files); by default it does so inside the COMMIT
// that takes the log past 1,000 pages, on the event loop: 37–81 ms stalls under a stream of writes
// (bench/README.md, "Repeating visits"). The writer's automatic checkpoint is off (wal_autocheckpoint=0) and
// one thread per process runs a PASSIVE checkpoint, on a connection of its own (kept until the database closes),
// shortly after commits. Should that thread fail, the writer's automatic checkpoint is turned back on: the log
// never grows without bound.
import { Piscina } from 'piscina';
import type { ThreadTask } from './sqlite-checkpoint-worker.js';

/** How soon after a commit the log is checkpointed: commits in between share one checkpoint. */
const CHECKPOINT_DELAY_MS = 200;
const MAX_FAILURES = 3;

// Under tsx (tests, development) the worker is the TypeScript source; in a build, the compiled file.
const WORKER = new URL(
  import.meta.url.endsWith('.ts') ? './sqlite-checkpoint-worker.ts' : './sqlite-checkpoint-worker.js',
  import.meta.url,
).href;

/**
 * The process's checkpoint thread, for every database it opened: started with the first database file and kept
 * while the process runs (unref'd while idle, so it holds no process open). Its memory (a thread's heap, about
 * 8 MB of RSS) is paid at start, not by whichever request's commit would have started it (the first upload
 * after a quiet spell grew the server by 9.8 MB, of which 8.5 were this thread: bench:attachments), and its
 * connection to each file stays open between checkpoints instead of going with the thread after 30 s idle.
 */
let pool: Piscina | undefined;
const checkpointThread = () => {
  pool ??= new Piscina({ filename: WORKER, minThreads: 1, maxThreads: 1 });
  return pool;
};

/** Runs a task on the checkpoint thread (its checkpoints, and the FTS5 indexes' tidy: db/sqlite/sqlite-index-tidy.ts). */
export function onCheckpointThread<Result>(task: ThreadTask): Promise<Result> {
  return checkpointThread().run(task) as Promise<Result>;
}

/** Checkpoints one database file's log after its commits, one checkpoint at a time. */
export class Checkpointer {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  /** Commits since the running checkpoint began: another one follows it. */
  private dirty = false;
  private closed = false;
  /** Checkpoints failed in a row (a moment's lock by a backup, say): at MAX_FAILURES the thread is given up. */
  private failures = 0;

  constructor(
    private readonly file: string,
    /** Called once if checkpoints keep failing: the writer turns its own automatic checkpoint back on. */
    private readonly onFailure: (error: Error) => void,
  ) {
    checkpointThread();
  }

  /** A batch committed: a checkpoint follows within CHECKPOINT_DELAY_MS (or after the one running). */
  committed(): void {
    this.dirty = true;
    if (this.timer || this.running || this.closed) return;
    this.timer = setTimeout(() => this.run(), CHECKPOINT_DELAY_MS);
    this.timer.unref();
  }

  private run(): void {
    this.timer = undefined;
    this.dirty = false;
    this.running = onCheckpointThread(this.file)
      .then(
        () => {
          this.failures = 0;
        },
        (error: Error) => {
          this.failures += 1;
          this.dirty = true;
          if (this.failures < MAX_FAILURES) return;
          this.closed = true;
          this.onFailure(error);
        },
      )
      .finally(() => {
        this.running = undefined;
        if (this.dirty) this.committed();
      });
  }

  /**
   * No more checkpoints; waits for the running one and closes the thread's connection to the file (kept since a
   * checkpoint, or the FTS5 indexes' tidy, opened it), so that the database's own last close checkpoints what is
   * left and removes the log.
   */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
    await onCheckpointThread({ file: this.file, close: true }).catch(() => {});
  }
}
