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

/** What a multipart body is sent as: a Blob (replayable, with a length) or a stream (once, chunked). */
export interface FormBody {
  body: unknown;
  contentType: string;
  replayable: boolean;
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
  openAsBlob?: (path: string) => Promise<BlobLike>;
  createReadStream(path: string): AsyncIterable<Uint8Array>;
  promises: {
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

/** A file on disk: a Blob backed by it where the runtime has one (Node 20), else a stream of it. */
async function fromPath(path: string): Promise<BlobLike | AsyncIterable<Uint8Array>> {
  const fs = await nodeFs();
  return fs.openAsBlob ? fs.openAsBlob(path) : fs.createReadStream(path);
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
  const source = typeof file === 'string' ? await fromPath(file) : file;
  const name =
    (fields as { filename?: string }).filename ??
    (typeof file === 'string' ? baseName(file) : isBlob(file) ? file.name : undefined) ??
    'file';
  const type = (isBlob(source) && source.type) || typeOf(name);
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
  if (runtime.Blob && (isBlob(source) || source instanceof Uint8Array || source instanceof ArrayBuffer))
    return { body: new runtime.Blob([head, source, tail]), contentType, replayable: true };
  if (!runtime.ReadableStream) throw new TypeError('This runtime has neither Blob nor ReadableStream for an upload.');
  const chunks = (async function* () {
    yield head;
    if (isBlob(source)) yield* chunksOf(source.stream() as ReadableStreamLike);
    else if (source instanceof Uint8Array) yield source;
    else if (source instanceof ArrayBuffer) yield new Uint8Array(source);
    else yield* chunksOf(source);
    yield tail;
  })();
  const body = new runtime.ReadableStream({
    async pull(controller) {
      const next = await chunks.next();
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
    async cancel() {
      await chunks.return(undefined);
    },
  });
  return { body, contentType, replayable: false };
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
