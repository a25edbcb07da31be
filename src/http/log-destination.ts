// Where the log's JSON lines go: stdout, through a bounded buffer. A write(2) per request would cost more
// than the rest of the log line, so lines are written 8 KB at a time, and at most 100 ms after they were
// logged, and on close and exit, so a quiet server's lines are not held back.
//
// The lines wait in an array here, not in SonicBoom's own buffer: SonicBoom measures the UTF-8 length of its
// whole pending buffer on every write (to keep each write under its maximum), which would flatten and walk
// up to 8 KB of text per log line, a visible share of a GET's CPU time. SonicBoom does the writing, one
// write(2) per batch, with its handling of partial writes and EAGAIN.
import { destination, type DestinationStream } from 'pino';

/** Below SonicBoom's largest single write (16 KB), so a flush is one write(2). */
const BUFFER_BYTES = 8 * 1024;
const FLUSH_EVERY_MS = 100;

export interface LogDestination {
  stream: DestinationStream;
  /** Writes what is buffered and stops the timer; the process's exit flushes too. */
  close(): void;
}

export function bufferedStdout(): LogDestination {
  const sonic = destination({ dest: 1, sync: true });
  let lines: string[] = [];
  // UTF-16 units rather than bytes: the batch's size only needs to be about 8 KB.
  let pending = 0;
  let closed = false;
  const pass = () => {
    if (lines.length === 0) return;
    const batch = lines.length === 1 ? lines[0]! : lines.join('');
    lines = [];
    pending = 0;
    try {
      sonic.write(batch);
    } catch {
      // Not open yet, or already closed: nothing buffered can be written.
    }
  };
  const stream: DestinationStream = {
    write(line: string) {
      lines.push(line);
      pending += line.length;
      // After close (lines logged while shutting down), each line is written at once: no timer is left.
      if (pending >= BUFFER_BYTES || closed) pass();
    },
  };
  // On exit and close the lines are written and synced; the timer writes, no more: flushSync also fsyncs the
  // file, which on a log file would hold the event loop for the disk's fsync (milliseconds) ten times a
  // second. Durability of log lines is the log shipper's concern.
  const flush = () => {
    pass();
    try {
      sonic.flushSync();
    } catch {
      // Not open yet, or already closed: nothing buffered can be written.
    }
  };
  const timer = setInterval(pass, FLUSH_EVERY_MS).unref();
  process.once('exit', flush);
  return {
    stream,
    close() {
      closed = true;
      clearInterval(timer);
      process.off('exit', flush);
      flush();
    },
  };
}
