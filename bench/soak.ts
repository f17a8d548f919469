/**
 * Section 9: memory over time (issue 36). The gateway as `npm start` runs it, at a steady 20 webhooks
 * a second for a minute of warm-up and four measured minutes: the process's resident set and each
 * thread's heap after a full collection, every 10 s, and how much each grew over the four minutes. A
 * leak of a kilobyte per event shows as ~5 MB in a thread's heap; dynalite's unclosed iterators
 * showed as ~100 MB a minute of resident memory.
 */
import { writeResult } from './lib/child';
import { runSoak } from './lib/soak';
import { progress } from './lib/stats';

progress('soak: 20 webhooks/s, 60 s of warm-up, then 240 s measured...');
writeResult(await runSoak({ ratePerS: 20, warmupS: 60, measureS: 240, sampleEveryS: 10, log: progress }));
