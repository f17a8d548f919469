import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { build, type Metafile } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { loadedAtStart } from '../../bench/lib/bundle';
import { lambdaBuildOptions } from '../../lib/constructs/lambda-bundle';

// What each function loads at a cold start, from the bundles HookgateFunction deploys (the import
// times themselves are measured by `npm run bench`). A cold start loads the entry and the chunks it
// imports statically; code reached only through `import()` waits for the request that needs it.
const ROOT = resolve(import.meta.dirname, '../..');
const outRoot = mkdtempSync(join(tmpdir(), 'hookgate-cold-start-'));
afterAll(() => rmSync(outRoot, { recursive: true, force: true }));

interface StartSet {
  /** Source files (repository-relative) and packages in what a cold start loads. */
  atStart: Set<string>;
  /** Source files anywhere in the bundle. */
  all: Set<string>;
  /** Modules the start imports from Node (`node:http`…). */
  builtinsAtStart: Set<string>;
}

async function startSet(handler: string): Promise<StartSet> {
  const outdir = join(outRoot, handler);
  const { metafile } = (await build({ ...lambdaBuildOptions(join(ROOT, `lambdas/handlers/${handler}.ts`), outdir), metafile: true })) as {
    metafile: Metafile;
  };
  const loaded = loadedAtStart(metafile, join(outdir, 'index.mjs'));
  const sources = (outputs: Iterable<string>) =>
    new Set([...outputs].flatMap((output) => Object.keys(metafile.outputs[output]?.inputs ?? {}).map((input) => relative(ROOT, resolve(input)))));
  const builtinsAtStart = new Set(
    [...loaded].flatMap((output) => (metafile.outputs[output]?.imports ?? []).filter((i) => i.external && i.kind === 'import-statement').map((i) => i.path)),
  );
  return { atStart: sources(loaded), all: sources(Object.keys(metafile.outputs)), builtinsAtStart };
}

describe('what a cold start loads', () => {
  it('api: of the route modules only the table of route groups, no OpenAPI builder, no portal assets', async () => {
    const { atStart, all } = await startSet('api');
    const routeModules = [...all].filter((file) => file.startsWith('lambdas/api/routes/'));
    expect(routeModules.length).toBeGreaterThan(15);
    expect(routeModules.filter((file) => atStart.has(file))).toEqual(['lambdas/api/routes/groups.ts']);
    expect(atStart.has('lambdas/api/openapi.ts')).toBe(false);
    expect(atStart.has('lambdas/portal/assets.generated.ts')).toBe(false);
  });

  it('deliver: node:http is not imported as an ES module (that evaluates its WebSocket export, loading undici)', async () => {
    const { builtinsAtStart } = await startSet('deliver');
    expect(builtinsAtStart.has('node:https')).toBe(true);
    expect(builtinsAtStart.has('node:http')).toBe(false);
  });

  it('deliver: the clients of AWS destination types (and of hookgate listen, and KMS for Ed25519 keys) wait for a delivery of their type', async () => {
    const { atStart, all } = await startSet('deliver');
    const clients = (files: Set<string>, service: string) => [...files].filter((file) => file.includes(`@aws-sdk/client-${service}/`)).length;
    for (const service of ['sns', 'eventbridge', 'kinesis', 'lambda', 's3', 'apigatewaymanagementapi', 'kms']) {
      expect(clients(all, service), service).toBeGreaterThan(0);
      expect(clients(atStart, service), service).toBe(0);
    }
    expect([...atStart].filter((file) => /^lambdas\/adapters\/aws(\/|-sender)/.test(file))).toEqual([]);
  });

  it('listen: its WebSocket routes start without the SQS client or the destinations’ code (sessions are the api function’s)', async () => {
    const { atStart } = await startSet('listen');
    expect([...atStart].filter((file) => file.includes('@aws-sdk/client-sqs/'))).toEqual([]);
    // (config reads the endpoint caps' defaults from lambdas/destinations/changes.ts, which is pure.)
    expect([...atStart].filter((file) => /^lambdas\/(destinations\/index|routes\/|pipeline\/)/.test(file))).toEqual([]);
  });

  it('domain-provisioner: the ACM and API Gateway clients wait for a domain with a step to take', async () => {
    const { atStart, all } = await startSet('domain-provisioner');
    const clients = (files: Set<string>) => [...files].filter((file) => /@aws-sdk\/client-(acm|apigatewayv2)\//.test(file)).length;
    expect(clients(all)).toBeGreaterThan(0);
    expect(clients(atStart)).toBe(0);
  });
});
