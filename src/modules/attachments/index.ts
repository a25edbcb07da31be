// The face of the attachments module: what other modules, the workers and the composition may use. The rest is private.
import type { AttachmentsConfig } from '../../config.js';
import { startIntakeThreads } from './intake-thread.js';
import { S3Store } from './s3-store.js';
import { type AttachmentStore, LocalStore } from './store.js';

export { AttachmentSchema } from './attachments.schemas.js';
export {
  attachmentStorage,
  deleteAttachmentsOf,
  hubFile,
  hubFiles,
  openContent,
  presentAttachment,
  type AttachmentSettings,
} from './attachments.service.js';
export { contentHeaders, parseRange } from './download.js';
export {
  discardStagedSignature,
  readSignatureImage,
  SIGNATURE_IMAGE_FIELD,
  signatureImageBytes,
  stageSignatureImage,
  type StagedSignature,
  storeSignatureImage,
} from './signature-image.js';
export type { Attachment } from './attachments.schemas.js';
export { ORPHAN_AGE_MS, removeQueued, sweepOrphans } from './sweeper.js';
export { type AttachmentStore, LocalStore } from './store.js';
export { S3Store } from './s3-store.js';

/**
 * The store `ATTACHMENTS_STORE` names. The intake's threads are started with it, so that the first upload does not
 * wait for one (nor grow the process by its heap).
 */
export function openAttachmentStore(config: AttachmentsConfig): AttachmentStore {
  startIntakeThreads();
  if (config.store === 's3' && config.s3) return new S3Store(config.s3, config.directory);
  return new LocalStore(config.directory);
}
