/**
 * Where a command's answer goes: with `--json` one JSON document per result on stdout (one per line
 * for `events tail`), else lines for a person. Errors go to stderr either way; with `--json` stdout
 * also gets `{"error", "exit_code"}` so a script reading stdout sees why it got nothing else.
 */
export class Output {
  json = false;
  /** The gateway the command talks to, once known: network errors name it. */
  gateway: string | undefined;
  /** A command that answered but whose answer is a no (a signature that does not verify) sets it. */
  exitCode: number = 0;

  result(value: unknown, human: () => readonly string[]): void {
    if (this.json) process.stdout.write(`${JSON.stringify(value)}\n`);
    else for (const line of human()) process.stdout.write(`${line}\n`);
  }

  error(exitCode: number, message: string): void {
    if (this.json) process.stdout.write(`${JSON.stringify({ error: message, exit_code: exitCode })}\n`);
    process.stderr.write(`hookgate: ${message}\n`);
  }
}
