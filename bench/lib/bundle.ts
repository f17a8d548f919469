import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Metafile } from 'esbuild';
import { lambdaBuildOptions } from '../../lib/constructs/lambda-bundle';
import { OUT_DIR, REPO_ROOT } from './child';

export const HANDLERS_DIR = new URL('lambdas/handlers/', REPO_ROOT);

/**
 * Bundles one Lambda entry exactly as HookgateFunction does (lib/constructs/lambda-bundle.ts) into
 * bench/out/bundles/<name>/: index.mjs, the chunks it imports at start, and the chunks it imports
 * only when a code path needs them.
 */
export async function bundleHandler(name: string): Promise<{ outfile: string; metafile: Metafile }> {
  const outdir = `${OUT_DIR}bundles/${name}`;
  const built = await build({
    ...lambdaBuildOptions(fileURLToPath(new URL(`${name}.ts`, HANDLERS_DIR)), outdir),
    metafile: true,
  });
  return { outfile: `${outdir}/index.mjs`, metafile: built.metafile };
}

/** The output files a cold start loads: the entry and, transitively, what it imports statically. */
export function loadedAtStart(metafile: Metafile, outfile: string): Set<string> {
  // esbuild names outputs relative to the working directory.
  const byAbsolute = new Map(Object.keys(metafile.outputs).map((path) => [resolve(path), path]));
  const entry = byAbsolute.get(outfile);
  if (!entry) throw new Error(`${outfile} is not among esbuild's outputs`);
  const loaded = new Set<string>();
  const visit = (path: string) => {
    if (loaded.has(path)) return;
    loaded.add(path);
    for (const imported of metafile.outputs[path]?.imports ?? []) if (imported.kind === 'import-statement' && !imported.external) visit(imported.path);
  };
  visit(entry);
  return loaded;
}
