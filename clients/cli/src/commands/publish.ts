import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import type { Data } from '../../../typescript/src/index.js';
import { connect } from '../connect.js';
import { CliError, EXIT } from '../exit.js';
import type { Output } from '../output.js';
import { terminalLine } from '../sanitise.js';

interface PublishOptions {
  data?: string;
  dataFile?: string;
  customer?: string;
  externalId?: string;
  orderingKey?: string;
}

async function readStdin(): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * The payload's text, from exactly one place: `--data`, `--data-file` (`-` is stdin), or stdin when it
 * is not a terminal (a pipe or a file). It must be JSON, since deliveries carry it as
 * `application/json`; it is sent as the text it is, so its bytes are the ones delivered and signed.
 */
async function payload(options: PublishOptions): Promise<string> {
  if (options.data !== undefined && options.dataFile !== undefined) throw new CliError(EXIT.usage, 'give the payload with --data or with --data-file, not both');
  let text: string;
  let from: string;
  if (options.data !== undefined) [text, from] = [options.data, '--data'];
  else if (options.dataFile !== undefined && options.dataFile !== '-') {
    try {
      text = await readFile(options.dataFile, 'utf8');
    } catch (error) {
      throw new CliError(EXIT.usage, `cannot read --data-file ${options.dataFile}: ${(error as Error).message}`);
    }
    from = `--data-file ${options.dataFile}`;
  } else if (options.dataFile === '-' || !process.stdin.isTTY) [text, from] = [(await readStdin()).toString('utf8'), 'stdin'];
  else throw new CliError(EXIT.usage, 'no payload: give it with --data JSON, --data-file FILE, or on stdin');
  try {
    JSON.parse(text);
  } catch {
    throw new CliError(EXIT.usage, `the payload (${from}) is not JSON: deliveries send it as application/json`);
  }
  return text;
}

/** `hookgate publish TYPE`: an outbound event, routed and delivered as one published through the API. */
export function publish(program: Command, output: Output): void {
  program
    .command('publish')
    .description('publish an outbound event: a test event for your routes, a listen session or a customer\'s endpoints')
    .argument('<event-type>', 'the event type (printable ASCII), which routes match')
    .option('--data <json>', 'the payload, as JSON text')
    .option('--data-file <path>', 'a file holding the payload as JSON (- for stdin); without --data or --data-file, stdin is read when it is not a terminal')
    .option('--customer <id>', 'the customer it is for: only that customer\'s endpoints receive it')
    .option('--external-id <id>', 'your id for the event: publishing the same one again answers the first event instead of a new one')
    .option('--ordering-key <key>', 'at destinations that order per key, delivered only after every earlier event with this key has ended')
    .option('--json', 'print the API\'s answer ({id, status} or, for a repeated --external-id, {id, status, duplicate: true}) as JSON')
    .action(async (eventType: string, options: PublishOptions) => {
      const body = await payload(options);
      const hookgate = await connect(output);
      const answer = await hookgate.request('publishOutboundEvent', {
        body: { event_type: eventType, payload: body, customer: options.customer, external_event_id: options.externalId, ordering_key: options.orderingKey },
      });
      const event = (answer.body as { data: Data<'publishOutboundEvent'> }).data;
      const duplicate = 'duplicate' in event && event.duplicate;
      // The gateway's fields on one line each: output.ts keeps a line's LF and tab, and a forged `\nhookgate: …` would read as the CLI's own.
      const [id, status] = [terminalLine(event.id), terminalLine(event.status)];
      output.result(event, () => [
        duplicate ? `Already published as ${id} (${status}): --external-id ${terminalLine(options.externalId ?? '')} was used before.` : `Published ${id} (${status}).`,
        `Follow it with: hookgate events get ${id}`,
      ]);
    });
}
