// PDF rendering off the event loop: a pool of worker threads (piscina), each task bounded in time. A
// 200-line document takes the better part of a second of CPU; on the API's thread that would stall every
// other request. Threads start on first use and stop when idle, so a process that renders nothing holds none.
// The threads are shared fairly between accounts: renders wait in one queue per account and the
// accounts with work take turns, so one account's 40 renders delay that account, not another's one. A
// rendered document is kept by its version (the caller's key, such as its ETag), so an unchanged document is
// not rendered twice. An account's logo is decoded and scaled once per logo (its stored hash), not per render.
import { Piscina } from 'piscina';
import { Lru } from '../core/lru.js';
import type { PreparedLogo } from './logo-image.js';
import type { PdfInput } from './pdf.js';
import type { PdfTask } from './pdf-worker.js';
import type { EinvoiceModel } from './einvoice-model.js';
import type { EinvoiceSyntax, ValidationFinding, WrittenEinvoice } from './einvoice-validation.js';

export interface PdfPoolOptions {
  threads: number;
  timeoutMs: number;
  /** How far below the API's CPU priority the threads run (Linux; mail/pdf-worker.ts). Absent: 0. */
  nice?: number;
}

export class PdfRenderTimeout extends Error {
  constructor(timeoutMs: number) {
    super(`Rendering the PDF took longer than ${timeoutMs} ms.`);
  }
}

/** Whose render it is and, when the same input always gives the same bytes, the key to keep them under. */
export interface RenderOptions {
  accountId?: string;
  cacheKey?: string;
}

/** Rendered PDFs kept in memory, least recently used first out past this many bytes. */
const CACHE_BYTES = 64 * 1024 * 1024;
/** Prepared logos kept in memory, least recently used first out past this many bytes. */
const LOGO_CACHE_BYTES = 32 * 1024 * 1024;
/** Renders without an account wait in this queue, taking turns like an account's. */
const NO_ACCOUNT = '';

interface KeptLogo {
  sha256: string;
  logo: Promise<PreparedLogo | null>;
}

type TaskResult = Uint8Array | PreparedLogo | ValidationFinding[] | WrittenEinvoice | boolean;

interface Job {
  task: PdfTask;
  deadline: number;
  resolve(value: TaskResult): void;
  reject(error: unknown): void;
}

// Under tsx (tests, development) the worker is the TypeScript source; in a build, the compiled file.
const WORKER = new URL(import.meta.url.endsWith('.ts') ? './pdf-worker.ts' : './pdf-worker.js', import.meta.url).href;

export class PdfPool {
  private readonly pool: Piscina;
  /** Waiting renders, one queue per account, in the order the accounts take turns. */
  private readonly waiting = new Map<string, Job[]>();
  private running = 0;
  /** The account whose render went to a thread last: an account that just had its turn waits behind the others. */
  private lastServed: string | undefined;
  private readonly cache = new Lru<string, Buffer>(CACHE_BYTES);
  private readonly rendering = new Map<string, Promise<Buffer>>();
  /** Each account's logo ready to draw, under the hash of the stored logo it was made from. */
  private readonly logos = new Lru<string, KeptLogo>(LOGO_CACHE_BYTES);
  /** Documents rendered (not answered from the cache) since the pool started. */
  renders = 0;
  /** Logos decoded (checked and prepared for drawing) since the pool started: once per logo, not per render. */
  logoDecodes = 0;

  constructor(private readonly options: PdfPoolOptions) {
    this.pool = new Piscina({
      filename: WORKER,
      minThreads: 0,
      maxThreads: options.threads,
      idleTimeout: 30_000,
      workerData: { nice: options.nice ?? 0 },
    });
  }

  /** The document's PDF bytes. Rejects with PdfRenderTimeout past the time limit, queueing included. */
  async render(input: PdfInput, options: RenderOptions = {}): Promise<Buffer> {
    const { cacheKey } = options;
    if (cacheKey === undefined) return this.renderNow(input, options.accountId);
    const cached = this.cache.get(cacheKey);
    if (cached) return cached;
    const pending = this.rendering.get(cacheKey);
    if (pending) return pending;
    const made = this.renderNow(input, options.accountId).then((bytes) => {
      this.keep(cacheKey, bytes);
      return bytes;
    });
    this.rendering.set(cacheKey, made);
    try {
      return await made;
    } finally {
      this.rendering.delete(cacheKey);
    }
  }

  /**
   * The account's logo ready to draw, for the logo stored under `sha256`: decoded and scaled in the pool the
   * first time this process needs that logo (`load` reads its bytes), then kept. A logo changed by any process
   * has another hash, so it is prepared anew; the old one is dropped.
   */
  async logo(
    accountId: string,
    sha256: string,
    load: () => Promise<Uint8Array | undefined>,
  ): Promise<PreparedLogo | null> {
    const kept = this.logos.get(accountId);
    if (kept?.sha256 === sha256) return kept.logo;
    return this.keepLogo(
      accountId,
      sha256,
      load().then((data) => (data === undefined ? null : this.prepare(data, accountId))),
    );
  }

