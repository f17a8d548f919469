import { readFileSync } from 'node:fs';

/**
 * Each function's configured memory, read from the CDK source (lib/service-stack.ts, and the default in
 * lib/constructs/hookgate-function.ts) rather than copied, so the cost model follows the stack.
 */
export function lambdaMemoryMb(repoRoot: URL): Record<string, number> {
  const construct = readFileSync(new URL('lib/constructs/hookgate-function.ts', repoRoot), 'utf8');
  const fallback = Number(/memorySize:\s*props\.memorySize\s*\?\?\s*(\d+)/.exec(construct)?.[1] ?? 128);
  const stack = readFileSync(new URL('lib/service-stack.ts', repoRoot), 'utf8');
  const memory: Record<string, number> = {};
  for (const block of stack.split(/this\.addFunction\(/).slice(1)) {
    const props = block.slice(0, block.indexOf('});'));
    const handler = /handler:\s*'([\w-]+)'/.exec(props)?.[1];
    if (!handler) continue;
    const size = /memorySize:\s*(\d+)/.exec(props)?.[1];
    memory[handler] = size ? Number(size) : fallback;
  }
  return memory;
}
