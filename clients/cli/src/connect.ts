import { homedir } from 'node:os';
import { Hookgate } from '../../typescript/src/index.js';
import { configPath, readConfig, resolveConnection } from './config.js';
import type { Output } from './output.js';

/** A request that gets no answer in this long fails (exit code 4) rather than hang a script. */
const REQUEST_TIMEOUT_MS = 30_000;

/** A client whose requests give up after REQUEST_TIMEOUT_MS, or at once when `stop` aborts. */
export function clientFor(url: string, apiKey?: string, stop?: AbortSignal): Hookgate {
  return new Hookgate({
    baseUrl: url,
    apiKey,
    fetch: (input, init) => {
      const timeout = AbortSignal.timeout(REQUEST_TIMEOUT_MS);
      return fetch(input, { ...init, signal: stop ? AbortSignal.any([timeout, stop]) : timeout });
    },
  });
}

export function userConfigPath(): string {
  return configPath(process.env, homedir());
}

/** The client of the configured gateway (config file, then HOOKGATE_URL / HOOKGATE_API_KEY over it). */
export async function connect(output: Output, stop?: AbortSignal): Promise<Hookgate> {
  const path = userConfigPath();
  const { url, apiKey, keySource } = resolveConnection(process.env, await readConfig(path), path);
  output.gateway = url;
  output.keySource = keySource;
  return clientFor(url, apiKey, stop);
}
