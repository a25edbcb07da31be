import { Temporal } from '@js-temporal/polyfill';
import { dayNumber, dateOfDayNumber } from './src/core/time.js';
let d = Temporal.PlainDate.from('0001-01-01'); const end = Temporal.PlainDate.from('9999-12-31');
const epoch = Temporal.PlainDate.from('1970-01-01');
let n = epoch.until(d, { largestUnit: 'days' }).days; let checked = 0;
while (Temporal.PlainDate.compare(d, end) <= 0) {
  const s = d.toString();
  if (dayNumber(s) !== n) throw new Error(`dayNumber ${s} ${dayNumber(s)} ${n}`);
  if (dateOfDayNumber(n) !== s) throw new Error(`dateOf ${n} ${dateOfDayNumber(n)} ${s}`);
  d = d.add({ days: 1 }); n++; checked++;
}
console.log('ok', checked);
