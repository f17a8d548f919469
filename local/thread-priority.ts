import { existsSync, readlinkSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

/** Module state is per thread, so this is whether this thread was already reniced. */
let reniced = false;

/**
 * Raises the niceness of the calling thread, and of no other: on Linux a thread's id names it alone
 * to setpriority. Elsewhere, where a pid would renice the whole process, it does nothing. Once per
 * thread, however many gateways it starts: it cannot be undone (an unprivileged process cannot lower
 * its niceness again), so a second call would only stack.
 */
export function niceThisThread(by: number): void {
  if (reniced || process.platform !== 'linux' || !existsSync('/proc/thread-self')) return;
  reniced = true;
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    setPriority(tid, Math.min(19, getPriority(tid) + by));
  } catch {
    // A sandbox that refuses it leaves the thread at its priority: slower to keep pace, still correct.
  }
}
