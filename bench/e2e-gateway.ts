/**
 * The gateway under load for sections 4, 8 and 9, in a process of its own, started as `npm start`
 * starts it (emulators and the deliver function on threads of their own, ingest and the API on the
 * main one), driven over IPC through bench/lib/child-gateway.ts. It reports its CPU use (every
 * thread), each JS thread's CPU and event-loop utilisation, the main thread's CPU profile by
 * component, its memory (the process's resident set, each thread's heap after a full collection)
 * and (started with HOOKGATE_LOCAL_CALL_COUNTS=1) the DynamoDB and SQS requests each thread made, by account.
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance, type EventLoopUtilization } from 'node:perf_hooks';
import type { Worker } from 'node:worker_threads';
import { readCallCounts } from '../local/call-counts';
import { startGateway, type ThreadHeaps } from '../local/gateway';
import { REPO_ROOT } from './lib/child';
import type { GatewayMemory } from './lib/soak';
import { startProfile } from './lib/profile';
import { round } from './lib/stats';

type Message = { type: 'measure-start' } | { type: 'measure-stop' } | { type: 'calls' } | { type: 'memory' } | { type: 'stop' };

const send = (message: unknown) => process.send?.(message);
const dataDir = await mkdtemp(join(tmpdir(), 'hookgate-bench-e2e-'));
const gateway = await startGateway({
  port: 0,
  dataDir,
  log: () => undefined,
  env: { HOOKGATE_ALLOW_PRIVATE_DESTINATIONS: 'true', HOOKGATE_LOG_LEVEL: 'warn' },
});

/** Reads one thread's CPU time and event-loop utilisation. */
interface ThreadMeter {
  cpu(): Promise<NodeJS.CpuUsage>;
  elu(previous?: EventLoopUtilization): EventLoopUtilization;
}
const threads: Record<string, ThreadMeter> = {
  main: { cpu: async () => process.threadCpuUsage(), elu: (previous) => performance.eventLoopUtilization(previous) },
};
const workerMeter = (worker: Worker): ThreadMeter => ({ cpu: () => worker.cpuUsage(), elu: (previous) => worker.performance.eventLoopUtilization(previous) });
threads.emulators = workerMeter(gateway.threads.emulators);
if (gateway.threads.deliver) threads.deliver = workerMeter(gateway.threads.deliver);

interface Window {
  cpu: NodeJS.CpuUsage;
  threads: Record<string, { cpu: NodeJS.CpuUsage; elu: EventLoopUtilization }>;
  wall: number;
  stopProfile: () => Promise<Record<string, number>>;
}
let window: Window | undefined;

async function readThreads(): Promise<Window['threads']> {
  const entries = await Promise.all(Object.entries(threads).map(async ([name, meter]) => [name, { cpu: await meter.cpu(), elu: meter.elu() }] as const));
  return Object.fromEntries(entries);
}

/** The resident set's anonymous and file-backed parts, where /proc says (Linux). */
function residentParts(): Pick<GatewayMemory, 'rss_anon' | 'rss_file'> {
  if (!existsSync('/proc/self/status')) return {};
  const status = readFileSync('/proc/self/status', 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0) * 1024;
  return { rss_anon: kb('RssAnon'), rss_file: kb('RssFile') };
}

function memoryByThread(heaps: ThreadHeaps): GatewayMemory['threads'] {
  return Object.fromEntries(
    Object.entries(heaps).map(([name, heap]) => [name, { heap_used: heap.used_heap_size, heap_physical: heap.total_physical_size }]),
  );
}

const cpuMs = (end: NodeJS.CpuUsage, start: NodeJS.CpuUsage) => (end.user - start.user + end.system - start.system) / 1000;

process.on('message', (message: Message) => {
  void (async () => {
    if (message.type === 'measure-start') {
      window = {
        cpu: process.cpuUsage(),
        threads: await readThreads(),
        wall: performance.now(),
        stopProfile: await startProfile(REPO_ROOT),
      };
      send({ type: 'measuring' });
    } else if (message.type === 'measure-stop' && window) {
      const start = window;
      const cpu = process.cpuUsage(start.cpu);
      const wallMs = performance.now() - start.wall;
      const end = await readThreads();
      const profile = await start.stopProfile();
      const perThread = Object.fromEntries(
        Object.entries(end).map(([name, now]) => {
          const before = start.threads[name];
          if (!before) return [name, null];
          return [
            name,
            {
              cpu_percent_of_one_core: round((cpuMs(now.cpu, before.cpu) / wallMs) * 100, 1),
              event_loop_utilization: round(threads[name]?.elu(before.elu).utilization ?? 0, 3),
            },
          ];
        }),
      );
      send({
        type: 'stats',
        stats: {
          cpu_percent_of_one_core: round(((cpu.user + cpu.system) / 1000 / wallMs) * 100, 1),
          event_loop_utilization: perThread.main?.event_loop_utilization ?? 0,
          threads: perThread,
          cpu_profile_percent: profile,
        },
      });
    } else if (message.type === 'memory') {
      const heaps = await gateway.heaps();
      send({ type: 'memory', memory: { rss: process.memoryUsage.rss(), ...residentParts(), threads: memoryByThread(heaps) } satisfies GatewayMemory });
    } else if (message.type === 'calls') {
      const counting = ['main', ...(gateway.threads.deliver ? ['deliver'] : [])];
      await readCallCounts(counting).then(
        (calls) => send({ type: 'calls', calls }),
        (error: unknown) => send({ type: 'calls', error: error instanceof Error ? error.message : String(error) }),
      );
    } else if (message.type === 'stop') {
      await gateway.close();
      await rm(dataDir, { recursive: true, force: true });
      process.exit(0);
    }
  })();
});
send({ type: 'ready', url: gateway.url });
