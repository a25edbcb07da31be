// Attachment rules (docs/api-contract.md §30). An upload is staged and checked first (intake.ts), its bytes put
// in the store under `<account id>/<sha256>` (fsynced and renamed into place), and only then is its row written,
// with the quota taken, the parent's count checked and `attachment.created` recorded, in one transaction: a
// crash between the two leaves a file that no row names, which the sweeper removes after 24 hours, and never a
// row without its file. Only uploads change or go alone; signatures and e-invoices stay with their parent, and
// go with it when it is deleted. A delete queues its files, which the sweeper removes once no row names them.
import fs from 'node:fs';
import type { Readable } from 'node:stream';
import { isUuid, newId } from '../../core/deps.js';
import { fieldError, invalidState, notFound, type Precondition } from '../../core/errors.js';
import { fromJson, type Page, pageRequest, toPage } from '../../db/index.js';
import type { AttachmentPatch, AttachmentRow } from '../../db/types.js';
import { type Actor, type Context, inTransaction } from '../../kernel/context.js';
import { recordChange, recordEvent } from '../events/index.js';
import { requireRow } from '../shared/index.js';
import * as repository from './attachments.repository.js';
import type {
  Attachment,
  ListAttachmentsInput,
  ParentType,
  UpdateAttachmentInput,
  UploadInput,
} from './attachments.schemas.js';
import { intake, keptFilename, type Staged } from './intake.js';
import type { AttachmentStore, ByteRange } from './store.js';

/** 5 GiB of uploads and signature images per account, unless the operator set another quota. */
export const DEFAULT_ATTACHMENT_QUOTA = 5 * 1024 * 1024 * 1024;
/** At most this many files on one object. */
export const MAX_PER_PARENT = 200;

/** What the upload path needs besides the request: the store and the largest upload. */
export interface AttachmentSettings {
  store: AttachmentStore;
  maxBytes: number;
  /** What uploads take together, in bytes a second, while two or more are under way (0: no limit; pace.ts). */
  sharedBytesPerSecond: number;
}

/** The store key of an account's bytes. */
export const storeKey = (accountId: string, sha256: string) => `${accountId}/${sha256}`;

