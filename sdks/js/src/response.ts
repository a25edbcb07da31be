// What came with a response besides its data, shared by single objects (transport) and pages (pagination).

/** What came with a response besides its data. */
export interface ResponseInfo {
  status: number;
  requestId: string | null;
  /** The object's ETag, to pass as `ifMatch` (or, for a PDF, as `ifNoneMatch`). */
  etag: string | null;
  headers: Record<string, string>;
}

/** Objects returned by create, get, update, delete and actions carry `lastResponse` (not enumerable). */
export type WithResponse<T> = T & { readonly lastResponse: ResponseInfo };
