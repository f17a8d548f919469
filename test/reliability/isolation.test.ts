import { createHash } from 'node:crypto';
import { DynamoDBClient, ScanCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../local/aws-clients';
import { bootGateway } from '../fixtures/gateway';
import { createAccount, type Call } from '../fixtures/http-client';
import { eventually } from '../fixtures/sink';
import { recordFigures } from './summary';

// Two tenants with one of everything each. Every id-addressed operation, tried with the other
// tenant's ids, answers 404 and changes nothing; lists, filters, cursors and export files never
// show the other tenant's data; API keys are stored as hashes only.

const SOURCE = 'isolation';

interface Tenant {
  name: string;
  accountId: string;
  key: string;
  spareKey: string;
  ids: { apiKey: string; source: string; destination: string; route: string; event: string; outbound: string; exportJob: string; replayJob: string; domain: string };
  token: string;
  secrets: string[];
}

let env: Awaited<ReturnType<typeof bootGateway>>;
let call: Call;
let a: Tenant;
let b: Tenant;
const tally = { tried: 0, fiveHundreds: 0 };

async function tenant(name: string, domain: string): Promise<Tenant> {
  const { key, accountId } = await createAccount(call, { name });
  const must = async (method: string, path: string, body?: unknown) => {
    const res = await call(method, path, { key, body });
    if (res.status >= 300) throw new Error(`${name}: ${method} ${path}: ${res.status} ${res.text}`);
    return res.json.data;
  };
  const spare = await must('POST', '/v1/api-keys', { name: `${name} spare` });
  const source = await must('POST', '/v1/sources', { name: `${name} source` });
  const destination = await must('POST', '/v1/destinations', {
    name: `${name} destination`,
    url: `https://93.184.216.${name === 'Alpha' ? 1 : 2}/hook`,
    auth: { type: 'bearer', token: `${name}-bearer-secret` },
  });
  const route = await must('POST', '/v1/routes', { destination_id: destination.id, active: false });
  const ingested = await call('POST', `/ingest/${source.path_token}`, { rawBody: `{"tenant":"${name}"}`, headers: { 'content-type': 'application/json' } });
  const outbound = await must('POST', '/v1/outbound-events', { payload: `{"tenant":"${name}"}`, external_event_id: `${name}-ext` });
  await must('POST', '/v1/brand-settings', { company_name: `${name} Corp` });
  const customDomain = await must('POST', '/v1/custom-domains', { domain });
  const exportJob = await must('POST', '/v1/exports', {});
  const replayJob = await must('POST', '/v1/replays', { direction: 'inbound', destination_id: destination.id });
  await eventually(async () => (await call('GET', `/v1/exports/${exportJob.id}`, { key })).json.data.status, (s) => s === 'ready' || s === 'failed', 30_000);
  return {
    name,
    accountId,
    key,
    spareKey: spare.key,
    token: source.path_token,
    ids: {
      apiKey: spare.id,
      source: source.id,
      destination: destination.id,
      route: route.id,
      event: ingested.json.data.id,
      outbound: outbound.id,
      exportJob: exportJob.id,
      replayJob: replayJob.id,
      domain: customDomain.id,
    },
    secrets: [key, spare.key, source.path_token, destination.signing_secret, `${name}-bearer-secret`, customDomain.verification_token],
  };
}

beforeAll(async () => {
  env = await bootGateway({ SCHEDULER_EXPORT_POLL_INTERVAL: '3600' });
  call = env.call;
  a = await tenant('Alpha', 'hooks.alpha.example');
  b = await tenant('Bravo', 'hooks.bravo.example');
});
afterAll(async () => {
  recordFigures(SOURCE, { badInputsTried: tally.tried, badInput5xx: tally.fiveHundreds });
  await env?.stop();
});

/** Everything one tenant could try with the other's ids. */
function foreignOperations(victim: Tenant): Array<[string, string, unknown?]> {
  const { ids } = victim;
  return [
    ['GET', `/v1/sources/${ids.source}`],
    ['PATCH', `/v1/sources/${ids.source}`, { name: 'hijacked' }],
    ['PATCH', `/v1/sources/${ids.source}`, { verification: { provider: 'github', secret: 'attacker' } }],
    ['GET', `/v1/destinations/${ids.destination}`],
    ['PATCH', `/v1/destinations/${ids.destination}`, { url: 'https://93.184.216.99/steal' }],
    ['GET', `/v1/routes/${ids.route}`],
    ['PATCH', `/v1/routes/${ids.route}`, { active: true }],
    ['DELETE', `/v1/routes/${ids.route}`],
    ['DELETE', `/v1/api-keys/${ids.apiKey}`],
    ['GET', `/v1/events/${ids.event}`],
    ['POST', `/v1/events/${ids.event}/replay`],
    ['GET', `/v1/outbound-events/${ids.outbound}`],
    ['POST', `/v1/outbound-events/${ids.outbound}/replay`],
    ['GET', `/v1/exports/${ids.exportJob}`],
    ['GET', `/v1/exports/${ids.exportJob}/download`],
    ['GET', `/v1/replays/${ids.replayJob}`],
    ['GET', `/v1/custom-domains/${ids.domain}`],
    ['POST', `/v1/custom-domains/${ids.domain}/verify`],
    // Ids of one kind on another kind's path: just as unknown.
    ['GET', `/v1/events/${ids.outbound}`],
    ['GET', `/v1/outbound-events/${ids.event}`],
  ];
}

describe('another tenant’s ids', () => {
  it('answer 404 Not found on every id-addressed operation, both ways, and change nothing', async () => {
    for (const [intruder, victim] of [[b, a], [a, b]] as const) {
      for (const [method, path, body] of foreignOperations(victim)) {
        tally.tried++;
        const res = await call(method, path, { key: intruder.key, body });
        if (res.status >= 500) tally.fiveHundreds++;
        expect(res.status, `${intruder.name}: ${method} ${path}`).toBe(404);
        expect(res.json).toEqual({ error: 'Not found', duration_ms: expect.any(Number) });
      }
    }
    // The victims' resources are as they were.
    for (const t of [a, b]) {
      const get = async (path: string) => (await call('GET', path, { key: t.key })).json.data;
      expect((await get(`/v1/sources/${t.ids.source}`)).name).toBe(`${t.name} source`);
      expect((await get(`/v1/sources/${t.ids.source}`)).verification ?? null).toBeNull();
      expect((await get(`/v1/destinations/${t.ids.destination}`)).url).toMatch(/\/hook$/);
      expect((await get(`/v1/routes/${t.ids.route}`)).active).toBe(false);
      expect((await get('/v1/api-keys')).map((k: { id: string }) => k.id)).toContain(t.ids.apiKey);
      expect((await get(`/v1/events/${t.ids.event}`)).event.status).not.toBe('replayed');
      expect((await get(`/v1/outbound-events/${t.ids.outbound}`)).event.status).not.toBe('replayed');
      expect((await call('GET', '/v1/account', { key: t.spareKey })).status).toBe(200); // its spare key still works
    }
  });

  it('cannot be referenced from one’s own resources', async () => {
    const attempts: Array<[string, string, unknown]> = [
      ['POST', '/v1/routes', { destination_id: a.ids.destination }],
      ['POST', '/v1/routes', { destination_id: b.ids.destination, source_id: a.ids.source }],
      ['POST', '/v1/sources', { name: 'on their domain', custom_domain_id: a.ids.domain }],
      ['PATCH', `/v1/sources/${b.ids.source}`, { custom_domain_id: a.ids.domain }],
      ['POST', '/v1/replays', { direction: 'inbound', destination_id: a.ids.destination }],
      ['POST', '/v1/replays', { direction: 'inbound', source_id: a.ids.source, dry_run: true }],
    ];
    for (const [method, path, body] of attempts) {
      tally.tried++;
      const res = await call(method, path, { key: b.key, body });
      if (res.status >= 500) tally.fiveHundreds++;
      expect(res.status, `${method} ${path} ${JSON.stringify(body)}`).toBe(400);
    }
  });
});

describe('lists, filters, cursors and exports', () => {
  const leaks = (text: string, victim: Tenant) =>
    [victim.accountId, ...Object.values(victim.ids), ...victim.secrets, `${victim.name} Corp`, `"tenant":"${victim.name}"`].filter((s) => text.includes(s));

  it('never show the other tenant’s data', async () => {
    for (const [reader, victim] of [[b, a], [a, b]] as const) {
      for (const path of [
        '/v1/account',
        '/v1/api-keys',
        '/v1/sources',
        '/v1/destinations',
        '/v1/routes',
        '/v1/events?limit=200',
        '/v1/outbound-events?limit=200',
        '/v1/exports?limit=200',
        '/v1/replays?limit=200',
        '/v1/brand-settings',
        '/v1/custom-domains',
        `/v1/events?source_id=${victim.ids.source}`,
        `/v1/events?event_type=${encodeURIComponent(victim.name)}`,
        `/v1/outbound-events?limit=200&status=accepted`,
      ]) {
        tally.tried++;
        const res = await call('GET', path, { key: reader.key });
        expect(res.status, path).toBe(200);
        expect(leaks(res.text, victim), `${reader.name} GET ${path}`).toEqual([]);
      }
      expect((await call('GET', `/v1/events?source_id=${victim.ids.source}`, { key: reader.key })).json.data).toEqual([]);
    }
  });

  it('a cursor made from the other tenant’s events pages through one’s own events only', async () => {
    // More events for both, so pages have something to skip.
    for (const t of [a, b]) {
      for (let i = 0; i < 3; i++) await call('POST', `/ingest/${t.token}`, { rawBody: `{"tenant":"${t.name}","i":${i}}`, headers: { 'content-type': 'application/json' } });
    }
    for (const [reader, victim] of [[b, a], [a, b]] as const) {
      for (const base of ['/v1/events', '/v1/outbound-events']) {
        const victimPage = await call('GET', `${base}?limit=1`, { key: victim.key });
        const cursors = [
          victimPage.json.next_cursor as string | null,
          Buffer.from(`v1:${victim.ids.event}`).toString('base64url'),
          Buffer.from(`v1:${victim.ids.outbound}`).toString('base64url'),
          Buffer.from('v1:ffffffff-ffff-7fff-bfff-ffffffffffff').toString('base64url'),
        ].filter((c): c is string => typeof c === 'string');
        for (const cursor of cursors) {
          let next: string | null = cursor;
          for (let page = 0; next && page < 20; page++) {
            tally.tried++;
            const res = await call('GET', `${base}?limit=1&cursor=${next}`, { key: reader.key });
            if (res.status >= 500) tally.fiveHundreds++;
            expect(res.status).toBe(200);
            expect(leaks(res.text, victim), `${reader.name} ${base} with a cursor from ${victim.name}`).toEqual([]);
            for (const item of res.json.data) expect(item.account_id).toBe(reader.accountId);
            next = res.json.next_cursor;
          }
        }
      }
    }
  });

  it('an export holds one’s own events only', async () => {
    for (const [reader, victim] of [[b, a], [a, b]] as const) {
      const link = await call('GET', `/v1/exports/${reader.ids.exportJob}/download`, { key: reader.key });
      expect(link.status).toBe(302);
      const file = await (await fetch(link.headers.get('location') ?? '')).text();
      expect(file).toContain(reader.ids.event);
      expect(leaks(file, victim)).toEqual([]);
    }
  });
});

describe('API keys at rest', () => {
  it('only their SHA-256 is stored: no key, of either tenant, anywhere in the table', async () => {
    const dynamo = new DynamoDBClient({ endpoint: env.gateway.endpoints.dynamodb, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
    try {
      let dump = '';
      let ExclusiveStartKey: Record<string, never> | undefined;
      do {
        const page = await dynamo.send(new ScanCommand({ TableName: env.gateway.resources.tableName, ExclusiveStartKey }));
        dump += JSON.stringify(page.Items);
        ExclusiveStartKey = page.LastEvaluatedKey as typeof ExclusiveStartKey;
      } while (ExclusiveStartKey);
      for (const t of [a, b]) {
        for (const key of [t.key, t.spareKey]) {
          expect(dump).not.toContain(key);
          expect(dump).not.toContain(key.slice(3)); // not even without its prefix
          expect(dump).toContain(createHash('sha256').update(key).digest('hex'));
        }
      }
    } finally {
      dynamo.destroy();
    }
  });
});
