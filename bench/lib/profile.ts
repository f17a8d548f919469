import { existsSync, readFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';

interface ProfileNode {
  id: number;
  callFrame: { url: string; functionName: string };
  hitCount?: number;
}

/** npm packages reachable from `root` through `dependencies` (node_modules is flat enough here). */
function closure(repoRoot: URL, root: string): Set<string> {
  const seen = new Set<string>();
  const visit = (name: string) => {
    if (seen.has(name)) return;
    seen.add(name);
    const manifest = new URL(`node_modules/${name}/package.json`, repoRoot);
    if (!existsSync(manifest)) return;
    const deps = (JSON.parse(readFileSync(manifest, 'utf8')) as { dependencies?: Record<string, string> }).dependencies ?? {};
    for (const dep of Object.keys(deps)) visit(dep);
  };
  visit(root);
  return seen;
}

/**
 * Samples the CPU of this process while `stop` has not been called, and sorts self time into who
 * spent it: the emulators (and their dependencies), the AWS SDK, the handlers, Node core, GC.
 */
export async function startProfile(repoRoot: URL) {
  const buckets: Array<[string, (pkg: string) => boolean]> = [];
  const sdk = (pkg: string) => /^@(aws-sdk|smithy|aws-crypto)\//.test(pkg) || pkg === 'fast-xml-parser' || pkg === 'strnum' || pkg === 'bowser';
  buckets.push(['AWS SDK (handlers and local poller)', sdk]);
  const handlerDeps = new Set(['zod', '@middy/core', '@aws-lambda-powertools/batch', '@aws-lambda-powertools/commons', '@aws/lambda-invoke-store']);
  buckets.push(['handler libraries (zod, middy, powertools)', (pkg) => handlerDeps.has(pkg)]);
  const dynalite = closure(repoRoot, 'dynalite');
  buckets.push(['DynamoDB emulator (dynalite, LevelDB)', (pkg) => dynalite.has(pkg)]);
  const sqs = closure(repoRoot, 'local-aws-sqs');
  buckets.push(['SQS emulator (local-aws-sqs)', (pkg) => sqs.has(pkg)]);
  const s3 = closure(repoRoot, 's3rver');
  buckets.push(['S3 emulator (s3rver)', (pkg) => s3.has(pkg)]);

  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 500 });
  await session.post('Profiler.start');

  return async function stop(): Promise<Record<string, number>> {
    const { profile } = (await session.post('Profiler.stop')) as unknown as { profile: { nodes: ProfileNode[] } };
    session.disconnect();
    const hits: Record<string, number> = {};
    let total = 0;
    for (const node of profile.nodes) {
      const count = node.hitCount ?? 0;
      if (count === 0) continue;
      const { url, functionName } = node.callFrame;
      let bucket: string;
      if (functionName === '(idle)') bucket = 'idle';
      else if (functionName === '(garbage collector)') bucket = 'garbage collector';
      else if (!url) bucket = functionName === '(program)' ? 'V8 / native (program)' : 'Node core and natives';
      else if (url.startsWith('node:')) bucket = 'Node core (http, streams, crypto, timers)';
      else {
        const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1];
        if (pkg) bucket = buckets.find(([, test]) => test(pkg))?.[0] ?? `other packages`;
        else if (url.includes('/lambdas/')) bucket = 'Hookgate handlers (lambdas/)';
        else if (url.includes('/local/')) bucket = 'local runtime glue (local/)';
        else bucket = 'other';
      }
      hits[bucket] = (hits[bucket] ?? 0) + count;
      total += count;
    }
    const busy = total - (hits.idle ?? 0);
    return Object.fromEntries(
      Object.entries(hits)
        .filter(([name]) => name !== 'idle')
        .sort((a, b) => b[1] - a[1])
        .map(([name, count]) => [name, Number(((count / Math.max(1, busy)) * 100).toFixed(1))]),
    );
  };
}
