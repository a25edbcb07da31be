// PDF rendering off the event loop: a pool of worker threads (piscina), each task bounded in time. A
// 200-line document takes the better part of a second of CPU; on the API's thread that would stall every
// other request. Threads start on first use and stop when idle, so a process that renders nothing holds none.
import { Piscina } from 'piscina';
import type { PdfInput } from './pdf.js';
import type { PdfTask } from './pdf-worker.js';

export interface PdfPoolOptions {
  threads: number;
  timeoutMs: number;
}

export class PdfRenderTimeout extends Error {
  constructor(timeoutMs: number) {
    super(`Rendering the PDF took longer than ${timeoutMs} ms.`);
  }
}

// Under tsx (tests, development) the worker is the TypeScript source; in a build, the compiled file.
const WORKER = new URL(import.meta.url.endsWith('.ts') ? './pdf-worker.ts' : './pdf-worker.js', import.meta.url).href;

export class PdfPool {
  private readonly pool: Piscina;

  constructor(private readonly options: PdfPoolOptions) {
    this.pool = new Piscina({ filename: WORKER, minThreads: 0, maxThreads: options.threads, idleTimeout: 30_000 });
  }

  /** The document's PDF bytes. Rejects with PdfRenderTimeout past the time limit (the thread is then replaced). */
  async render(input: PdfInput): Promise<Buffer> {
    const bytes = (await this.run({ kind: 'document', input })) as Uint8Array;
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  /** Resolves when the renderer can draw the image (a PNG or JPEG it can decode); rejects with why not. */
  async checkImage(data: Uint8Array): Promise<void> {
    await this.run({ kind: 'image', data });
  }

  async close(): Promise<void> {
    await this.pool.close({ force: true });
  }

  private async run(task: PdfTask): Promise<Uint8Array | null> {
    const signal = AbortSignal.timeout(this.options.timeoutMs);
    try {
      return await this.pool.run(task, { signal });
    } catch (error) {
      if (signal.aborted) throw new PdfRenderTimeout(this.options.timeoutMs);
      throw error;
    }
  }
}
