/** Nearest-rank percentile (p in 0..100) of unsorted values; 0 for an empty list. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1] ?? 0;
}

export const median = (values: readonly number[]) => percentile(values, 50);

export const round = (n: number, digits = 2) => Number(n.toFixed(digits));

// Bound once, so progress lines still print while handler output is silenced or captured.
const rawStdoutWrite = process.stdout.write.bind(process.stdout);

/** A progress line, prefixed so it stands out. */
export function progress(message: string): void {
  rawStdoutWrite(`[bench] ${message}\n`);
}

/** Drops everything written to stdout (handler logs and EMF metric lines) until the returned function is called. */
export function silenceStdout(): () => void {
  const original = process.stdout.write;
  process.stdout.write = ((_chunk: unknown, ...rest: unknown[]) => {
    const callback = rest.find((r) => typeof r === 'function') as (() => void) | undefined;
    callback?.();
    return true;
  }) as typeof process.stdout.write;
  return () => {
    process.stdout.write = original;
  };
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Polls until `done()` or the deadline; returns whether it finished. */
export async function waitUntil(done: () => boolean, timeoutMs: number, everyMs = 50): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) return false;
    await sleep(everyMs);
  }
  return true;
}

/** Runs task(0..count-1) with at most `concurrency` in flight. */
export async function pool(count: number, concurrency: number, task: (index: number) => Promise<void>): Promise<void> {
  let next = 0;
  const lanes = Array.from({ length: Math.min(concurrency, count) }, async () => {
    while (next < count) await task(next++);
  });
  await Promise.all(lanes);
}
