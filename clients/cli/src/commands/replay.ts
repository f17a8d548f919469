import type { Command } from 'commander';
import type { Data } from '../../../typescript/src/index.js';
import { connect } from '../connect.js';
import type { Output } from '../output.js';
import { directionOption, eitherDirection } from './events.js';

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
      const answer = await eitherDirection(options.direction, id, (direction) =>
        hookgate.request(direction === 'inbound' ? 'replayEvent' : 'replayOutboundEvent', { params: { id }, body }),
      );
      const result = (answer.body as { data: Data<'replayEvent'> }).data;
      output.result(result, () => [
        `Replayed ${result.original_event_id} as ${result.replay_event_id} (${result.status}).`,
        `Follow it with: hookgate events get ${result.replay_event_id}`,
      ]);
    });
}
