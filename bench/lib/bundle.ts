import { fileURLToPath } from 'node:url';
import { build, type Metafile } from 'esbuild';
import { OUT_DIR, REPO_ROOT } from './child';

// Copied from lib/constructs/hookgate-function.ts (not exported there).
const ESM_REQUIRE_BANNER =
  "import { createRequire as __hookgateCreateRequire } from 'node:module'; const require = __hookgateCreateRequire(import.meta.url);";

export const HANDLERS_DIR = new URL('lambdas/handlers/', REPO_ROOT);

/**
 * Bundles one Lambda entry as HookgateFunction's NodejsFunction does (ESM, node24, minified, names
 * kept, source map without sources, the createRequire banner, nothing external) into bench/out/bundles/.
 */
export async function bundleHandler(name: string): Promise<{ outfile: string; metafile: Metafile }> {
  const outfile = `${OUT_DIR}bundles/${name}/index.mjs`;
  const built = await build({
    entryPoints: [fileURLToPath(new URL(`${name}.ts`, HANDLERS_DIR))],
    outfile,
    bundle: true,
    platform: 'node',
    target: 'node24',
    format: 'esm',
    mainFields: ['module', 'main'],
    minify: true,
    keepNames: true,
    sourcemap: true,
    sourcesContent: false,
    banner: { js: ESM_REQUIRE_BANNER },
    external: [],
    metafile: true,
    logLevel: 'error',
  });
  return { outfile, metafile: built.metafile };
}
