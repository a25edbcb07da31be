// Where the log's JSON lines go: stdout, through a bounded buffer. A write(2) per request cost more than
// the rest of the log line; lines are now written 8 KB at a time, and at most 100 ms after they were
// logged, and on close and exit, so a quiet server's lines are not held back.
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
  const stream = destination({ dest: 1, sync: true, minLength: BUFFER_BYTES });
  const flush = () => {
    try {
      stream.flushSync();
    } catch {
      // Not open yet, or already closed: nothing buffered can be written.
    }
  };
  // The timer writes what is buffered, no more: flushSync also fsyncs the file, which on a log file held the
  // event loop for the disk's fsync (milliseconds) ten times a second (issue 36's profile of GET: 4 % of the
  // CPU). Durability of log lines is the log shipper's concern; on exit and close the lines are still synced.
  const write = () => {
    try {
      stream.flush();
    } catch {
      // Not open yet, or already closed: nothing buffered can be written.
    }
  };
  const timer = setInterval(write, FLUSH_EVERY_MS).unref();
  process.once('exit', flush);
  return {
    stream,
    close() {
      clearInterval(timer);
      process.off('exit', flush);
      flush();
    },
  };
}
