import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

function isRunning(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * One gateway per data dir. Without this, a second one dies inside dynalite with "Database is
 * closed" (LevelDB's own lock), which says nothing about the cause. A stale file is taken over.
 */
async function createExclusive(file: string): Promise<boolean> {
  try {
    await writeFile(file, String(process.pid), { flag: 'wx' });
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
}

export interface DataDirLock {
  unlock(): Promise<void>;
  /** The previous gateway on this data dir died without stopping (its lock file was left behind). */
  uncleanStop: boolean;
}

export async function lockDataDir(dataDir: string): Promise<DataDirLock> {
  const file = join(dataDir, 'gateway.pid');
  let uncleanStop = false;
  if (!(await createExclusive(file))) {
    const owner = Number((await readFile(file, 'utf8')).trim());
    if (isRunning(owner)) {
      throw new Error(`${dataDir} is in use by another Hookgate gateway (pid ${owner}); stop it or set HOOKGATE_DATA_DIR`);
    }
    await writeFile(file, String(process.pid));
    uncleanStop = true;
  }
  return { unlock: () => rm(file, { force: true }), uncleanStop };
}
