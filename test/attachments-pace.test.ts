// How uploads' bytes are paced across the process (src/modules/attachments/pace.ts; docs/decisions.md,
// "Attachments: uploads beside others take a set rate"): 256 KiB a turn of the event loop for all of them, and,
// while two or more are under way, at most ATTACHMENT_SHARED_BYTES_PER_SECOND together.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { uploadTurn } from '../src/modules/attachments/pace.js';

const KIB = 1024;
const MIB = 1024 * KIB;
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

test('without a limit, all uploads together take 256 KiB in one turn and the rest waits for the next', async () => {
  await nextTurn();
  await nextTurn();
  const answers = Array.from({ length: 6 }, () => uploadTurn(64 * KIB, false, 0));
  assert.deepEqual(
    answers.map((answer) => answer === undefined),
    [true, true, true, true, false, false],
    'four chunks of 64 KiB at once, the fifth and sixth in a later turn',
  );
  await Promise.all(answers);
});

test('with a limit of 2 MiB a second, uploads take no more than it (and 256 KiB saved) however fast they ask', async () => {
  await nextTurn();
  const limit = 2 * MIB;
  const started = performance.now();
  let granted = 0;
  while (performance.now() - started < 600) {
    await uploadTurn(64 * KIB, false, limit);
    granted += 64 * KIB;
  }
  const seconds = (performance.now() - started) / 1000;
  // What the limit allows in the time taken, the 256 KiB it may have saved, and the one chunk that may overdraw it.
  const most = limit * seconds + 256 * KIB + 64 * KIB;
  assert.ok(granted <= most, `${granted} bytes in ${seconds.toFixed(3)} s, at most ${Math.round(most)}`);
  assert.ok(granted >= 256 * KIB, `${granted} bytes: the saved 256 KiB at least`);
  // Without the limit (one upload under way) the next chunks go at once again, in a new turn.
  await new Promise((resolve) => setTimeout(resolve, 50));
  await nextTurn();
  assert.equal(uploadTurn(64 * KIB, false, 0), undefined);
});
