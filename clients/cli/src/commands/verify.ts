import { readFile } from 'node:fs/promises';
import { Option, type Command } from 'commander';
import { diagnose, parseHeaderArguments, SCHEMES, verdict, type Scheme } from '../diagnose.js';
import { CliError, EXIT } from '../exit.js';
import type { Output } from '../output.js';

interface VerifyOptions {
  secret: string;
  header: string[];
  bodyFile: string;
  scheme: Scheme;
  tolerance: string;
}

async function readBody(path: string): Promise<Buffer> {
  try {
    if (path !== '-') return await readFile(path);
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  } catch (error) {
    throw new CliError(EXIT.usage, `cannot read --body-file ${path}: ${(error as Error).message}`);
  }
}

/** `hookgate verify`: offline; checks a delivery's signature and says why it fails (exit 1 when it does). */
export function verify(program: Command, output: Output): void {
  program
    .command('verify')
    .description('check a delivery\'s signature as your consumer would, and explain why it fails')
    .requiredOption('--secret <secret>', 'the destination\'s signing secret (whsec_…)')
    .requiredOption(
      '--header <header>',
      'a header of the delivery, "Name: value" (repeat it; a bare value is the signature header); standard_webhooks also needs webhook-id and webhook-timestamp',
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .requiredOption('--body-file <path>', 'the raw body exactly as received (- for stdin)')
    .addOption(new Option('--scheme <scheme>', 'the destination\'s signature_scheme').choices(SCHEMES).default('hookgate'))
    .option('--tolerance <seconds>', 'how far the signed time may be from now', '300')
    .option('--json', 'print the diagnosis as JSON')
    .action(async (options: VerifyOptions) => {
      const toleranceSeconds = Number(options.tolerance);
      if (!Number.isInteger(toleranceSeconds) || toleranceSeconds < 0) throw new CliError(EXIT.usage, '--tolerance must be a whole number of seconds');
      const diagnosis = diagnose({
        scheme: options.scheme,
        secret: options.secret,
        headers: parseHeaderArguments(options.header),
        body: await readBody(options.bodyFile),
        now: new Date(),
        toleranceSeconds,
      });
      output.result(diagnosis, () => [verdict(diagnosis), ...diagnosis.findings.map((finding) => `  - ${finding}`)]);
      if (!diagnosis.valid) output.exitCode = EXIT.failed;
    });
}
