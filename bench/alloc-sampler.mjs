// Preloaded into a server by `npm run bench:tail -- --alloc` (node --import): the first SIGUSR2 starts
// V8's sampling heap profiler, the second writes the profile to $ALLOC_PROFILE_FILE and stops it. With
// ALLOC_SURVIVORS=1 objects a scavenge collects are left out: what remains is what survived the young
// generation (promoted: the old generation's growth, which paces the major GCs) and what is still live;
// else every allocation counts, collected or not (what a request allocates).
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';

const file = process.env.ALLOC_PROFILE_FILE;
if (file) {
  const session = new Session();
  session.connect();
  let sampling = false;
  process.on('SIGUSR2', () => {
    if (!sampling) {
      sampling = true;
      session.post('HeapProfiler.startSampling', {
        samplingInterval: 4096,
        includeObjectsCollectedByMajorGC: true,
        includeObjectsCollectedByMinorGC: process.env.ALLOC_SURVIVORS !== '1',
      });
      return;
    }
    sampling = false;
    session.post('HeapProfiler.stopSampling', (error, result) => {
      if (!error) writeFileSync(file, JSON.stringify(result.profile));
    });
  });
}
