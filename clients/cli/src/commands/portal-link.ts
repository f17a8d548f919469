import type { Command } from 'commander';
import type { Data } from '../../../typescript/src/index.js';
import { connect } from '../connect.js';
import { CliError, EXIT } from '../exit.js';
import type { Output } from '../output.js';
import { terminalLine } from '../sanitise.js';

/** `hookgate portal-link --customer ID`: a link to the consumer portal for one customer. */
export function portalLink(program: Command, output: Output): void {
  program
    .command('portal-link')
    .description('make a link to the consumer portal for one customer (its secret is in the link: hand it to that customer only)')
    .requiredOption('--customer <id>', 'your id for the customer; the portal shows only its endpoints and events')
    .option('--expires-in <seconds>', 'how long the link works, 1 to 86400 seconds', '3600')
    .option('--json', 'print the API\'s answer ({url, expires_at}) as JSON')
    .action(async (options: { customer: string; expiresIn: string }) => {
      const seconds = Number(options.expiresIn);
      if (!Number.isInteger(seconds) || seconds < 1 || seconds > 86_400) throw new CliError(EXIT.usage, '--expires-in must be a whole number of seconds from 1 to 86400');
      const hookgate = await connect(output);
      const answer = await hookgate.request('createPortalSession', { body: { customer: options.customer, expires_in_seconds: seconds } });
      const session = (answer.body as { data: Data<'createPortalSession'> }).data;
      // The URL alone on stdout, so `open "$(hookgate portal-link --customer cus_42)"` works, and on one
      // line: a line break in it would print a line of the gateway's making.
      output.result(session, () => [terminalLine(session.url)]);
      if (!output.json) output.note(`The link works for ${options.customer} until ${session.expires_at}; anyone who has it manages that customer's endpoints.`);
    });
}
