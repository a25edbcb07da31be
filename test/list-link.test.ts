// The `Link: <...>; rel="next"` of a list (src/http/pagination.ts withCursor): the request's path and query
// with the cursor set, byte for byte what WHATWG URL's searchParams.set writes, plain inputs or not. No
// database involved.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { withCursor } from '../src/http/pagination.js';

/** What the link was before: URL's own. */
function byUrl(url: string, cursor: string): string {
  const parsed = new URL(url, 'http://localhost');
  parsed.searchParams.set('cursor', cursor);
  return `${parsed.pathname}${parsed.search}`;
}

test('plain paths and queries: the cursor appended or replaced, the rest as it was', () => {
  const cursor = 'WyJjcmVhdGVkX2F0IiwiMjAyNi0xMS0yN1QwMzo1MToxNS44NTZaIiwiY2xpXzAwMSJd';
  const cases: [string, string][] = [
    ['/v1/clients', `/v1/clients?cursor=${cursor}`],
    ['/v1/clients?', `/v1/clients?cursor=${cursor}`],
    ['/v1/clients?limit=25', `/v1/clients?limit=25&cursor=${cursor}`],
    ['/v1/clients?cursor=old&limit=25', `/v1/clients?cursor=${cursor}&limit=25`],
    ['/v1/clients?limit=25&cursor=old&sort=-name&cursor=older', `/v1/clients?limit=25&cursor=${cursor}&sort=-name`],
    ['/v1/clients?external_id=&limit=2', `/v1/clients?external_id=&limit=2&cursor=${cursor}`],
  ];
  for (const [url, link] of cases) {
    assert.equal(withCursor(url, cursor), link, url);
    assert.equal(withCursor(url, cursor), byUrl(url, cursor), url);
  }
});

test('anything else reads exactly as URL writes it', () => {
  const cursors = ['abc_-XYZ09', 'a+b/c=', 'é'];
  const urls = [
    '/v1/clients?q=John%20Smith&limit=2',
    '/v1/clients?q=John+Smith',
    '/v1/clients?q=a b',
    '/v1/clients?q=%C3%A9t%C3%A9&cursor=x',
    '/v1/clients?q=été',
    '/v1/clients?limit',
    '/v1/clients?limit=2&&sort=name',
    '/v1/clients?a=1=2',
    '/v1/clients?q=%2',
    '/v1/clients?cursor',
    '/v1/clients?CURSOR=1',
    '/v1/clients?q=~tilde!',
    '/v1/clients?q=a;b',
    '/v1/../v1/clients?limit=2',
    '/v1/./clients',
    '/v1/cli%65nts?limit=2',
    '/v1/clients.json?limit=2',
    '/v1/clients#frag',
    '/v1/clients?q=x#frag',
    '//evil.example/v1/clients?limit=2',
    '//evil/v1/clients?limit=2',
    '/v1//clients?limit=2',
    '/v1/clients?q=\\x',
  ];
  for (const url of urls)
    for (const cursor of cursors) assert.equal(withCursor(url, cursor), byUrl(url, cursor), `${url} ${cursor}`);
});

test('random paths and queries of plain and special characters: the same as URL', () => {
  const alphabet = ['/', 'a', 'Z', '1', '-', '_', '.', '%', '2', '+', '=', '&', '?', ' ', 'é', '#', ';', '*', '~'];
  let seed = 36;
  const next = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed;
  };
  for (let round = 0; round < 5000; round += 1) {
    let url = '/';
    const length = next() % 24;
    for (let index = 0; index < length; index += 1) url += alphabet[next() % alphabet.length];
    if (next() % 2 === 0) url += `?limit=${next() % 100}&cursor=c${next() % 10}`;
    const cursor = next() % 5 === 0 ? 'a/b+c' : `Wy${next()}_-x`;
    const outcome = (write: (url: string, cursor: string) => string) => {
      try {
        return write(url, cursor);
      } catch (error) {
        return `throws ${(error as Error).message}`;
      }
    };
    assert.equal(outcome(withCursor), outcome(byUrl), `${url} ${cursor}`);
  }
});
