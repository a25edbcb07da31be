// What uploads do across the process, per bytes received (docs/decisions.md, "Attachments: uploads at speed").
//
// They give way to other requests. Every chunk an upload receives is work on the event loop (the parser's, the
// hand-over to the intake's thread, which hashes, checks and writes it: intake-thread.ts); 20 uploads at once would each take their chunk in every turn of the loop, and another tenant's request would wait
// behind all of them at each of its steps. So all uploads together take at most TURN_BYTES a turn: past it, a chunk
// waits for the next turn (its stream stays paused, and TCP holds the sender back), while whatever else is ready
// runs in between. A lone upload is slowed by a turn per TURN_BYTES at most.
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
/** A new turn (the loop's check phase, after its I/O): the budget is renewed, first to those waiting. */
function nextTurn(): void {
  turnScheduled = false;
  spent = 0;
  while (waiting.length > 0 && spent < TURN_BYTES) {
    const next = waiting.shift() as { bytes: number; go: () => void };
    spent += next.bytes;
    next.go();
  }
  if (spent > 0) scheduleTurn();
}

function scheduleTurn(): void {
  if (turnScheduled) return;
  turnScheduled = true;
  setImmediate(nextTurn);
}

/**
 * Takes `bytes` of this turn's budget: undefined when they may be worked on now, else a promise that resolves in
 * the turn that has room (none waiting is ever overtaken). `copied`: the chunk stays here, to be collected.
 */
export function uploadTurn(bytes: number, copied: boolean): Promise<void> | undefined {
  if (copied) uncollected += bytes;
  if (uncollected >= COLLECT_BYTES) {
    uncollected = 0;
    globalThis.gc?.({ type: 'minor' });
  }
  scheduleTurn();
  if (waiting.length === 0 && spent < TURN_BYTES) {
    spent += bytes;
    return undefined;
  }
  return new Promise((go) => waiting.push({ bytes, go }));
}
