import { PerformanceObserver } from 'node:perf_hooks';
const g = globalThis as any;
export function reset() {
  g.__tx = []; g.__commit = []; g.__exp = []; g.__gc = [];
  new PerformanceObserver((list) => { for (const e of list.getEntries()) g.__gc.push(e.duration); }).observe({ entryTypes: ['gc'] });
}
export function stats() {
  for (const k of ['__tx', '__commit', '__exp', '__gc']) {
    const a: number[] = (g[k] ?? []).slice().sort((x: number, y: number) => x - y);
    if (!a.length) continue;
    const q = (p: number) => a[Math.min(a.length - 1, Math.floor(a.length * p))]!.toFixed(1);
    console.log(k, 'n', a.length, 'p50', q(0.5), 'p99', q(0.99), 'max', a.at(-1)!.toFixed(1), '>25', a.filter((x) => x > 25).length, '>50', a.filter((x) => x > 50).length, 'top5', a.slice(-5).map((x) => x.toFixed(0)).join(','), 'sum', a.reduce((x, y) => x + y, 0).toFixed(0));
  }
}
