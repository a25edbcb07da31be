export { BmsClient } from './client.js';
export { type CustomFieldValue, customFields, type HasCustomFields, type WithCustomFields } from './custom-fields.js';
export * from './errors.js';
export type { BlobLike, ReadableStreamLike, UploadFile } from './files.js';
export * from './error-codes.js';
export * from './generated.js';
export type { OAuthOptions, OAuthTokens } from './oauth.js';
export { Page, PagePromise } from './pagination.js';
export * as webhooks from './webhooks.js';
export { WebhookVerificationError } from './webhooks.js';
export {
  VERSION,
  type BmsClientOptions,
  type Parts,
  type Query,
  type RequestLog,
  type RequestOptions,
  type ResponseInfo,
  type WithResponse,
} from './transport.js';
export type { AbortSignalLike, FetchFunction, FetchInit, FetchResponse } from './runtime.js';
