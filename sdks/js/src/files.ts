// Files for the SDK: an upload's multipart body, streamed rather than read whole where the runtime allows, and a
// download streamed to disk under a temporary name, then renamed over the destination. Paths need Node's `fs`
// (Node, Deno and Bun have it); bytes, Blobs and streams work in any runtime with `fetch`.
import { runtime } from './runtime.js';

/** A Blob or a File, as far as the SDK reads it: its size, its type and (a File's) name. */
export interface BlobLike {
  readonly size: number;
  readonly type: string;
  readonly name?: string;
  stream(): unknown;
}

/** A web ReadableStream of bytes, as far as the SDK reads it. */
export interface ReadableStreamLike {
  getReader(): { read(): Promise<{ done: boolean; value?: Uint8Array }>; releaseLock(): void };
}

/**
 * What an upload method takes: a path (a string, read from disk as it is sent), bytes, a Blob or File, or a
 * stream (a web ReadableStream, or any async iterable of bytes such as Node's `fs.createReadStream`). A path,
 * bytes and a Blob are sent with their length and retried like any call; a stream is sent chunked, once.
 */
export type UploadFile = string | Uint8Array | ArrayBuffer | BlobLike | ReadableStreamLike | AsyncIterable<Uint8Array>;

/**
 * An upload's multipart body: made anew for each attempt (`body()`), with its length when known. Bytes and a
 * Blob are sent as one Blob; a path and a stream as a ReadableStream read a chunk at a time (a Blob joining a
 * file-backed Blob is read whole into memory by Node's fetch), a path with its length.
 */
export interface FormBody {
  contentType: string;
  length: number | undefined;
  /** False for a stream: read once, so its upload is not retried. */
  replayable: boolean;
  /** True when `body()` is a ReadableStream (fetch then needs `duplex: 'half'`). */
  streamed: boolean;
  body(): unknown;
}

/** The media types an upload is declared as, by extension; the server detects the type from the bytes anyway, but text must be declared text/plain or text/csv. */
const TYPES: Record<string, string> = {
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  png: 'image/png',
  gif: 'image/gif',
  webp: 'image/webp',
  heic: 'image/heic',
  heif: 'image/heif',
  pdf: 'application/pdf',
  mp4: 'video/mp4',
  mov: 'video/quicktime',
  txt: 'text/plain',
  csv: 'text/csv',
};

const baseName = (path: string): string => path.split(/[\\/]/).pop() ?? path;
const typeOf = (name: string): string =>
  TYPES[name.includes('.') ? name.slice(name.lastIndexOf('.') + 1).toLowerCase() : ''] ?? 'application/octet-stream';

interface NodeFs {
  createReadStream(path: string, options: { highWaterMark: number }): AsyncIterable<Uint8Array>;
  promises: {
    stat(path: string): Promise<{ size: number }>;
    open(
      path: string,
      flags: string,
    ): Promise<{ write(bytes: Uint8Array): Promise<unknown>; sync(): Promise<void>; close(): Promise<void> }>;
    rename(from: string, to: string): Promise<void>;
    rm(path: string, options: { force: true }): Promise<void>;
  };
}

/** Node's `fs`, imported when a path is used (a name in a variable, so that bundlers for browsers skip it). */
async function nodeFs(): Promise<NodeFs> {
  const name = ['node', 'fs'].join(':');
  try {
    return (await import(name)) as NodeFs;
  } catch (error) {
    throw new TypeError(`A file path needs Node's fs (Node, Deno or Bun); pass bytes, a Blob or a stream here.`, {
      cause: error,
    });
  }
}

const isBlob = (file: unknown): file is BlobLike =>
  typeof file === 'object' && file !== null && typeof (file as BlobLike).stream === 'function' && 'size' in file;
const isReader = (file: unknown): file is ReadableStreamLike =>
  typeof file === 'object' && file !== null && typeof (file as ReadableStreamLike).getReader === 'function';

/** A stream's chunks, whether it is a web ReadableStream (browsers lack its async iterator) or an async iterable. */
async function* chunksOf(file: ReadableStreamLike | AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  if (!isReader(file)) {
    yield* file;
    return;
  }
  const reader = file.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      if (value) yield value;
    }
  } finally {
    reader.releaseLock();
  }
}

