/**
 * The gateway under load for section 4, in a process of its own (as `npm start` runs it: emulators,
 * handlers, SQS poller and schedules in one Node process), driven over IPC by bench/e2e.ts. It reports
 * its own CPU use (both threads), its main thread's event-loop utilisation and CPU profile by component, and the
 * handlers' durations.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { startGateway } from '../local/gateway';
import { REPO_ROOT } from './lib/child';
import { realHandlers } from './lib/handlers';
import { Meter } from './lib/meter';
import { startProfile } from './lib/profile';
import { percentile, round } from './lib/stats';

type Message = { type: 'measure-start' } | { type: 'measure-stop' } | { type: 'stop' };

const send = (message: unknown) => process.send?.(message);
const dataDir = await mkdtemp(join(tmpdir(), 'hookgate-bench-e2e-'));
// Only timing: no AWS middleware, so the handlers run as they do under `npm start`.
const meter = new Meter();
const gateway = await startGateway({
  port: 0,
  dataDir,
  log: () => undefined,
  handlers: {
    api: meter.wrap('api', realHandlers.api),
    ingest: meter.wrap('ingest', realHandlers.ingest),
    deliver: meter.wrap('deliver', realHandlers.deliver),
    reconciler: meter.wrap('reconciler', realHandlers.reconciler),
  },
  env: { HOOKGATE_ALLOW_PRIVATE_DESTINATIONS: 'true', HOOKGATE_LOG_LEVEL: 'warn' },
});

let window: { cpu: NodeJS.CpuUsage; elu: ReturnType<typeof performance.eventLoopUtilization>; wall: number; stopProfile: () => Promise<Record<string, number>> } | undefined;

process.on('message', (message: Message) => {
  void (async () => {
    if (message.type === 'measure-start') {
      meter.reset();
      window = {
        cpu: process.cpuUsage(),
        elu: performance.eventLoopUtilization(),
        wall: performance.now(),
        stopProfile: await startProfile(REPO_ROOT),
      };
      send({ type: 'measuring' });
    } else if (message.type === 'measure-stop' && window) {
      const cpu = process.cpuUsage(window.cpu);
      const elu = performance.eventLoopUtilization(window.elu);
      const wallMs = performance.now() - window.wall;
      const profile = await window.stopProfile();
      const timing = (fn: string) => {
        const ms = meter.invocations.filter((i) => i.fn === fn).map((i) => i.ms);
        return { invocations: ms.length, p50_ms: round(percentile(ms, 50), 1), p99_ms: round(percentile(ms, 99), 1) };
      };
      const batches = meter.invocations.filter((i) => i.fn === 'deliver');
      send({
        type: 'stats',
        stats: {
          cpu_percent_of_one_core: round(((cpu.user + cpu.system) / 1000 / wallMs) * 100, 1),
          event_loop_utilization: round(elu.utilization, 3),
          cpu_profile_percent: profile,
          ingest: timing('ingest'),
          deliver: { ...timing('deliver'), avg_batch: round(batches.reduce((s, b) => s + (b.records ?? 0), 0) / Math.max(1, batches.length), 2) },
        },
      });
    } else if (message.type === 'stop') {
      await gateway.close();
      await rm(dataDir, { recursive: true, force: true });
      process.exit(0);
    }
  })();
});
send({ type: 'ready', url: gateway.url });
