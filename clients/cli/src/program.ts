import { Command, CommanderError } from 'commander';
import packageJson from '../package.json' with { type: 'json' };
import { events } from './commands/events.js';
import { listenCommand } from './commands/listen.js';
import { login } from './commands/login.js';
import { portalLink } from './commands/portal-link.js';
import { publish } from './commands/publish.js';
import { replay } from './commands/replay.js';
import { smokeCommand } from './commands/smoke.js';
import { verify } from './commands/verify.js';
import { describeError, EXIT } from './exit.js';
import { Output } from './output.js';

/**
 * A command adds itself to the program: one file in commands/ and one entry here. Each leaf command declares its own `--json` (its help says what it prints), which the
 * pre-action hook copies into `output` before the action runs.
 */
type RegisterCommand = (program: Command, output: Output) => void;
const COMMANDS: RegisterCommand[] = [login, listenCommand, events, publish, replay, portalLink, verify, smokeCommand];

export function buildProgram(output: Output): Command {
  const program = new Command('hookgate')
    .description('Command line for a Hookgate gateway: log in, listen on a local port, publish, follow and inspect events, replay, make portal links, check signatures, smoke-test a deployment.')
    .version(packageJson.version)
    .showHelpAfterError()
    // Settings made here are copied to every subcommand made with .command(), which all are.
    .exitOverride()
    .hook('preAction', (_, actionCommand) => {
      output.json = actionCommand.opts().json === true;
    });
  for (const register of COMMANDS) register(program, output);
  return program;
}

/** Runs the CLI on `argv` (as process.argv) and answers the exit code. */
export async function run(argv: readonly string[]): Promise<number> {
  const output = new Output();
  const program = buildProgram(output);
  try {
    await program.parseAsync([...argv]);
    return output.exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Commander has printed the message or the help already.
      const shownOnRequest = error.code === 'commander.helpDisplayed' || error.code === 'commander.version';
      return shownOnRequest ? EXIT.ok : EXIT.usage;
    }
    const { exitCode, message } = describeError(error, output.gateway, output.keySource);
    output.error(exitCode, message);
    return exitCode;
  }
}
