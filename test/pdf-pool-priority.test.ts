// The PDF pool's threads run `nice` below the API's priority (PDF_THREAD_NICE; docs/decisions.md "E-invoices:
// freezing outside the writer"): on Linux each thread is a task with its own niceness, read here from
// /proc/self/task/<tid>/stat, while the process's main thread keeps its own.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import { test } from 'node:test';
import { loadConfig } from '../src/config.js';
import { PdfPool } from '../src/mail/pdf-pool.js';

/** Each task's niceness (field 19 of its stat), by task id. */
function niceness(): Map<number, number> {
  const found = new Map<number, number>();
  for (const tid of readdirSync('/proc/self/task')) {
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    found.set(Number(tid), Number(fields[16]));
  }
  return found;
}

test('PDF_THREAD_NICE is 10 unless set, 0 to 19', () => {
  assert.equal(loadConfig({ NODE_ENV: 'test' }).pdf.nice, 10);
  assert.equal(loadConfig({ NODE_ENV: 'test', PDF_THREAD_NICE: '0' }).pdf.nice, 0);
  assert.throws(() => loadConfig({ NODE_ENV: 'test', PDF_THREAD_NICE: '20' }), /PDF_THREAD_NICE/);
});

test('a pool thread runs 5 below the process, the main thread unchanged', {
  skip: process.platform !== 'linux',
}, async () => {
  const base = os.getPriority();
  if (base > 14) return; // Already too low to go 5 lower.
  const before = niceness();
  const pool = new PdfPool({ threads: 1, timeoutMs: 60_000, nice: 5 });
  try {
    // A file that is not an invoice is answered at once, without the schemas: enough to start the thread.
    const findings = await pool.validateEinvoice('<Order/>', 'ubl');
    assert.ok(findings.length > 0);
    const lowered = [...niceness()].filter(([tid, nice]) => !before.has(tid) && nice === base + 5);
    assert.equal(lowered.length, 1, JSON.stringify([...niceness()]));
    assert.equal(os.getPriority(), base);
  } finally {
    await pool.close();
  }
});
