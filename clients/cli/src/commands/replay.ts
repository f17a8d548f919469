import type { Command } from 'commander';
import { HookgateError, type Data, type Hookgate } from '../../../typescript/src/index.js';
import { connect } from '../connect.js';
import { CliError, EXIT } from '../exit.js';
import { pendingDeliveries } from '../format.js';
import type { Output } from '../output.js';
import { terminalLine } from '../sanitise.js';
import { destinationNames, directionOption, eitherDirection } from './events.js';

/** The API's refusal of an event whose deliveries have not all ended. */
const NOT_TERMINAL = 'event is not in a terminal status';

/**
 * The API's bare 400 made into what a person can act on: which deliveries are still going, and until
 * when they wait, read from the event as it is now.
 */
async function stillPending(hookgate: Hookgate, direction: 'inbound' | 'outbound', id: string, refusal: HookgateError): Promise<CliError> {
  const { event } = direction === 'inbound' ? await hookgate.events.get(id) : await hookgate.outboundEvents.get(id);
  const pending = pendingDeliveries(event, await destinationNames(hookgate));
  const what = pending.length > 0 ? `pending: ${pending.join('; ')}` : `its status is ${event.status} and its deliveries are not made yet`;
  return new CliError(
    EXIT.failed,
    `${refusal.status} ${refusal.message}: ${id} is still being delivered, ${what}. Replay it once they have ended (follow it with: hookgate events get ${id})`,
  );
}

/** `hookgate replay ID`: a new copy of a finished event, routed by today's routes (or to one destination). */
export function replay(program: Command, output: Output): void {
  program
    .command('replay')
    .description('replay a finished event: a new copy goes through routing and delivery again')
    .argument('<id>', 'the event id')
    .option('--destination <id>', 'deliver the copy to this destination only, whatever the routes say')
    .addOption(directionOption())
    .option('--json', 'print the API\'s answer as JSON')
    .action(async (id: string, options: { destination?: string; direction?: 'inbound' | 'outbound' }) => {
      const hookgate = await connect(output);
      const body = options.destination ? { destination_id: options.destination } : undefined;
      const answer = await eitherDirection(options.direction, id, async (direction) => {
        try {
          return await hookgate.request(direction === 'inbound' ? 'replayEvent' : 'replayOutboundEvent', { params: { id }, body });
        } catch (error) {
          if (error instanceof HookgateError && error.status === 400 && error.message === NOT_TERMINAL) throw await stillPending(hookgate, direction, id, error);
          throw error;
        }
      });
      const result = (answer.body as { data: Data<'replayEvent'> }).data;
      // Each of the gateway's fields stays on its line (see publish).
      const [original, copy, status] = [terminalLine(result.original_event_id), terminalLine(result.replay_event_id), terminalLine(result.status)];
      output.result(result, () => [`Replayed ${original} as ${copy} (${status}).`, `Follow it with: hookgate events get ${copy}`]);
    });
}
