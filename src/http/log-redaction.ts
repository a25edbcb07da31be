// What the log line may show of a request: its URL with every credential replaced, whether it was sent
// plainly or percent-encoded (`?q=bms%5F…` too). Both the raw and the decoded
// forms are checked, so no encoding (single, double, `+` for space) can slip a secret past the check.

/** Query parameter names that say their value is a secret. */
const SECRET_NAME = /key|token|secret|pass|auth|signature|credential|session|cookie/i;
/** Values that are secrets by their shape: an API key, a webhook signing secret. */
const SECRET_VALUE = /bms_[0-9A-Za-z]{4,}|whsec_[0-9A-Za-z+/=_-]{4,}/;
const REDACTED = '[redacted]';
/** What decoding could change: a percent escape or a `+`. */
const ENCODED = /[%+]/;

/** The text with percent-encoding (and `+`) undone, up to three times over; a malformed escape is left as it is. */
function decoded(text: string): string {
  // Nothing encoded (the common case): nothing to undo.
  if (!ENCODED.test(text)) return text;
  let current = text;
  for (let round = 0; round < 3; round += 1) {
    let next: string;
    try {
      next = decodeURIComponent(current.replace(/\+/g, ' '));
    } catch {
      next = current.replace(/%([0-9A-Fa-f]{2})/g, (_match, hex: string) =>
        String.fromCharCode(Number.parseInt(hex, 16)),
      );
    }
    if (next === current) break;
    current = next;
  }
  return current;
}

const holdsSecret = (text: string): boolean => {
  if (SECRET_VALUE.test(text)) return true;
  const plain = decoded(text);
  return plain !== text && SECRET_VALUE.test(plain);
};

/** A path that is a client hub link, spelled plainly. */
const HUB_PATH = /^\/hub\//i;

function redactPath(path: string): string {
  // The common case, checked once for the whole path: nothing encoded, no secret's shape, not a hub link.
  if (!ENCODED.test(path) && !SECRET_VALUE.test(path) && !HUB_PATH.test(path)) return path;
  const segments = path.split('/');
  // A client hub link's token is its credential: /hub/<token>/… (static files aside), however spelled.
  if (decoded(segments[1] ?? '').toLowerCase() === 'hub' && segments.length > 2 && decoded(segments[2]!) !== 'static')
    segments[2] = REDACTED;
  return segments.map((segment) => (holdsSecret(segment) ? REDACTED : segment)).join('/');
}

function redactQuery(query: string): string {
  return query
    .split('&')
    .map((pair) => {
      const equals = pair.indexOf('=');
      const name = equals === -1 ? pair : pair.slice(0, equals);
      const value = equals === -1 ? '' : pair.slice(equals + 1);
      const shownName = holdsSecret(name) ? REDACTED : name;
      if (equals === -1) return shownName;
      return SECRET_NAME.test(decoded(name)) || holdsSecret(value)
        ? `${shownName}=${REDACTED}`
        : `${shownName}=${value}`;
    })
    .join('&');
}

/**
 * The URL as logged: a client hub token, anything that looks like an API key or webhook secret (in the path
 * or the query, encoded or not), and the value of any query parameter whose name says it holds a secret.
 */
export function redactUrl(url: string): string {
  const mark = url.indexOf('?');
  return mark === -1 ? redactPath(url) : `${redactPath(url.slice(0, mark))}?${redactQuery(url.slice(mark + 1))}`;
}

/**
 * Headers that can carry a secret, as pino's redaction paths: never in a log line, should a request's or
 * response's headers ever be logged (an error's context, a debugging serializer).
 */
export const REDACTED_LOG_PATHS = ['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-api-key'].flatMap(
  (header) => [`req.headers["${header}"]`, `headers["${header}"]`, `res.headers["${header}"]`],
);
