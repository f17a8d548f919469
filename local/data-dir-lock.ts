import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** What /proc/<pid>/stat says about a process: its state letter and its start time (clock ticks after boot). */
export interface ProcStat {
  state: string;
  startTime: string;
}

/**
 * Reads a /proc/<pid>/stat line. The command name (field 2) is in parentheses and may hold spaces
 * and parentheses itself, so the fields are counted from the last `)`: state is field 3, start time 22.
 */
export function parseProcStat(text: string): ProcStat | undefined {
  const rest = text.slice(text.lastIndexOf(')') + 1).trim().split(/\s+/);
  const [state, startTime] = [rest[0], rest[19]];
  return state && startTime && /^\d+$/.test(startTime) ? { state, startTime } : undefined;
}

async function procStat(pid: number): Promise<ProcStat | undefined> {
  return readFile(`/proc/${pid}/stat`, 'utf8').then(parseProcStat, () => undefined);
}

/**
 * Which process holds the lock: its pid and, where /proc exists (Linux), its start time, which
 * tells the holder from a later process that was given the same pid.
 */
async function holder(): Promise<string> {
  const stat = await procStat(process.pid);
  return stat ? `${process.pid} ${stat.startTime}` : String(process.pid);
}

/**
 * Whether the process that wrote `recorded` still runs. `kill -0` alone answers for a zombie (a
 * process killed with SIGKILL whose parent has not reaped it, as in a container whose PID 1 never
 * does), which would refuse every restart after a crash; /proc tells its state: `Z` (zombie) or `X`
 * (dead) is not running, nor is a live process that started at another time (the pid was reused).
 */
export async function isRunning(recorded: string, readStat: (pid: number) => Promise<ProcStat | undefined> = procStat): Promise<boolean> {
  const [pidText, startTime] = recorded.trim().split(/\s+/);
  const pid = Number(pidText);
  if (!Number.isInteger(pid) || pid <= 0) return false;
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const stat = await readStat(pid);
  // Gone between the two looks; or no /proc at all (macOS), where kill -0 is all there is.
  if (!stat) return startTime === undefined;
  if (stat.state === 'Z' || stat.state === 'X') return false;
  return startTime === undefined || stat.startTime === startTime;
}

/**
 * One gateway per data dir. Without this, a second one dies inside dynalite with "Database is
 * closed" (LevelDB's own lock), which says nothing about the cause. A stale file is taken over.
 */
async function createExclusive(file: string, content: string): Promise<boolean> {
  try {
    await writeFile(file, content, { flag: 'wx' });
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
  const me = await holder();
  let uncleanStop = false;
  if (!(await createExclusive(file, me))) {
    const owner = await readFile(file, 'utf8');
    if (await isRunning(owner)) {
      throw new Error(`${dataDir} is in use by another Hookgate gateway (pid ${owner.trim().split(/\s+/)[0]}); stop it or set HOOKGATE_DATA_DIR`);
    }
    await writeFile(file, me);
    uncleanStop = true;
  }
  return { unlock: () => rm(file, { force: true }), uncleanStop };
}
