// The intake's threads, seen from the event loop (docs/decisions.md, "Attachments: uploads at speed" and "Attachments:
// a lone upload at full priority"): worker threads hash, check and write uploads' chunks (intake-worker.ts), so that
// the event loop only receives them and hands them over. Two threads: an upload that starts while no other is under
// way in the process goes to the `lone` thread, at the process's priority; one that starts beside others goes to
// the `shared` thread, at niceness 10 above it, so that many uploads take only the CPU the event loop leaves. They
// are started with the store (`openAttachmentStore`), not by the first upload, and keep the process alive only
// while an upload uses them.
import fs from 'node:fs';
import { Worker } from 'node:worker_threads';

export type ToIntake =
  | { kind: 'open'; id: number; fd: number; text: boolean }
  | { kind: 'chunks'; id: number; chunks: Uint8Array[] }
  | { kind: 'end'; id: number }
  | { kind: 'abort'; id: number };

export type FromIntake =
  | { kind: 'taken'; id: number; bytes: number }
  | { kind: 'ended'; id: number; sha256: string; textProblem: string | undefined; failed: string | undefined }
  | { kind: 'aborted'; id: number };

/** What the thread answers at an upload's end. */
export interface Taken {
  sha256: string;
  /** A declared text's first problem (text-check.ts). */
  textProblem: string | undefined;
}

/**
 * Bytes of one upload handed to the thread and not yet written: past it, the upload's stream waits (and TCP holds
 * its sender back), so that a slow disk never gathers a body in memory.
 */
const WINDOW_BYTES = 1024 * 1024;
/** Bytes of one upload gathered before they are handed over in one message (a message costs more than a chunk). */
const BATCH_BYTES = 256 * 1024;
/**
 * Bytes of one upload written between two flushes behind it: `fdatasync` on libuv's pool while the rest arrives,
 * so that the fsync before the upload's 201 (the store's) finds at most about this much still to write, not the
 * whole file (docs/decisions.md, "Attachments: the disk behind the upload"). One flush at a time in the process,
 * whichever upload's, so that many uploads take at most one of the pool's threads. Smaller files are flushed only
 * by the store's fsync.
 */
const FLUSH_BEHIND_BYTES = 2 * 1024 * 1024;

// Under tsx (tests, development) the worker is the TypeScript source, imported by the thread once it has
// registered tsx itself (a worker's entry does not see the process's `--import tsx`); in a build, the compiled file.
const UNDER_TSX = import.meta.url.endsWith('.ts');
const WORKER = new URL(UNDER_TSX ? './intake-worker.ts' : './intake-worker.js', import.meta.url);

/** Which thread an upload's chunks go to: `lone` when no other upload was under way as it began. */
export type IntakePriority = 'lone' | 'shared';

/** Each thread's niceness above the process's (intake-worker.ts lowers its own). */
const NICE: Record<IntakePriority, number> = { lone: 0, shared: 10 };

interface Pending {
  /** The thread its chunks go to. */
  thread: Worker;
  /** The staged file's descriptor (the caller's: open until the upload's end or abort has resolved). */
  fd: number;
  /** Bytes handed over, not yet written. */
  inFlight: number;
  /** Bytes written since the last flush behind began. */
  unflushed: number;
  /** Resolves the wait of a stream that handed over WINDOW_BYTES. */
  room: (() => void) | undefined;
  settle: ((message: FromIntake) => void) | undefined;
  fail: ((error: Error) => void) | undefined;
}

const workers = new Map<IntakePriority, Worker>();
let nextId = 1;
const pending = new Map<number, Pending>();
/** The flush behind under way, if any (one in the process), and whose. */
let flushing: { upload: Pending; done: Promise<void> } | undefined;

/** Starts a flush behind `upload` when it has written FLUSH_BEHIND_BYTES since its last and none is under way. */
function flushBehind(upload: Pending): void {
  if (upload.unflushed < FLUSH_BEHIND_BYTES || flushing) return;
  upload.unflushed = 0;
  // A failure here is not the upload's: the store's fsync, which the 201 waits for, reports its own.
  const done = new Promise<void>((resolve) => fs.fdatasync(upload.fd, () => resolve())).then(() => {
    flushing = undefined;
  });
  flushing = { upload, done };
}

/** Resolves once no flush behind `upload` is under way: its descriptor may then close. */
const flushedBehind = (upload: Pending) => (flushing?.upload === upload ? flushing.done : Promise.resolve());

/** Uploads under way in the process (their bytes being handed to either thread). */
export const uploadsUnderWay = () => pending.size;

/** Uploads under way on `thread`. */
function usersOf(thread: Worker): number {
  let count = 0;
  for (const upload of pending.values()) if (upload.thread === thread) count += 1;
  return count;
}

function settleAll(thread: Worker, error: Error): void {
  for (const [id, upload] of pending) {
    if (upload.thread !== thread) continue;
    pending.delete(id);
    upload.fail?.(error);
    upload.room?.();
  }
}

