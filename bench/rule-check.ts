// What checking one repeating-visit rule costs (contract section 32: "checking a rule (COUNT on sparse rules too)
// costs at most a bounded amount of CPU per request"). Each rule below is checked as a create or split checks it
// (`parseRecurrence`: read, then expanded as far as its check needs), each time from a new start_date so that no
// cached expansion helps, as an attacker changing start_date would; the CPU of every check is measured with
// process.cpuUsage. Prints, per rule, the answer and the median and worst CPU, then the worst of all; writes
// bench/results/rule-check-latest.md. `node --import tsx bench/rule-check.ts`; STARTS=… start dates per rule
// (default 15).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Temporal } from '@js-temporal/polyfill';
import { parseRecurrence } from '../src/modules/visit-schedules/recurrence.js';
import { ROOT } from './lib.js';

const STARTS = Number(process.env.STARTS ?? 15);

/** Sparse and dense rules, bounded and not: the finding's two, their neighbours, and the common valid ones. */
const RULES: Array<[string, 'skip' | 'last_day']> = [
  ['FREQ=DAILY;BYMONTHDAY=31;COUNT=1000', 'last_day'],
  ['FREQ=DAILY;BYMONTHDAY=31;COUNT=1000', 'skip'],
  ['FREQ=DAILY;BYMONTH=2;BYMONTHDAY=29;COUNT=1000', 'last_day'],
  ['FREQ=DAILY;BYMONTH=2;BYMONTHDAY=29;COUNT=1000', 'skip'],
  ['FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29;COUNT=1000', 'skip'],
  ['FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30', 'skip'],
  ['FREQ=DAILY;BYMONTH=2;BYMONTHDAY=29;BYDAY=MO', 'skip'],
  ['FREQ=DAILY;INTERVAL=2;BYMONTHDAY=31;COUNT=40', 'skip'],
  ['FREQ=DAILY;INTERVAL=2;BYMONTH=2;BYMONTHDAY=30', 'skip'],
  ['FREQ=DAILY;BYMONTHDAY=31;COUNT=100', 'last_day'],
  ['FREQ=DAILY;BYMONTHDAY=1;COUNT=120', 'last_day'],
  ['FREQ=DAILY;COUNT=1000', 'last_day'],
  ['FREQ=DAILY;BYDAY=MO,WE,FR;COUNT=1000', 'last_day'],
  ['FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR;COUNT=1000', 'last_day'],
  ['FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1;COUNT=120', 'last_day'],
  ['FREQ=YEARLY;BYDAY=53MO', 'last_day'],
  ['FREQ=WEEKLY;INTERVAL=2;BYDAY=TU', 'last_day'],
];

function checkOnce(rrule: string, overflow: string, start: string): { cpuMs: number; answer: string } {
  const before = process.cpuUsage();
  let answer = 'accepted';
  try {
    parseRecurrence(
      { rrule, start_date: start, time: '09:00', timezone: 'America/Denver', month_day_overflow: overflow },
      { defaultTimeZone: 'UTC' },
    );
  } catch (error) {
    const details = (error as { details?: Array<{ field: string }> }).details ?? [];
    answer = `422 ${details.map((detail) => detail.field).join(', ')}`;
  }
  const used = process.cpuUsage(before);
  return { cpuMs: (used.user + used.system) / 1000, answer };
}

// Warm the code paths once (the JIT), on dates never used below.
for (const [rrule, overflow] of RULES) checkOnce(rrule, overflow, '2001-01-01');

const rows: string[] = [];
let worst = { cpuMs: 0, rule: '' };
let startIndex = 0;
for (const [rrule, overflow] of RULES) {
  const times: number[] = [];
  let answer = '';
  for (let index = 0; index < STARTS; index++) {
    const start = Temporal.PlainDate.from('2026-01-01')
      .add({ days: 37 * startIndex++ })
      .toString();
    const one = checkOnce(rrule, overflow, start);
    times.push(one.cpuMs);
    answer = one.answer;
  }
  times.sort((a, b) => a - b);
  const median = times[Math.floor(times.length / 2)] as number;
  const max = times.at(-1) as number;
  if (max > worst.cpuMs) worst = { cpuMs: max, rule: `${rrule} (${overflow})` };
  const row = `| \`${rrule}\` | ${overflow} | ${answer} | ${median.toFixed(1)} | ${max.toFixed(1)} |`;
  rows.push(row);
  console.log(row);
}
const load = os.loadavg()[0]?.toFixed(2);
const summary = `Worst rule check: ${worst.cpuMs.toFixed(1)} ms of CPU (${worst.rule}); ${STARTS} start dates per rule, load ${load}.`;
console.log(summary);
const out = [
  `# Rule checks, ${new Date().toISOString()}`,
  '',
  '| rule | month_day_overflow | answer | median CPU (ms) | worst CPU (ms) |',
  '|---|---|---|---|---|',
  ...rows,
  '',
  summary,
  '',
].join('\n');
fs.mkdirSync(path.join(ROOT, 'bench/results'), { recursive: true });
fs.writeFileSync(path.join(ROOT, 'bench/results/rule-check-latest.md'), out);
