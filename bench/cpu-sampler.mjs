// Preloaded into a server by `npm run bench:tail -- --cpu-window` (node --import): each SIGUSR2 starts
// V8's CPU profiler, the next writes the profile to $CPU_PROFILE_PREFIX-<n>.cpuprofile (n = 1, 2, …)
// and stops it — so the bench can profile the closed loop and the open loop apart and compare what each
// answer cost in each.
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';

const prefix = process.env.CPU_PROFILE_PREFIX;
if (prefix) {
  const session = new Session();
  session.connect();
  session.post('Profiler.enable');
  session.post('Profiler.setSamplingInterval', { interval: 200 });
  let profiling = false;
  let written = 0;
  process.on('SIGUSR2', () => {
    if (!profiling) {
      profiling = true;
      session.post('Profiler.start');
      return;
    }
    profiling = false;
    session.post('Profiler.stop', (error, result) => {
      written += 1;
      if (!error) writeFileSync(`${prefix}-${written}.cpuprofile`, JSON.stringify(result.profile));
    });
  });
}
