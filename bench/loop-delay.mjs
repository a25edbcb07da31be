// Preloaded into the BMS process by the scale benchmark (node --import): measures how long the event loop
// is held, and what the heap did. On SIGUSR2 it writes, since the last signal, the largest delay in ms, the bytes
// allocated on the heap (the used heap's growth between collections, v8.GCProfiler) and the collections (count
// and ms by kind) to BENCH_LOOP_FILE and starts over, so the benchmark reads one figure per scenario without
// touching the server's code.
import fs from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import v8 from 'node:v8';

const histogram = monitorEventLoopDelay({ resolution: 5 });
histogram.enable();
const used = () => v8.getHeapStatistics().used_heap_size;
let profiler = new v8.GCProfiler();
let usedAtStart = used();
profiler.start();
process.on('SIGUSR2', () => {
  const { statistics } = profiler.stop();
  const usedNow = used();
  let allocated = 0;
  let after = usedAtStart;
  const gc = {};
  for (const one of statistics) {
    allocated += Math.max(0, one.beforeGC.heapStatistics.usedHeapSize - after);
    after = one.afterGC.heapStatistics.usedHeapSize;
    const kind =
      one.gcType === 'Scavenge' ? 'scavenge' : one.gcType === 'MarkSweepCompact' ? 'markCompact' : one.gcType;
    gc[kind] ??= { count: 0, ms: 0 };
    gc[kind].count++;
    gc[kind].ms += one.cost / 1000;
  }
  allocated += Math.max(0, usedNow - after);
  const figures = {
    maxMs: histogram.max / 1e6,
    p99Ms: histogram.percentile(99) / 1e6,
    allocatedBytes: allocated,
    gc,
  };
  histogram.reset();
  profiler = new v8.GCProfiler();
  usedAtStart = usedNow;
  profiler.start();
  // Written aside and renamed, so that the benchmark, waiting for the file, never reads it half written.
  fs.writeFileSync(`${process.env.BENCH_LOOP_FILE}.part`, JSON.stringify(figures));
  fs.renameSync(`${process.env.BENCH_LOOP_FILE}.part`, process.env.BENCH_LOOP_FILE);
});
