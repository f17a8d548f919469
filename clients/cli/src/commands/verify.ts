import { readFile } from 'node:fs/promises';
import { Option, type Command } from 'commander';
import { diagnose, parseHeaderArguments, SCHEMES, verdict, type Scheme } from '../diagnose.js';
import { diagnoseEd25519, type Jwks } from '../diagnose-ed25519.js';
import { CliError, EXIT } from '../exit.js';
import type { Output } from '../output.js';

interface VerifyOptions {
  secret?: string;
  jwksUrl?: string;
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

/** A JWKS host that stalls ends the run with a usage error rather than hold it for Node's 300 s. */
const JWKS_TIMEOUT_MS = 10_000;

async function fetchJwks(url: string): Promise<Jwks> {
  let answer: Response;
  const signal = AbortSignal.timeout(JWKS_TIMEOUT_MS);
  try {
    answer = await fetch(url, { signal });
  } catch (error) {
    throw new CliError(EXIT.usage, `cannot fetch --jwks-url ${url}: ${signal.aborted ? `no answer within ${JWKS_TIMEOUT_MS / 1000} s` : (error as Error).message}`);
  }
  const document = (await answer.json().catch(() => null)) as Partial<Jwks> | null;
  if (!answer.ok || !Array.isArray(document?.keys)) throw new CliError(EXIT.usage, `--jwks-url ${url} answered ${answer.status} without a JWKS`);
  return { keys: document.keys };
}

/** `hookgate verify`: offline with --secret (with --jwks-url, it fetches that JWKS); checks a delivery's signature and says why it fails (exit 1 when it does). */
export function verify(program: Command, output: Output): void {
  program
    .command('verify')
    .description('check a delivery\'s signature as your consumer would, and explain why it fails')
    .option('--secret <secret>', 'the destination\'s signing secret (whsec_…), for the hookgate and standard_webhooks schemes')
    .option('--jwks-url <url>', 'the account\'s jwks_url, for an ed25519 destination (instead of --secret)')
    .requiredOption(
      '--header <header>',
      'a header of the delivery, "Name: value" (repeat it; a bare value is the signature header); standard_webhooks also needs webhook-id and webhook-timestamp, ed25519 those and webhook-key-id',
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .requiredOption('--body-file <path>', 'the raw body exactly as received (- for stdin)')
    .addOption(new Option('--scheme <scheme>', 'the destination\'s signature_scheme').choices(SCHEMES).default('hookgate'))
    .option('--tolerance <seconds>', 'how far the signed time may be from now', '300')
    .option('--json', 'print the diagnosis as JSON')
    .action(async (options: VerifyOptions) => {
      const toleranceSeconds = Number(options.tolerance);
      if (!Number.isInteger(toleranceSeconds) || toleranceSeconds < 0) throw new CliError(EXIT.usage, '--tolerance must be a whole number of seconds');
      if ((options.secret === undefined) === (options.jwksUrl === undefined)) throw new CliError(EXIT.usage, 'pass either --secret or --jwks-url (ed25519)');
      const headers = parseHeaderArguments(options.header);
      const body = await readBody(options.bodyFile);
      const now = new Date();
      const diagnosis =
        options.jwksUrl === undefined
          ? diagnose({ scheme: options.scheme, secret: options.secret ?? '', headers, body, now, toleranceSeconds })
          : diagnoseEd25519({ jwks: await fetchJwks(options.jwksUrl), headers, body, now, toleranceSeconds });
      output.result(diagnosis, () => [verdict(diagnosis), ...diagnosis.findings.map((finding) => `  - ${finding}`)]);
      if (!diagnosis.valid) output.exitCode = EXIT.failed;
    });
}
