// A download's headers and its one range (docs/api-contract.md §30): the detected type (text as text/plain;
// charset=utf-8), an RFC 6266 Content-Disposition with an ASCII name and the UTF-8 one, attachment unless inline
// is asked for an image or PDF, and nothing a browser may sniff, frame, run or keep.
import type { AttachmentRow } from '../../db/types.js';
import type { ByteRange } from './store.js';

/** The types a browser may show inline on request; it runs none of them. */
const INLINE_TYPES = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp', 'application/pdf']);

/** The Content-Type of stored bytes: text is always plain text in UTF-8, whatever was declared. */
export function servedContentType(contentType: string): string {
  return contentType.startsWith('text/') ? 'text/plain; charset=utf-8' : contentType;
}

/** RFC 5987's encoding of a UTF-8 name (`filename*=UTF-8''…`). */
function extendedValue(name: string): string {
  return encodeURIComponent(name).replace(
    /['()*]/g,
    (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

/** The name as ASCII for `filename="…"`: other characters as `_`, no quote or backslash. */
function asciiName(name: string): string {
  return name.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
}

export function contentDisposition(filename: string, inline: boolean): string {
  return `${inline ? 'inline' : 'attachment'}; filename="${asciiName(filename)}"; filename*=UTF-8''${extendedValue(filename)}`;
}

export function contentHeaders(
  row: Pick<AttachmentRow, 'content_type' | 'filename' | 'sha256'>,
  disposition: 'attachment' | 'inline' | undefined,
): Record<string, string> {
  const inline = disposition === 'inline' && INLINE_TYPES.has(row.content_type);
  return {
    'content-type': servedContentType(row.content_type),
    etag: `"${row.sha256}"`,
    'content-disposition': contentDisposition(row.filename, inline),
    'x-content-type-options': 'nosniff',
    'content-security-policy': "default-src 'none'",
    'cache-control': 'private, no-store',
    'accept-ranges': 'bytes',
  };
}

/**
 * The one range a `Range` header asks of `size` bytes: undefined for none (or a form not understood, or several
 * ranges: the whole file is answered then, as RFC 9110 allows), 'unsatisfiable' for one that starts past the end.
 */
export function parseRange(header: string | undefined, size: number): ByteRange | 'unsatisfiable' | undefined {
  if (header === undefined) return undefined;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match) return undefined;
  const [, first = '', last = ''] = match;
  if (first === '' && last === '') return undefined;
  if (first === '') {
    const suffix = Number(last);
    if (suffix === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(first);
  if (start >= size) return 'unsatisfiable';
  const end = last === '' ? size - 1 : Math.min(Number(last), size - 1);
  if (end < start) return undefined;
  return { start, end };
}
