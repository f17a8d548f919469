import type { BuildOptions } from 'esbuild';

// esbuild's ESM output has no `require`; CommonJS dependencies bundled inside still call it.
const ESM_REQUIRE_BANNER =
  "import { createRequire as __hookgateCreateRequire } from 'node:module'; const require = __hookgateCreateRequire(import.meta.url);";

/**
 * How a Lambda entry is bundled: HookgateFunction deploys exactly this, bench/cold-start.ts measures it.
 * ESM for Node 24, minified (names kept, so error names in logs stay readable), and the AWS SDK bundled:
 * its version is pinned by our lockfile, not by the runtime. No source maps: `--enable-source-maps`
 * made every cold start parse them, and the error lines name the error and its minified location,
 * which is enough to find it with the same bundle built locally.
 *
 * Code splitting: a dynamic `import()` becomes a chunk of its own, loaded only when the code path runs
 * (the S3 client: lambdas/adapters/s3.ts). NodejsFunction cannot do this (it passes esbuild an
 * `--outfile`, and splitting needs an output directory), hence our own bundling step.
 */
export function lambdaBuildOptions(entry: string, outdir: string): BuildOptions {
  return {
    entryPoints: { index: entry },
    outdir,
    outExtension: { '.js': '.mjs' },
    chunkNames: 'chunks/[name]-[hash]',
    bundle: true,
    splitting: true,
    platform: 'node',
    target: 'node24',
    format: 'esm',
    mainFields: ['module', 'main'],
    minify: true,
    keepNames: true,
    banner: { js: ESM_REQUIRE_BANNER },
    external: [],
    logLevel: 'error',
  };
}
