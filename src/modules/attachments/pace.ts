// What uploads do across the process, per bytes received (docs/decisions.md, "Attachments: uploads at speed").
//
// They give way to other requests. Every chunk an upload receives is work on the event loop (the parser's, the
// hand-over to the intake's thread, which hashes, checks and writes it: intake-thread.ts); 20 uploads at once would each take their chunk in every turn of the loop, and another tenant's request would wait
// behind all of them at each of its steps. So all uploads together take at most TURN_BYTES a turn: past it, a chunk
// waits for the next turn (its stream stays paused, and TCP holds the sender back), while whatever else is ready
// runs in between. A lone upload is slowed by a turn per TURN_BYTES at most.
//
// And while two or more are under way they take together at most ATTACHMENT_SHARED_BYTES_PER_SECOND (64 MiB a second
// by default): past it, the next turn is a timer away. Each upload's bytes cost CPU on every core's side (the
// parser and hand-over here, the intake's thread, the kernel's copies), and 20 at full speed took both cores of the
// benchmark's machine, so another tenant's GET waited for one (docs/decisions.md, "Attachments: uploads beside
// others take a set rate"). A lone upload is not limited.
//
// And the chunks they leave behind are collected as they go. Node's HTTP parser hands each chunk of a body over
// in a Buffer of its own, outside V8's heap; such memory is freed only by a garbage collection, which the little an
// upload allocates on the heap seldom causes (V8 forces one only past 64 MB of it): a 25 MiB body stayed in the
// process, as garbage, until then (measured: RSS up by the body's size). A raw upload's chunks are moved to the
// intake's thread (intake-thread.ts), which collects them there; chunks copied to it (multipart's parts, pieces of
// the request's chunks) leave theirs here, so every COLLECT_BYTES of those the young generation, where those
// Buffers are, is collected (a minor collection). V8's `gc` is there when Node runs with --expose-gc, as
// `npm start` and docs/deploying.md's unit start it; without it, uploads go on uncollected.

/** Bytes of all uploads together hashed and checked in one turn of the event loop. */
const TURN_BYTES = 256 * 1024;

/** Bytes of uploads between two collections of the young generation. */
const COLLECT_BYTES = 1024 * 1024;

/** Bytes taken since the turn began. */
let spent = 0;
/** Chunks waiting for a later turn, in arrival order. */
const waiting: Array<{ bytes: number; go: () => void }> = [];
let turnScheduled = false;
/** Bytes copied since the last collection. */
let uncollected = 0;
/** The bytes a second all uploads may take together now (0: no limit), as the last chunk's upload found it. */
let limit = 0;
/** Bytes the limit allows now (below 0: taken ahead, to be waited for), up to TURN_BYTES saved. */
let allowance = TURN_BYTES;
let refilledAt = performance.now();

function refill(): void {
  const now = performance.now();
  if (limit > 0) allowance = Math.min(TURN_BYTES, allowance + ((now - refilledAt) * limit) / 1000);
  refilledAt = now;
}

const mayTake = () => spent < TURN_BYTES && (limit === 0 || allowance > 0);

function take(bytes: number): void {
  spent += bytes;
  if (limit > 0) allowance -= bytes;
}

/** A new turn (the loop's check phase, after its I/O): the budget is renewed, first to those waiting. */
function nextTurn(): void {
  turnScheduled = false;
  spent = 0;
  refill();
  while (waiting.length > 0 && mayTake()) {
    const next = waiting.shift() as { bytes: number; go: () => void };
    take(next.bytes);
    next.go();
  }
  if (waiting.length > 0 && limit > 0 && allowance <= 0) {
    // Out of the limit's bytes: the next turn when they are there again (other requests run meanwhile).
    turnScheduled = true;
    setTimeout(nextTurn, Math.max(1, Math.ceil((-allowance * 1000) / limit)));
  } else if (spent > 0) scheduleTurn();
}

function scheduleTurn(): void {
  if (turnScheduled) return;
  turnScheduled = true;
  setImmediate(nextTurn);
}

/**
 * Takes `bytes` of this turn's budget: undefined when they may be worked on now, else a promise that resolves in
 * the turn that has room (none waiting is ever overtaken). `copied`: the chunk stays here, to be collected.
 * `bytesPerSecond`: what all uploads may take together while this one is under way (0: no limit), the caller's
 * ATTACHMENT_SHARED_BYTES_PER_SECOND while two or more uploads are under way.
 */
export function uploadTurn(bytes: number, copied: boolean, bytesPerSecond = 0): Promise<void> | undefined {
  if (copied) uncollected += bytes;
  if (uncollected >= COLLECT_BYTES) {
    uncollected = 0;
    globalThis.gc?.({ type: 'minor' });
  }
  limit = bytesPerSecond;
  refill();
  scheduleTurn();
  if (waiting.length === 0 && mayTake()) {
    take(bytes);
    return undefined;
  }
  return new Promise((go) => waiting.push({ bytes, go }));
}
