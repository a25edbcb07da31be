// Where attachments' bytes live (docs/api-contract.md §30): one interface, the local store (a folder, the
// default) and the S3-compatible store (s3-store.ts). A file is named `<account id>/<sha256>`: kept once per
// account, never shared across accounts. An upload is staged in `<ATTACHMENTS_DIR>/.staging/` first (streamed,
// hashed, checked and cleaned of location there), then put under its key; the local store's put of a staged
// file is an fsync and a rename, done before the attachment's row commits, so no row is ever without its file.
// A file no row names is removed by the sweeper (sweeper.ts) once it is 24 hours old.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/** Bytes first to last, inclusive, as one `Range` asks. */
export interface ByteRange {
  start: number;
  end: number;
}

export interface StoredFile {
  key: string;
  size: number;
  modifiedAt: Date;
}

export interface PutMeta {
  size: number;
  sha256: string;
  contentType: string;
}

export interface AttachmentStore {
  readonly kind: 'local' | 's3';
  /** Puts a stream under `key`; a key already stored is kept (a key names its bytes), its age renewed. */
  put(key: string, stream: Readable, meta: PutMeta): Promise<void>;
  /**
   * Puts a staged file under `key` (the local store renames it into place; when the key is stored already, its
   * age is renewed and the staged file left for the caller to remove).
   */
  putStaged(key: string, staged: string, meta: PutMeta): Promise<void>;
  /** The bytes of `key` (of `range` only when given). */
  get(key: string, range?: ByteRange): Promise<Readable>;
  head(key: string): Promise<StoredFile | undefined>;
  delete(key: string): Promise<void>;
  /** Up to 1,000 stored files whose keys start with `prefix`, in key order after `after`. */
  list(prefix: string, after?: string): Promise<StoredFile[]>;
  /** Throws when the store cannot be written (GET /ready). */
  check(): Promise<void>;
  /** Where uploads are staged before they are put. */
  readonly stagingDirectory: string;
  close(): Promise<void>;
}

/** A new staging file's path. */
export function stagingPath(store: AttachmentStore): string {
  return path.join(store.stagingDirectory, `${randomUUID()}.part`);
}

/** Staged files older than `age` ms (left by an upload that failed or a process that was killed), removed. */
export async function sweepStaging(store: AttachmentStore, now: Date, ageMs: number): Promise<number> {
  let removed = 0;
  let names: string[];
  try {
    names = await fs.promises.readdir(store.stagingDirectory);
  } catch {
    return 0;
  }
  for (const name of names) {
    const file = path.join(store.stagingDirectory, name);
    try {
      const stat = await fs.promises.stat(file);
      if (now.getTime() - stat.mtimeMs >= ageMs) {
        await fs.promises.rm(file, { force: true });
        removed += 1;
      }
    } catch {
      // Gone meanwhile.
    }
  }
  return removed;
}

const SAFE_KEY = /^[0-9a-f-]{36}\/[0-9a-f]{64}$/;

/** Durably: fsync the folder, so a rename into it survives a crash. */
async function syncDirectory(directory: string): Promise<void> {
  const handle = await fs.promises.open(directory, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** The default store: `ATTACHMENTS_DIR/<account id>/<sha256>`. */
export class LocalStore implements AttachmentStore {
  readonly kind = 'local' as const;
  readonly stagingDirectory: string;

  constructor(readonly directory: string) {
    this.stagingDirectory = path.join(directory, '.staging');
  }

  private pathOf(key: string): string {
    if (!SAFE_KEY.test(key)) throw new Error(`not an attachment key: ${key}`);
    return path.join(this.directory, key);
  }

  async put(key: string, stream: Readable, meta: PutMeta): Promise<void> {
    await fs.promises.mkdir(this.stagingDirectory, { recursive: true });
    const staged = path.join(this.stagingDirectory, `${randomUUID()}.part`);
    try {
      await pipeline(stream, fs.createWriteStream(staged, { flags: 'wx' }));
      await this.putStaged(key, staged, meta);
    } finally {
      await fs.promises.rm(staged, { force: true });
    }
  }

  async putStaged(key: string, staged: string, _meta: PutMeta): Promise<void> {
    const target = this.pathOf(key);
    const folder = path.dirname(target);
    await fs.promises.mkdir(folder, { recursive: true });
    const existing = await this.head(key);
    if (existing) {
      // The same bytes are stored already: keep them, renewed so that the sweeper leaves them for 24 hours.
      const now = new Date();
      await fs.promises.utimes(target, now, now);
      return;
    }
    const handle = await fs.promises.open(staged, 'r+');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
    await fs.promises.rename(staged, target);
    await syncDirectory(folder);
  }

  async get(key: string, range?: ByteRange): Promise<Readable> {
    const file = this.pathOf(key);
    // Opened before it is answered: a missing file is an error here, not in the middle of an answer.
    const handle = await fs.promises.open(file, 'r');
    return handle.createReadStream(range ? { start: range.start, end: range.end } : {});
  }

  async head(key: string): Promise<StoredFile | undefined> {
    try {
      const stat = await fs.promises.stat(this.pathOf(key));
      return { key, size: stat.size, modifiedAt: stat.mtime };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    await fs.promises.rm(this.pathOf(key), { force: true });
  }

  async list(prefix: string, after?: string): Promise<StoredFile[]> {
    const found: StoredFile[] = [];
    let accounts: string[];
    try {
      accounts = (await fs.promises.readdir(this.directory)).filter((name) => !name.startsWith('.')).sort();
    } catch {
      return [];
    }
    for (const account of accounts) {
      let names: string[];
      try {
        names = (await fs.promises.readdir(path.join(this.directory, account))).sort();
      } catch {
        continue;
      }
      for (const name of names) {
        const key = `${account}/${name}`;
        if (!key.startsWith(prefix) || (after !== undefined && key <= after) || !SAFE_KEY.test(key)) continue;
        const file = await this.head(key);
        if (file) found.push(file);
        if (found.length >= 1000) return found;
      }
    }
    return found;
  }

  async check(): Promise<void> {
    await fs.promises.mkdir(this.stagingDirectory, { recursive: true });
    await fs.promises.access(this.stagingDirectory, fs.constants.W_OK);
  }

  async close(): Promise<void> {}
}
