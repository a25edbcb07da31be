// The intake's thread (intake-thread.ts starts it; docs/decisions.md, "Attachments: uploads at speed"): each
// upload's chunks are hashed, checked if declared text, and written to its staged file here, off the event loop.
// Messages of an upload are handled in the order sent, so its writes are too.
import { createHash, type Hash } from 'node:crypto';
import fs from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { lowerThreadPriority } from '../../mail/thread-priority.js';
import type { FromIntake, ToIntake } from './intake-thread.js';
import { TextCheck } from './text-check.js';

/** Bytes handled between two collections of this thread's young generation (see COLLECT_BYTES below). */
const COLLECT_BYTES = 1024 * 1024;

interface Upload {
  fd: number;
  hash: Hash;
  text: TextCheck | undefined;
  /** Why a write failed: nothing more is written, and the upload's end answers it. */
  failed: string | undefined;
}

// This thread's niceness above the process's (intake-thread.ts's NICE): the thread of uploads beside others runs at
// 10, so that on a busy machine the event loop (other tenants' requests) runs first and those uploads take the CPU
// left, as the PDF pool's threads do (PDF_THREAD_NICE); the lone upload's thread at the process's own.
lowerThreadPriority((workerData as { nice: number } | undefined)?.nice ?? 10);

const uploads = new Map<number, Upload>();
let uncollected = 0;
const port = parentPort as NonNullable<typeof parentPort>;
const answer = (message: FromIntake) => port.postMessage(message);

function take(upload: Upload, bytes: Buffer): void {
  upload.hash.update(bytes);
  upload.text?.write(bytes);
  for (let written = 0; written < bytes.length; )
    written += fs.writeSync(upload.fd, bytes, written, bytes.length - written);
}

port.on('message', (message: ToIntake) => {
  const upload = uploads.get(message.id);
  switch (message.kind) {
    case 'open':
      uploads.set(message.id, {
        fd: message.fd,
        hash: createHash('sha256'),
        text: message.text ? new TextCheck() : undefined,
        failed: undefined,
      });
      return;
    case 'chunks': {
      let bytes = 0;
      for (const chunk of message.chunks) {
        bytes += chunk.byteLength;
        if (upload && upload.failed === undefined)
          try {
            take(upload, Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
          } catch (error) {
            upload.failed = (error as Error).message;
          }
      }
      answer({ kind: 'taken', id: message.id, bytes });
      // The chunks came from the event loop's thread (moved, not copied): their memory is outside V8's heap and
      // freed only by a collection, which the little this thread allocates would seldom cause. With `--expose-gc`
      // (`npm start`), the young generation, nearly empty here, is collected every COLLECT_BYTES.
      uncollected += bytes;
      if (uncollected >= COLLECT_BYTES) {
        uncollected = 0;
        globalThis.gc?.({ type: 'minor' });
      }
      return;
    }
    case 'end':
      uploads.delete(message.id);
      if (!upload) return;
      upload.text?.end();
      answer({
        kind: 'ended',
        id: message.id,
        sha256: upload.hash.digest('hex'),
        textProblem: upload.text?.problem,
        failed: upload.failed,
      });
      return;
    case 'abort':
      uploads.delete(message.id);
      answer({ kind: 'aborted', id: message.id });
      return;
  }
});