export function presentAttachment(row: AttachmentRow): Attachment {
  return {
    id: row.id,
    object: 'attachment',
    parent_type: row.parent_type as ParentType,
    parent_id: row.parent_id,
    kind: row.kind as Attachment['kind'],
    filename: row.filename,
    content_type: row.content_type,
    size_bytes: Number(row.size_bytes),
    sha256: row.sha256,
    visible_on_hub: Number(row.visible_on_hub) === 1,
    caption: row.caption,
    location_removed: Number(row.location_removed) === 1,
    created_by: fromJson<Actor>(row.created_by) as Attachment['created_by'],
    metadata: fromJson<Record<string, string>>(row.metadata),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

function getRow(ctx: Context, id: string, lock = false): Promise<AttachmentRow> {
  return requireRow('attachment', id, (found) => repository.findAttachment(ctx.db, ctx.accountId, found, lock));
}

/** 422 on `parent_id` unless the account holds the parent (another account's is unknown here, §1). */
export async function requireParent(ctx: Context, type: ParentType, id: string, lock = false): Promise<void> {
  if (!isUuid(id) || !(await repository.parentExists(ctx.db, ctx.accountId, type, id, lock)))
    throw fieldError('parent_id', `no ${type.replace('_', ' ')} with id '${id}' exists in this account`);
}

/**
 * Receives an upload: checks the parent before a byte is read, stages and checks the bytes, puts them in the
 * store, then writes the row. `source` is the file's stream (the request's body, or multipart's file part).
 */
export async function uploadAttachment(
  ctx: Context,
  settings: AttachmentSettings,
  fields: UploadInput,
  source: Readable,
  declaredType: string | undefined,
): Promise<Attachment> {
  await requireParent(ctx, fields.parent_type, fields.parent_id);
  const staged = await intake(source, {
    store: settings.store,
    maxBytes: settings.maxBytes,
    sharedBytesPerSecond: settings.sharedBytesPerSecond,
    declaredType,
  });
  try {
    return await storeStaged(ctx, settings.store, fields, staged, 'upload');
  } finally {
    await fs.promises.rm(staged.path, { force: true });
  }
}

/** Puts staged bytes in the store, then writes their row (the quota and the parent's count checked with it). */
export async function storeStaged(
  ctx: Context,
  store: AttachmentStore,
  fields: UploadInput,
  staged: Staged,
  kind: 'upload' | 'signature' | 'einvoice',
): Promise<Attachment> {
  const key = storeKey(ctx.accountId, staged.sha256);
  const meta = { size: staged.size, sha256: staged.sha256, contentType: staged.contentType };
  await store.putStaged(key, staged.path, meta);
  const attachment = await inTransaction(ctx, async (tx) => {
    await requireParent(tx, fields.parent_type, fields.parent_id, true);
    if ((await repository.countOfParent(tx.db, tx.accountId, fields.parent_type, fields.parent_id)) >= MAX_PER_PARENT)
      throw fieldError('parent_id', `already has ${MAX_PER_PARENT} attachments, the most one object may have`);
    if (!(await repository.takeQuota(tx.db, tx.accountId, staged.size, DEFAULT_ATTACHMENT_QUOTA))) {
      const storage = await repository.findStorage(tx.db, tx.accountId);
      const quota = storage?.quota ?? DEFAULT_ATTACHMENT_QUOTA;
      throw fieldError(
        'file',
        `would pass the account's attachment quota: ${(storage?.used ?? 0).toLocaleString('en-US')} of ${quota.toLocaleString('en-US')} bytes are used and this file is ${staged.size.toLocaleString('en-US')} bytes; delete files, or ask the operator to raise the quota (bms accounts set-limits --attachment-bytes N)`,
      );
    }
    const now = tx.clock.now().toISOString();
    const row: AttachmentRow = {
      id: newId(),
      account_id: tx.accountId,
      parent_type: fields.parent_type,
      parent_id: fields.parent_id,
      kind,
      filename: keptFilename(fields.filename, staged.extension),
      content_type: staged.contentType,
      size_bytes: staged.size,
      sha256: staged.sha256,
      visible_on_hub: fields.visible_on_hub ? 1 : 0,
      caption: fields.caption ?? null,
      location_removed: staged.locationRemoved ? 1 : 0,
      created_by: JSON.stringify({ type: tx.actor.type, id: tx.actor.id }),
      metadata: JSON.stringify(fields.metadata ?? {}),
      created_at: now,
      updated_at: now,
    };
    await repository.insertAttachment(tx.db, row);
    const attachment = presentAttachment(row);
    await recordEvent(tx, 'attachment.created', attachment);
    return attachment;
  });
  // The same bytes were stored already and kept, renewed: should the sweeper have taken that file in between
  // (its row deleted more than 24 hours ago), the staged copy puts it back. A row never lacks its file.
  if (!(await store.head(key)) && fs.existsSync(staged.path)) await store.putStaged(key, staged.path, meta);
  return attachment;
}

export async function getAttachmentRow(ctx: Context, id: string): Promise<AttachmentRow> {
  return getRow(ctx, id);
}

export async function getAttachment(ctx: Context, id: string): Promise<Attachment> {
  return presentAttachment(await getRow(ctx, id));
}

function assertUpload(row: AttachmentRow, verb: string): void {
  if (row.kind !== 'upload')
    throw invalidState(
      `A ${row.kind} attachment cannot ${verb}: it stays with its ${row.parent_type.replace('_', ' ')}.`,
    );
}

export async function updateAttachment(
  ctx: Context,
  id: string,
  input: UpdateAttachmentInput,
  precondition?: Precondition,
): Promise<Attachment> {
  return inTransaction(ctx, async (tx) => {
    const current = await getRow(tx, id, true);
    precondition?.(presentAttachment(current));
    assertUpload(current, 'change');
    const patch: AttachmentPatch = {};
    if (input.filename !== undefined) {
      const extension = /\.([^.]+)$/.exec(current.filename)?.[1] ?? '';
      patch.filename = keptFilename(input.filename, extension.toLowerCase());
    }
    if (input.caption !== undefined) patch.caption = input.caption;
    if (input.visible_on_hub !== undefined) patch.visible_on_hub = input.visible_on_hub ? 1 : 0;
    if (input.metadata !== undefined) patch.metadata = JSON.stringify(input.metadata);
    if (Object.keys(patch).length === 0) return presentAttachment(current);
    patch.updated_at = tx.clock.now().toISOString();
    const updated = await repository.updateAttachment(tx.db, tx.accountId, current.id, patch);
    if (!updated) throw notFound('attachment', id);
    const attachment = presentAttachment(updated);
    await recordChange(tx, { resource: 'attachment', before: presentAttachment(current), after: attachment });
    return attachment;
  });
}

/**
 * Deletes rows (with their events) and gives their bytes back to the quota, in the caller's transaction; their
 * files are queued, so that the sweeper removes each once the delete has committed and no row names it.
 */
async function deleteRows(tx: Context, rows: AttachmentRow[]): Promise<void> {
  for (const row of rows) {
    await repository.deleteAttachment(tx.db, tx.accountId, row.id);
    await recordEvent(tx, 'attachment.deleted', presentAttachment(row));
  }
  await repository.releaseQuota(
    tx.db,
    tx.accountId,
    rows.reduce((sum, row) => sum + Number(row.size_bytes), 0),
  );
  await repository.queueRemovals(
    tx.db,
    tx.accountId,
    rows.map((row) => row.sha256),
    tx.clock.now().toISOString(),
  );
}

/**
 * A parent is being deleted (docs/api-contract.md §30: its attachments go with it, signatures and e-invoices
 * too): in the parent's transaction, each with `attachment.deleted`.
 */
export async function deleteAttachmentsOf(tx: Context, type: ParentType, id: string): Promise<void> {
  const rows = await repository.attachmentsOfParent(tx.db, tx.accountId, type, id);
  if (rows.length > 0) await deleteRows(tx, rows);
}

/** Deletes an upload (a signature or an e-invoice never goes alone). */
export async function deleteAttachment(
  ctx: Context,
  id: string,
  precondition?: Precondition,
): Promise<{ id: string; deleted: true }> {
  return inTransaction(ctx, async (tx) => {
    const row = await getRow(tx, id, true);
    precondition?.(presentAttachment(row));
    assertUpload(row, 'be deleted alone');
    await deleteRows(tx, [row]);
    return { id: row.id, deleted: true as const };
  });
}

export async function listAttachments(ctx: Context, query: ListAttachmentsInput): Promise<Page<AttachmentRow>> {
  const page = pageRequest(query, repository.ATTACHMENT_SORTS);
  const { rows, resumeAfter } = await repository.listAttachments(ctx.db, ctx.accountId, query, page);
  return toPage(rows, page, resumeAfter);
}

/** The stored bytes of an attachment (a range of them when asked). */
export function openContent(store: AttachmentStore, row: AttachmentRow, range?: ByteRange): Promise<Readable> {
  return store.get(storeKey(row.account_id, row.sha256), range);
}

/** The account's `attachment_storage`: bytes used and the quota. */
export async function attachmentStorage(ctx: Context): Promise<{ used_bytes: number; quota_bytes: number }> {
  const storage = await repository.findStorage(ctx.db, ctx.accountId);
  return { used_bytes: storage?.used ?? 0, quota_bytes: storage?.quota ?? DEFAULT_ATTACHMENT_QUOTA };
}

/** The files a quote's or invoice's hub page lists: `visible_on_hub` uploads of it, its job and the job's visits. */
export async function hubFiles(
  ctx: Context,
  document: { kind: 'quote' | 'invoice'; id: string; jobId: string | null },
): Promise<Attachment[]> {
  const parents = await repository.hubParents(ctx.db, ctx.accountId, document);
  const rows = await repository.visibleOnHub(ctx.db, ctx.accountId, parents);
  return rows.filter((row) => row.kind === 'upload').map(presentAttachment);
}

/** One of those files by id (undefined when the page does not list it). */
export async function hubFile(
  ctx: Context,
  document: { kind: 'quote' | 'invoice'; id: string; jobId: string | null },
  id: string,
): Promise<AttachmentRow | undefined> {
  if (!isUuid(id)) return undefined;
  const row = await repository.findAttachment(ctx.db, ctx.accountId, id);
  if (!row || Number(row.visible_on_hub) !== 1 || row.kind !== 'upload') return undefined;
  const parents = await repository.hubParents(ctx.db, ctx.accountId, document);
  return parents.some((parent) => parent.type === row.parent_type && parent.id === row.parent_id) ? row : undefined;
}
