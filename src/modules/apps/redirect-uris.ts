// Redirect URIs (docs/api-contract.md §25, RFC 9700 §4.1.3, RFC 8252 §7.3): registered as https:// or as
// http:// on a loopback IP literal, never with a fragment; a presented one matches a registered one as the exact
// same string (no case, prefix or trailing-slash folding), except that a loopback one's port may differ.

const LOOPBACK_HOSTS = ['127.0.0.1', '[::1]'];

/** Why a URI cannot be registered, or undefined when it can. */
export function redirectUriProblem(uri: string): string | undefined {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return 'must be an absolute URL';
  }
  if (uri.includes('#')) return 'must not have a fragment';
  if (url.username !== '' || url.password !== '') return 'must not hold a user name or password';
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:' && LOOPBACK_HOSTS.includes(url.hostname)) return undefined;
  return 'must be https://, or http:// on 127.0.0.1 or [::1] (never localhost)';
}

/** The URI with its port removed, when it is a loopback http:// one (whose port alone may vary). */
function loopbackWithoutPort(uri: string): string | undefined {
  const match = /^http:\/\/(127\.0\.0\.1|\[::1\])(?::(\d{1,5}))?([/?].*)?$/.exec(uri);
  if (!match) return undefined;
  return `http://${match[1]}${match[3] ?? ''}`;
}

/** Whether `presented` is one of `registered`, exactly (a loopback one's port aside). */
export function redirectUriMatches(registered: readonly string[], presented: string): boolean {
  if (presented.includes('#')) return false;
  if (registered.includes(presented)) return true;
  const loose = loopbackWithoutPort(presented);
  return loose !== undefined && registered.some((uri) => loopbackWithoutPort(uri) === loose);
}
