// Preloaded into the BMS process by the scale benchmark (node --import): measures how long the event loop
// is held. On SIGUSR2 it writes the largest delay since the last signal, in ms, to BENCH_LOOP_FILE and
// starts over, so the benchmark reads one figure per scenario without touching the server's code.
import fs from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';

const histogram = monitorEventLoopDelay({ resolution: 5 });
histogram.enable();
process.on('SIGUSR2', () => {
  const figures = { maxMs: histogram.max / 1e6, p99Ms: histogram.percentile(99) / 1e6 };
  histogram.reset();
  fs.writeFileSync(process.env.BENCH_LOOP_FILE, JSON.stringify(figures));
});
