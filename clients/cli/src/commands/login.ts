import type { Command } from 'commander';
import { checkApiKey, normaliseUrl, writeConfig } from '../config.js';
import { clientFor, userConfigPath } from '../connect.js';
import type { Output } from '../output.js';
import { terminalLine } from '../sanitise.js';

/** `hookgate login --url URL --key hk_…`: checks the key against the gateway, then saves both. */
export function login(program: Command, output: Output): void {
  program
    .command('login')
    .description('check an API key against a gateway and save both for the other commands')
    .requiredOption('--url <url>', 'the gateway: http://127.0.0.1:3000 under npm start, the stack\'s ApiUrl in AWS')
    .requiredOption('--key <key>', 'an API key of the account (hk_…)')
    .option('--json', 'print the result as JSON')
    .action(async (options: { url: string; key: string }) => {
      const url = normaliseUrl(options.url);
      const apiKey = checkApiKey(options.key);
      output.gateway = url;
      output.keySource = { from: 'option' };
      // A key the gateway refuses is never saved: the HookgateError (401) exits with code 3.
      const account = await clientFor(url, apiKey).account.get();
      const path = userConfigPath();
      await writeConfig(path, { url, api_key: apiKey });
      output.result({ url, account: { id: account.id, name: account.name }, config_path: path }, () => [
        `Logged in to ${url} as ${account.name === null ? 'an unnamed account' : terminalLine(account.name)} (${terminalLine(account.id)}).`,
        `Saved to ${path} (readable by you alone).`,
      ]);
    });
}
