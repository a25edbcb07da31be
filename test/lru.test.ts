// The in-memory caches' shared bound (core/lru.ts): the PDF and logo caches by bytes, the recurrence
// caches by count. What a user would notice is memory that stops growing and the recently used kept.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Lru } from '../src/core/lru.js';
import { onPostgres } from './helpers/database.js';

test('a count budget forgets the least recently used entry, and a read counts as a use', { skip: onPostgres }, () => {
  const cache = new Lru<string, number>(2);
  cache.set('a', 1);
  cache.set('b', 2);
  assert.equal(cache.get('a'), 1);
  cache.set('c', 3);
  assert.equal(cache.peek('b'), undefined);
  assert.equal(cache.peek('a'), 1);
  assert.equal(cache.peek('c'), 3);
  // peek is not a use: 'a' is still the oldest.
  cache.peek('a');
  cache.set('d', 4);
  assert.equal(cache.peek('a'), undefined);
  assert.deepEqual([cache.peek('c'), cache.peek('d')], [3, 4]);
});

test('a size budget holds the total of the sizes, counts a size given later, and keeps the newest entry', {
  skip: onPostgres,
}, () => {
  const cache = new Lru<string, string>(100);
  cache.set('old', 'x', 60);
  cache.set('pending', 'y', 0);
  assert.equal(cache.peek('old'), 'x');
  // The pending entry turns out to be 50: 110 > 100, so the oldest other entry goes.
  cache.resize('pending', 50);
  assert.equal(cache.peek('old'), undefined);
  assert.equal(cache.peek('pending'), 'y');
  // An entry over the whole budget is kept alone rather than dropped as it is set.
  cache.set('huge', 'z', 500);
  assert.equal(cache.peek('pending'), undefined);
  assert.equal(cache.peek('huge'), 'z');
  // Replacing an entry replaces its size; deleting frees it.
  cache.set('huge', 'z2', 10);
  cache.set('next', 'n', 90);
  assert.deepEqual([cache.peek('huge'), cache.peek('next')], ['z2', 'n']);
  cache.delete('huge');
  cache.set('more', 'm', 10);
  assert.deepEqual([cache.peek('next'), cache.peek('more')], ['n', 'm']);
});
