// Preloaded into a server by `npm run bench:tail` (node --import): appends each garbage collection of
// the process — wall-clock start (ms since the epoch, sub-ms), pause (ms) and kind — to $GC_TRACE_FILE
// as JSON lines, so the bench can line pauses up with its own requests' due times.
import { appendFileSync } from 'node:fs';
import { constants, PerformanceObserver, performance } from 'node:perf_hooks';

const file = process.env.GC_TRACE_FILE;
const KINDS = {
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'scavenge',
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'mark-compact',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weak-callbacks',
};
if (file) {
  const observer = new PerformanceObserver((list) => {
    const lines = list.getEntries().map((e) =>
      JSON.stringify({
        at: performance.timeOrigin + e.startTime,
        ms: e.duration,
        kind: KINDS[e.detail?.kind] ?? String(e.detail?.kind),
      }),
    );
    if (lines.length) appendFileSync(file, `${lines.join('\n')}\n`);
  });
  observer.observe({ entryTypes: ['gc'] });
}
