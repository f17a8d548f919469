import { HookgateError } from '../../typescript/src/index.js';
import type { KeySource } from './config.js';

/**
 * Exit codes, one per thing a script can act on differently (docs/cli.md lists them):
 * retrying helps only for `unavailable`, logging in again only for `config`.
 */
export const EXIT = {
  ok: 0,
  /** The answer is no: a signature that does not verify, an unknown event, a request the API refused. */
  failed: 1,
  /** The command line itself is wrong: an unknown option, a missing argument, a bad value. */
  usage: 2,
  /** No usable configuration, or the API refused the key. */
  config: 3,
  /** The gateway could not be reached, timed out, or answered a 5xx. */
  unavailable: 4,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** An error the CLI reports as it is, with the exit code it means. */
export class CliError extends Error {
  constructor(
    readonly exitCode: ExitCode,
    message: string,
  ) {
    super(message);
  }
}

/** What to do about a refused key, which depends on where the key came from: logging in again does not replace HOOKGATE_API_KEY. */
function refusedKey(refusal: string, source: KeySource | undefined): string {
  switch (source?.from) {
    case 'env':
      return `the API refused the key in HOOKGATE_API_KEY (${refusal}): set HOOKGATE_API_KEY to a current key of the account, or unset it to use the key \`hookgate login\` saved`;
    case 'option':
      return `the API refused the key given with --key (${refusal}); nothing was saved`;
    case 'config':
      return `the API refused the key saved in ${source.path} (${refusal}): run \`hookgate login --url URL --key hk_…\` with a current key`;
    default:
      return `the API refused the key (${refusal})`;
  }
}

/** What any error thrown by a command means for the exit code, and the one line that says so. */
export function describeError(error: unknown, baseUrl?: string, keySource?: KeySource): { exitCode: ExitCode; message: string } {
  if (error instanceof CliError) return { exitCode: error.exitCode, message: error.message };
  if (error instanceof HookgateError) {
    // Status 0: no HTTP answer; the client's message names the URL and the network failure.
    if (error.status === 0) return { exitCode: EXIT.unavailable, message: error.message };
    if (error.status === 401 || error.status === 403) return { exitCode: EXIT.config, message: refusedKey(`${error.status} ${error.message}`, keySource) };
    if (error.status >= 500 || error.status < 400) return { exitCode: EXIT.unavailable, message: `the gateway answered ${error.status} ${error.message}` };
    return { exitCode: EXIT.failed, message: `${error.status} ${error.message}` };
  }
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) {
    return { exitCode: EXIT.unavailable, message: `no answer from ${baseUrl ?? 'the gateway'} in time` };
  }
  // fetch rejects with a TypeError whose cause names the network failure (ECONNREFUSED, ENOTFOUND…).
  if (error instanceof TypeError && error.cause !== undefined) {
    const cause = error.cause as { code?: string; message?: string };
    return { exitCode: EXIT.unavailable, message: `cannot reach ${baseUrl ?? 'the gateway'}: ${cause.code ?? cause.message ?? error.message}` };
  }
  throw error;
}