/** Both threads, started if they are not running. */
export function startIntakeThreads(): void {
  intakeThread('lone');
  intakeThread('shared');
}

/** A thread, started if it is not running (it is started again after a crash, which fails its uploads under way). */
function intakeThread(priority: IntakePriority): Worker {
  const running = workers.get(priority);
  if (running) return running;
  const workerData = { nice: NICE[priority] };
  const started = UNDER_TSX
    ? new Worker(
        `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then(({ register }) => { register(); return import(${JSON.stringify(WORKER.href)}); })`,
        { eval: true, workerData },
      )
    : new Worker(WORKER, { workerData });
  started.on('message', (message: FromIntake) => {
    const upload = pending.get(message.id);
    if (!upload) return;
    if (message.kind === 'taken') {
      upload.inFlight -= message.bytes;
      upload.unflushed += message.bytes;
      flushBehind(upload);
      if (upload.inFlight < WINDOW_BYTES && upload.room) {
        const room = upload.room;
        upload.room = undefined;
        room();
      }
    } else upload.settle?.(message);
  });
  const gone = (error: Error) => {
    if (workers.get(priority) === started) workers.delete(priority);
    settleAll(started, error);
  };
  started.on('error', gone);
  started.on('exit', (code) => gone(new Error(`the intake thread stopped (${code})`)));
  // After the listeners: adding one refs the thread again.
  started.unref();
  workers.set(priority, started);
  return started;
}

/** One upload's bytes through the thread, written to the open file `fd`; `text` checks them as declared text. */
export class ThreadIntake {
  private readonly id = nextId++;
  private readonly thread = intakeThread(pending.size === 0 ? 'lone' : 'shared');
  private readonly upload: Pending;
  private error: Error | undefined;
  private batch: Uint8Array[] = [];
  private batchBytes = 0;

  constructor(fd: number, text: boolean) {
    this.upload = {
      thread: this.thread,
      fd,
      inFlight: 0,
      unflushed: 0,
      room: undefined,
      settle: undefined,
      fail: undefined,
    };
    if (usersOf(this.thread) === 0) this.thread.ref();
    pending.set(this.id, this.upload);
    this.upload.fail = (error) => {
      this.error = error;
    };
    this.send({ kind: 'open', id: this.id, fd, text });
  }

  private send(message: ToIntake, transfer?: ArrayBuffer[]): void {
    this.thread.postMessage(message, transfer);
  }

  /**
   * Hands `chunk` over (with the next ones, BATCH_BYTES at a time). When the chunk is the stream's own (`owned`:
   * nothing else reads it afterwards) and alone in its memory, that memory is moved to the thread, not copied; else
   * a copy is. Resolves when the upload has room.
   */
  async write(chunk: Buffer, owned: boolean): Promise<void> {
    if (this.error) throw this.error;
    const movable = owned && chunk.byteOffset === 0 && chunk.buffer.byteLength === chunk.length;
    this.batch.push(movable ? chunk : new Uint8Array(chunk));
    this.batchBytes += chunk.length;
    if (this.batchBytes < BATCH_BYTES) return;
    this.flush();
    if (this.upload.inFlight >= WINDOW_BYTES) {
      await new Promise<void>((resolve) => {
        this.upload.room = resolve;
      });
      if (this.error) throw this.error;
    }
  }

  private flush(): void {
    if (this.batch.length === 0) return;
    const chunks = this.batch;
    this.upload.inFlight += this.batchBytes;
    this.batch = [];
    this.batchBytes = 0;
    this.send(
      { kind: 'chunks', id: this.id, chunks },
      chunks.map((chunk) => chunk.buffer as ArrayBuffer),
    );
  }

  /** Waits for every chunk to be written (and no flush behind under way): the hash and the text's verdict. */
  async end(): Promise<Taken> {
    this.flush();
    const message = await this.finish({ kind: 'end', id: this.id }).finally(() => flushedBehind(this.upload));
    if (message.kind !== 'ended') throw new Error('the intake thread answered out of turn');
    if (message.failed !== undefined) throw new Error(`the staged file could not be written: ${message.failed}`);
    return { sha256: message.sha256, textProblem: message.textProblem };
  }

  /**
   * Stops the upload; resolves once the thread writes nothing more to the file and no flush behind it is under way
   * (its descriptor may then close).
   */
  async abort(): Promise<void> {
    this.batch = [];
    await this.finish({ kind: 'abort', id: this.id }).catch(() => undefined);
    await flushedBehind(this.upload);
  }

  private finish(message: ToIntake): Promise<FromIntake> {
    return new Promise<FromIntake>((resolve, reject) => {
      if (this.error || !pending.has(this.id)) {
        reject(this.error ?? new Error('the upload has ended'));
        return;
      }
      this.upload.fail = reject;
      this.upload.settle = (answered) => {
        pending.delete(this.id);
        if (usersOf(this.thread) === 0) this.thread.unref();
        resolve(answered);
      };
      this.send(message);
    });
  }
}
