import type { KeySource } from './config.js';
import { terminalBlock, terminalJson, terminalLine } from './sanitise.js';

/**
 * Where a command's answer goes: with `--json` one JSON document per result on stdout (one per line
 * for `events tail`), else lines for a person. Errors go to stderr either way; with `--json` stdout
 * also gets `{"error", "exit_code"}` so a script reading stdout sees why it got nothing else.
 *
 * Everything written here goes through sanitise.ts, so no command can print a sender's escape
 * sequence by forgetting to: a person's lines keep their line breaks (a body spans lines; a value
 * that must stay on its line is escaped whole by its formatter with `terminalLine`), notes and errors
 * are one line each. `raw` alone writes bytes as they are, for `events get --raw`.
 */
export class Output {
  json = false;
  /** The gateway the command talks to, once known: network errors name it. */
  gateway: string | undefined;
  /** Where the key came from, once known: a refused key's error says what to change. */
  keySource: KeySource | undefined;
  /** A command that answered but whose answer is a no (a signature that does not verify) sets it. */
  exitCode: number = 0;

  result(value: unknown, human: () => readonly string[]): void {
    if (this.json) process.stdout.write(`${terminalJson(value)}\n`);
    else for (const line of human()) process.stdout.write(`${terminalBlock(line)}\n`);
  }

  /** A line about the command's progress (a session opened, a gateway back), on stderr. */
  note(message: string): void {
    process.stderr.write(`${terminalLine(message)}\n`);
  }

  /** Bytes exactly as they are, on stdout: only for what the user asked to have unchanged. */
  raw(bytes: Uint8Array): void {
    process.stdout.write(bytes);
  }

  error(exitCode: number, message: string): void {
    if (this.json) process.stdout.write(`${terminalJson({ error: message, exit_code: exitCode })}\n`);
    process.stderr.write(`hookgate: ${terminalLine(message)}\n`);
  }
}