  /**
   * Checks an uploaded image by preparing it (rejects with why the renderer cannot draw it) and keeps it as
   * the account's logo under `sha256`, so the documents rendered after the upload decode nothing.
   */
  async prepareLogo(data: Uint8Array, accountId: string, sha256: string): Promise<void> {
    // Kept only once it is known to be good: a refused upload leaves the account's current logo kept.
    const prepared = await this.prepare(data, accountId);
    await this.keepLogo(accountId, sha256, Promise.resolve(prepared));
  }

  private prepare(data: Uint8Array, accountId: string): Promise<PreparedLogo> {
    this.logoDecodes += 1;
    return this.run({ kind: 'logo', data }, accountId) as Promise<PreparedLogo>;
  }

  private keepLogo(
    accountId: string,
    sha256: string,
    logo: Promise<PreparedLogo | null>,
  ): Promise<PreparedLogo | null> {
    // Its size counts once it is known.
    const kept: KeptLogo = { sha256, logo };
    this.logos.set(accountId, kept, 0);
    logo.then(
      (prepared) => {
        if (this.logos.peek(accountId) !== kept) return;
        if (prepared === null) return void this.logos.delete(accountId);
        this.logos.resize(
          accountId,
          prepared.format === 'file'
            ? prepared.data.byteLength
            : prepared.rgb.byteLength + (prepared.alpha?.byteLength ?? 0),
        );
      },
      // A logo that could not be prepared is not kept: the next render tries again.
      () => {
        if (this.logos.peek(accountId) === kept) this.logos.delete(accountId);
      },
    );
    return logo;
  }

  async close(): Promise<void> {
    for (const jobs of this.waiting.values())
      for (const job of jobs) job.reject(new Error('The PDF renderer is shutting down.'));
    this.waiting.clear();
    await this.pool.close({ force: true });
  }

  private async renderNow(input: PdfInput, accountId: string | undefined): Promise<Buffer> {
    this.renders += 1;
    const bytes = (await this.run({ kind: 'document', input }, accountId)) as Uint8Array;
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  private keep(key: string, bytes: Buffer): void {
    if (bytes.byteLength <= CACHE_BYTES / 8) this.cache.set(key, bytes, bytes.byteLength);
  }

  /**
   * An e-invoice file's XSD and Schematron findings (mail/einvoice-validation.ts), in a worker thread, taking
   * turns with the account's renders and bounded by the same time. Rejects with PdfRenderTimeout past it.
   */
  validateEinvoice(xml: string, syntax: EinvoiceSyntax, accountId?: string): Promise<ValidationFinding[]> {
    return this.run({ kind: 'einvoice', xml, syntax }, accountId) as Promise<ValidationFinding[]>;
  }

  /**
   * Writes an e-invoice model as UBL or CII and validates the file, both in a thread: the event loop only hands
   * over the model (plain data) and takes back the bytes and the findings.
   */
  async writeEinvoice(
    model: EinvoiceModel,
    syntax: EinvoiceSyntax,
    accountId?: string,
  ): Promise<{ xml: Buffer; findings: ValidationFinding[] }> {
    const { xml, findings } = (await this.run({ kind: 'einvoice-model', model, syntax }, accountId)) as WrittenEinvoice;
    return { xml: Buffer.from(xml.buffer, xml.byteOffset, xml.byteLength), findings };
  }

  /**
   * Whether a drawn signature's PNG is blank (mail/signature-image.ts), decoded in a worker thread, taking turns
   * with the account's renders; rejects when it cannot be decoded, or with PdfRenderTimeout past the time limit.
   */
  isBlankSignature(data: Uint8Array, accountId?: string): Promise<boolean> {
    return this.run({ kind: 'signature', data }, accountId) as Promise<boolean>;
  }

  private run(task: PdfTask, accountId = NO_ACCOUNT): Promise<TaskResult> {
    return new Promise((resolve, reject) => {
      const queue = this.waiting.get(accountId);
      const job = { task, deadline: Date.now() + this.options.timeoutMs, resolve, reject };
      if (queue) queue.push(job);
      else this.waiting.set(accountId, [job]);
      this.dispatch();
    });
  }

  /** Hands waiting renders to free threads, one account's turn at a time. */
  private dispatch(): void {
    while (this.running < this.options.threads && this.waiting.size > 0) {
      let [accountId, queue] = this.waiting.entries().next().value as [string, Job[]];
      if (accountId === this.lastServed && this.waiting.size > 1) {
        this.waiting.delete(accountId);
        this.waiting.set(accountId, queue);
        [accountId, queue] = this.waiting.entries().next().value as [string, Job[]];
      }
      this.lastServed = accountId;
      const job = queue.shift()!;
      // The account goes to the back of the turns (or leaves them when it has nothing more waiting).
      this.waiting.delete(accountId);
      if (queue.length > 0) this.waiting.set(accountId, queue);
      const left = job.deadline - Date.now();
      if (left <= 0) {
        job.reject(new PdfRenderTimeout(this.options.timeoutMs));
        continue;
      }
      this.running += 1;
      const signal = AbortSignal.timeout(left);
      this.pool
        .run(job.task, { signal })
        .then(job.resolve, (error: unknown) =>
          job.reject(signal.aborted ? new PdfRenderTimeout(this.options.timeoutMs) : error),
        )
        .finally(() => {
          this.running -= 1;
          this.dispatch();
        });
    }
  }
}