const quoted = (text: string): string => text.replace(/[\r\n"\\]/g, (character) => encodeURIComponent(character));

/**
 * The multipart body of an upload: the text fields (objects as JSON text, as `metadata` is sent), then the file
 * as the part `part`, named after the path, the File or `fields.filename`, and typed by its extension (or the
 * Blob's own type).
 */
export async function formBody(part: string, fields: object, file: UploadFile): Promise<FormBody> {
  const boundary = `bms-${runtime.crypto.randomUUID()}`;
  const encoder = new runtime.TextEncoder();
  const given = Object.entries(fields).filter(([, value]) => value !== undefined && value !== null);
  const name =
    (fields as { filename?: string }).filename ??
    (typeof file === 'string' ? baseName(file) : isBlob(file) ? file.name : undefined) ??
    'file';
  const type = (isBlob(file) && file.type) || typeOf(name);
  const head = encoder.encode(
    given
      .map(
        ([key, value]) =>
          `--${boundary}\r\nContent-Disposition: form-data; name="${quoted(key)}"\r\n\r\n${
            typeof value === 'object' ? JSON.stringify(value) : String(value)
          }\r\n`,
      )
      .join('') +
      `--${boundary}\r\nContent-Disposition: form-data; name="${quoted(part)}"; filename="${quoted(name)}"\r\nContent-Type: ${type}\r\n\r\n`,
  );
  const tail = encoder.encode(`\r\n--${boundary}--\r\n`);
  const contentType = `multipart/form-data; boundary=${boundary}`;
  if (runtime.Blob && (isBlob(file) || file instanceof Uint8Array || file instanceof ArrayBuffer)) {
    const blob = new runtime.Blob([head, file, tail]);
    return { contentType, length: blob.size, replayable: true, streamed: false, body: () => blob };
  }
  const fs = typeof file === 'string' ? await nodeFs() : undefined;
  const size = typeof file === 'string' ? (await fs!.promises.stat(file)).size : undefined;
  const chunks = async function* (): AsyncGenerator<Uint8Array> {
    yield head;
    if (typeof file === 'string') yield* fs!.createReadStream(file, { highWaterMark: 64 * 1024 });
    else if (isBlob(file)) yield* chunksOf(file.stream() as ReadableStreamLike);
    else if (file instanceof Uint8Array) yield file;
    else if (file instanceof ArrayBuffer) yield new Uint8Array(file);
    else yield* chunksOf(file);
    yield tail;
  };
  return {
    contentType,
    length: size === undefined ? undefined : head.length + size + tail.length,
    replayable: typeof file === 'string',
    streamed: true,
    body: () => readableOf(chunks()),
  };
}

/** A ReadableStream of an async generator's chunks, pulled as fetch sends them. */
function readableOf(chunks: AsyncGenerator<Uint8Array>): unknown {
  if (!runtime.ReadableStream) throw new TypeError('This runtime has no ReadableStream to send a stream with.');
  return new runtime.ReadableStream({
    async pull(controller) {
      const next = await chunks.next();
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
    async cancel() {
      await chunks.return(undefined);
    },
  });
}

/**
 * Writes a response's body to `destination`: to a temporary file beside it (so the rename stays on one disk),
 * flushed to disk, then renamed over it. On any failure the temporary file is removed and `destination` is left
 * as it was.
 */
export async function writeToFile(destination: string, body: unknown): Promise<void> {
  const fs = await nodeFs();
  const slash = Math.max(destination.lastIndexOf('/'), destination.lastIndexOf('\\'));
  const temporary = `${destination.slice(0, slash + 1)}.${baseName(destination)}.${runtime.crypto.randomUUID()}.part`;
  const handle = await fs.promises.open(temporary, 'wx');
  let open = true;
  try {
    if (body) for await (const chunk of chunksOf(body as ReadableStreamLike)) await handle.write(chunk);
    await handle.sync();
    open = false;
    await handle.close();
    await fs.promises.rename(temporary, destination);
  } catch (error) {
    if (open) await handle.close().catch(() => undefined);
    await fs.promises.rm(temporary, { force: true });
    throw error;
  }
}
