// A worker thread's CPU priority (the PDF pool's threads, the attachments' intake thread).
import { readlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * Lowers this thread's CPU priority by `nice`. On Linux a thread is a task with its own id (the name of
 * /proc/thread-self) that setpriority, and so os.setPriority, takes; elsewhere, or where /proc is missing, the
 * thread keeps the process's priority. Answers the niceness it runs at, or undefined when unchanged.
 */
export function lowerThreadPriority(nice: number): number | undefined {
  if (nice <= 0 || process.platform !== 'linux') return undefined;
  try {
    const tid = Number(path.basename(readlinkSync('/proc/thread-self')));
    const lowered = Math.min(19, os.getPriority(tid) + nice);
    os.setPriority(tid, lowered);
    return lowered;
  } catch {
    return undefined;
  }
}
