import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { insertDestination } from '../../lambdas/destinations/record';
import { bootGateway } from '../fixtures/gateway';
import { createAccount, type Call } from '../fixtures/http-client';
import { destinationRecord } from '../fixtures/records';
import { eventDetail, ingest } from '../fixtures/setup';
import { eventually } from '../fixtures/sink';
import { startTrap } from './helpers';
import { recordFigures } from './summary';

// The bad-URL table through the real gateway, private destinations NOT allowed (production mode):
// refused when a destination is created or changed, and blocked when sent (for rows that got into
// the table some other way, and for names that change their answer), with no connection made.
// DNS is this file's own: names resolve to what each case needs, nothing leaves the machine.

type Answer = Array<{ address: string; family: 4 | 6 }>;
const dns = vi.hoisted(() => ({ answers: new Map<string, () => Answer>(), lookups: [] as string[] }));
vi.mock('../../lambdas/adapters/dns', () => ({
  resolveHost: async (hostname: string) => {
    dns.lookups.push(hostname);
    const answer = dns.answers.get(hostname.toLowerCase().replace(/\.$/, ''));
    if (!answer) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return answer();
  },
}));

const v4 = (address: string) => ({ address, family: 4 as const });
const v6 = (address: string) => ({ address, family: 6 as const });

const SOURCE = 'ssrf';
let env: Awaited<ReturnType<typeof bootGateway>>;
let call: Call;
let key: string;
let accountId: string;
let trap: Awaited<ReturnType<typeof startTrap>>;
const tally = { createRefused: 0, sendBlocked: 0, fiveHundreds: 0 };

beforeAll(async () => {
  trap = await startTrap();
  // Names under test: private answers, and one public name with a private second answer.
  for (const [name, answer] of Object.entries({
    'public.example': [v4('93.184.216.34')],
    'internal.example': [v4('10.0.0.5')],
    'metadata.example': [v4('169.254.169.254')],
    'loopback.example': [v4('127.0.0.1')],
    'cgnat.example': [v4('100.64.1.1')],
    'v6-loopback.example': [v6('::1')],
    'v6-mapped.example': [v6('::ffff:127.0.0.1')],
    'v6-nat64.example': [v6('64:ff9b::a9fe:a9fe')],
    'v6-ula.example': [v6('fd00:ec2::254')],
    'mixed.example': [v4('93.184.216.34'), v4('192.168.1.1')],
  } as Record<string, Answer>)) {
    dns.answers.set(name, () => answer);
  }
  env = await bootGateway({ HOOKGATE_ALLOW_PRIVATE_DESTINATIONS: 'false', HOOKGATE_RETRY_SCHEDULE: '0' });
  call = env.call;
  ({ key, accountId } = await createAccount(call, { name: 'SSRF' }));
});
afterAll(async () => {
  recordFigures(SOURCE, { badInputsTried: tally.createRefused, faultsInjected: tally.sendBlocked, badInput5xx: tally.fiveHundreds });
  await trap?.close();
  await env?.stop();
});

/** Every URL here must be refused. `port` is the trap's: if anything connected, it would be counted. */
const BAD_URLS: Array<[string, (port: number) => string]> = [
  ['cloud metadata', (p) => `http://169.254.169.254:${p}/latest/meta-data/`],
  ['cloud metadata, IPv6', (p) => `http://[fd00:ec2::254]:${p}/latest/meta-data/`],
  ['loopback', (p) => `http://127.0.0.1:${p}/`],
  ['loopback, decimal', (p) => `http://2130706433:${p}/`],
  ['loopback, hex', (p) => `http://0x7f000001:${p}/`],
  ['loopback, octal', (p) => `http://0177.0.0.1:${p}/`],
  ['loopback, short form', (p) => `http://127.1:${p}/`],
  ['loopback, IPv6', (p) => `http://[::1]:${p}/`],
  ['IPv4-mapped loopback', (p) => `http://[::ffff:127.0.0.1]:${p}/`],
  ['IPv4-mapped loopback, hex', (p) => `http://[::ffff:7f00:1]:${p}/`],
  ['NAT64 loopback', (p) => `http://[64:ff9b::7f00:1]:${p}/`],
  ['NAT64 metadata', (p) => `http://[64:ff9b::a9fe:a9fe]:${p}/`],
  ['6to4 loopback', (p) => `http://[2002:7f00:1::]:${p}/`],
  ['private 10/8', (p) => `http://10.0.0.1:${p}/`],
  ['private 172.16/12', (p) => `http://172.16.0.1:${p}/`],
  ['private 192.168/16', (p) => `http://192.168.1.1:${p}/`],
  ['CGNAT 100.64/10', (p) => `http://100.64.0.1:${p}/`],
  ['unspecified', (p) => `http://0.0.0.0:${p}/`],
  ['unspecified, as 0', (p) => `http://0:${p}/`],
  ['link-local IPv6', (p) => `http://[fe80::1]:${p}/`],
  ['localhost', (p) => `http://localhost:${p}/`],
  ['localhost.', (p) => `http://localhost.:${p}/`],
  ['LOCALHOST', (p) => `http://LOCALHOST:${p}/`],
  ['a .localhost name', (p) => `http://api.localhost:${p}/`],
  ['userinfo trick', (p) => `http://public.example@127.0.0.1:${p}/`],
  ['credentials', (p) => `https://user:secret@public.example:${p}/`],
  ['file scheme', () => 'file:///etc/passwd'],
  ['ftp scheme', (p) => `ftp://127.0.0.1:${p}/`],
  ['gopher scheme', (p) => `gopher://127.0.0.1:${p}/_GET%20/`],
  ['javascript scheme', () => 'javascript:alert(1)'],
  ['data scheme', () => 'data:text/plain,hello'],
  ['not a URL', () => 'not a url'],
  ['name resolving to 10/8', (p) => `http://internal.example:${p}/`],
  ['name resolving to metadata', (p) => `http://metadata.example:${p}/latest/meta-data/`],
  ['name resolving to loopback', (p) => `http://loopback.example:${p}/`],
  ['name resolving to CGNAT', (p) => `http://cgnat.example:${p}/`],
  ['name resolving to ::1', (p) => `http://v6-loopback.example:${p}/`],
  ['name resolving to IPv4-mapped loopback', (p) => `http://v6-mapped.example:${p}/`],
  ['name resolving to NAT64 metadata', (p) => `http://v6-nat64.example:${p}/`],
  ['name resolving to a ULA', (p) => `http://v6-ula.example:${p}/`],
  ['name resolving to public and private', (p) => `http://mixed.example:${p}/`],
];

