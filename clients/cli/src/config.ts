import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, join } from 'node:path';
import { CliError, EXIT } from './exit.js';

/** What `hookgate login` saves: the gateway and the key every other command uses. */
export interface SavedConfig {
  url: string;
  api_key: string;
}

/**
 * Where the key a command uses came from, so that a refusal names what to change: the variable, the
 * option, or the file `hookgate login` wrote.
 */
export type KeySource = { from: 'env' } | { from: 'option' } | { from: 'config'; path: string };

/** The gateway and key a command talks to. */
export interface Connection {
  url: string;
  apiKey: string;
  keySource: KeySource;
}

/**
 * `$XDG_CONFIG_HOME/hookgate/config.json`, else `~/.config/hookgate/config.json`. The XDG base
 * directory specification ignores a relative XDG_CONFIG_HOME, and so does this.
 */
export function configPath(env: NodeJS.ProcessEnv, home: string): string {
  const xdg = env.XDG_CONFIG_HOME;
  const base = xdg && isAbsolute(xdg) ? xdg : join(home, '.config');
  return join(base, 'hookgate', 'config.json');
}

/** A gateway URL as the client wants it: http(s), no trailing slash. Anything else is a usage error. */
export function normaliseUrl(value: string, name = '--url'): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new CliError(EXIT.usage, `${name} must be an http or https URL, not ${JSON.stringify(value)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new CliError(EXIT.usage, `${name} must be an http or https URL, not ${JSON.stringify(value)}`);
  return url.href.replace(/\/+$/, '');
}

export function checkApiKey(value: string, name = '--key'): string {
  if (!/^hk_\S+$/.test(value)) throw new CliError(EXIT.usage, `${name} must be a Hookgate API key (hk_…)`);
  return value;
}

/**
 * The connection from the saved config with HOOKGATE_URL and HOOKGATE_API_KEY each taking precedence,
 * so CI can run the CLI with no config file at all, or point a saved key at another gateway.
 */
export function resolveConnection(env: NodeJS.ProcessEnv, saved: Partial<SavedConfig> | undefined, path: string): Connection {
  const url = env.HOOKGATE_URL || saved?.url;
  const apiKey = env.HOOKGATE_API_KEY || saved?.api_key;
  if (!url || !apiKey) {
    const login = `run \`hookgate login --url URL --key hk_…\` (saves ${path})`;
    let message = `not logged in: ${login} or set HOOKGATE_URL and HOOKGATE_API_KEY`;
    if (url && env.HOOKGATE_URL) message = `HOOKGATE_URL is set but no API key is: set HOOKGATE_API_KEY too, or ${login}`;
    if (apiKey && env.HOOKGATE_API_KEY) message = `HOOKGATE_API_KEY is set but no gateway URL is: set HOOKGATE_URL too, or ${login}`;
    throw new CliError(EXIT.config, message);
  }
  return {
    url: normaliseUrl(url, env.HOOKGATE_URL ? 'HOOKGATE_URL' : `url in ${path}`),
    apiKey: checkApiKey(apiKey, env.HOOKGATE_API_KEY ? 'HOOKGATE_API_KEY' : `api_key in ${path}`),
    keySource: env.HOOKGATE_API_KEY ? { from: 'env' } : { from: 'config', path },
  };
}

/** The saved config, or undefined when there is none; a file that is not a config is a config error. */
export async function readConfig(path: string): Promise<Partial<SavedConfig> | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new CliError(EXIT.config, `cannot read ${path}: ${(error as Error).message}`);
  }
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not an object');
    const { url, api_key } = parsed as Record<string, unknown>;
    return { url: typeof url === 'string' ? url : undefined, api_key: typeof api_key === 'string' ? api_key : undefined };
  } catch {
    throw new CliError(EXIT.config, `${path} is not a Hookgate config (JSON with url and api_key): run \`hookgate login\` again`);
  }
}

/**
 * Saves the config readable by its owner alone: the directory 0700 and the file 0600, both set
 * explicitly because `mode` on mkdir and writeFile applies only to what they create and passes through
 * the umask. The file is written beside and renamed over, so a crash never leaves half a key.
 */
export async function writeConfig(path: string, config: SavedConfig): Promise<void> {
  const dir = dirname(path);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await chmod(dir, 0o700);
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  await chmod(temporary, 0o600);
  await rename(temporary, path);
}