describe('refused when a destination is created or its URL changed', () => {
  it.each(BAD_URLS)('%s', async (_label, makeUrl) => {
    const url = makeUrl(trap.port);
    const created = await call('POST', '/v1/destinations', { key, body: { name: 'evil', url } });
    const good = await call('POST', '/v1/destinations', { key, body: { name: 'fine', url: 'https://public.example/hook' } });
    expect(good.status).toBe(201);
    const patched = await call('PATCH', `/v1/destinations/${good.json.data.id}`, { key, body: { url } });
    for (const res of [created, patched]) {
      tally.createRefused++;
      if (res.status >= 500) tally.fiveHundreds++;
      expect(res.status, url).toBe(400);
      expect(res.json).toEqual({ error: expect.any(String), duration_ms: expect.any(Number) });
    }
    expect((await call('GET', `/v1/destinations/${good.json.data.id}`, { key })).json.data.url).toBe('https://public.example/hook');
    expect(trap.connections()).toBe(0);
  });
});

describe('blocked when sent, with no connection made', () => {
  /** A destination row written straight to the table (bypassing the create-time check), with a route for `type`. */
  async function storedDestination(url: string, type: string): Promise<string> {
    const record = destinationRecord({ account_id: accountId, name: `stored ${type}`, url });
    await insertDestination(record);
    const route = await call('POST', '/v1/routes', { key, body: { destination_id: record.id, event_type_pattern: type } });
    expect(route.status).toBe(201);
    return record.id;
  }

  it('every URL of the table, if it ever got into the table, is blocked at send time', async () => {
    const source = (await call('POST', '/v1/sources', { key, body: { name: 'ssrf' } })).json.data;
    const events: Array<[string, string]> = [];
    for (const [i, [label, makeUrl]] of BAD_URLS.entries()) {
      await storedDestination(makeUrl(trap.port), `stored.${i}`);
      const res = await ingest(call, source.path_token, '{"steal":"credentials"}', { 'x-event-type': `stored.${i}` });
      expect(res.status).toBe(202);
      events.push([label, res.json.data.id]);
    }
    for (const [label, id] of events) {
      const detail = await eventually(() => eventDetail(call, key, id), (d) => d.event.status === 'dead_letter', 30_000);
      expect(detail.attempts.map((a) => a.outcome), label).toEqual(['blocked']);
      expect(detail.attempts[0]!.response_status).toBeNull();
      tally.sendBlocked++;
    }
    expect(trap.connections()).toBe(0);
  }, 120_000);

  it('a name that answered a public address at create time and a private one at send time (DNS rebinding)', async () => {
    let rebound = false;
    dns.answers.set('rebind.example', () => (rebound ? [v4('127.0.0.1')] : [v4('93.184.216.34')]));
    const source = (await call('POST', '/v1/sources', { key, body: { name: 'rebind' } })).json.data;
    const dest = await call('POST', '/v1/destinations', { key, body: { name: 'rebinding', url: `http://rebind.example:${trap.port}/hook` } });
    expect(dest.status).toBe(201); // it looked public when created
    expect((await call('POST', '/v1/routes', { key, body: { destination_id: dest.json.data.id, event_type_pattern: 'rebind' } })).status).toBe(201);

    rebound = true;
    const res = await ingest(call, source.path_token, '{"rebind":true}', { 'x-event-type': 'rebind' });
    const detail = await eventually(() => eventDetail(call, key, res.json.data.id), (d) => d.event.status === 'dead_letter');
    expect(detail.attempts.map((a) => [a.outcome, a.error])).toEqual([['blocked', 'destination address 127.0.0.1 is private or reserved']]);
    expect(dns.lookups.filter((h) => h === 'rebind.example').length).toBeGreaterThanOrEqual(2); // resolved again at send
    expect(trap.connections()).toBe(0);
    tally.sendBlocked++;
  });
});
