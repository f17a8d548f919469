import { spawn } from 'node:child_process';
import { createPrivateKey, createPublicKey, verify } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { verifyWebhook, verifyWebhookWithJwks } from '../../clients/typescript/src/index';
import { findSigningKeys } from '../../lambdas/signing-keys';
import { openSigningKey } from '../../lambdas/signing-keys/sealing';
import { documentClient } from '../../lambdas/store/client';
import { readCallCounts } from '../../local/call-counts';
import { bootGatewayWithSink } from '../fixtures/gateway';
import { createAccount, typedClient, type Call, type CallResult } from '../fixtures/http-client';
import type { ReceivedRequest, Sink } from '../fixtures/sink';

/**
 * Issue 39, part 2: `ed25519` destinations get Standard Webhooks' asymmetric `v1a` signature, whose
 * public half receivers fetch from a JWKS; a rotation signs with both keys for 24 hours, then with the
 * new one only. Issue 45, part 3: the key pair is the destination's customer's (the account's own for
 * a destination of no customer), so a delivery captured at one customer's receiver verifies at no other.
 */

const DAY_MS = 86_400_000;
let env: Awaited<ReturnType<typeof bootGatewayWithSink>>;
let call: Call;
let sink: Sink;
let dnsDir: string;
let dnsFile: string;
/** Every answer `call` got in this file (the typed client's are not kept): none may hold a private key. */
const answers: string[] = [];

const publishTxt = (records: Record<string, string>) => writeFile(dnsFile, JSON.stringify(records));

beforeAll(async () => {
  dnsDir = await mkdtemp(join(tmpdir(), 'hookgate-dns-it-'));
  dnsFile = join(dnsDir, 'txt.json');
  await publishTxt({});
  // The retention sweeper must not run while the clock is moved a day on.
  env = await bootGatewayWithSink({ HOOKGATE_DNS_TXT_OVERRIDES: dnsFile, SCHEDULER_RETENTION_INTERVAL: '3600', HOOKGATE_LOCAL_CALL_COUNTS: '1' });
  ({ sink } = env);
  call = async (method, path, options) => {
    const res: CallResult = await env.call(method, path, options);
    answers.push(res.text);
    return res;
  };
});
afterEach(() => vi.useRealTimers());
afterAll(async () => {
  await env?.stop();
  await rm(dnsDir, { recursive: true, force: true });
});

const header = (request: ReceivedRequest, name: string): string => {
  const value = request.headers[name];
  if (typeof value !== 'string') throw new Error(`no ${name} header`);
  return value;
};

/** Checks each `v1a` signature against the JWKS key its `webhook-key-id` names, as any receiver could, without Hookgate's client. */
function signedBy(delivery: ReceivedRequest, jwks: { keys: Array<{ kid: string; x: string }> }): string[] {
  const message = Buffer.concat([Buffer.from(`${header(delivery, 'webhook-id')}.${header(delivery, 'webhook-timestamp')}.`), delivery.body]);
  const kids = header(delivery, 'webhook-key-id').split(' ');
  return header(delivery, 'webhook-signature')
    .split(' ')
    .map((part, i) => {
      const jwk = jwks.keys.find((k) => k.kid === kids[i]);
      if (!part.startsWith('v1a,') || !jwk) return 'unverified';
      const key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: jwk.x }, format: 'jwk' });
      return verify(null, message, key, Buffer.from(part.slice(4), 'base64')) ? jwk.kid : 'unverified';
    });
}

async function account(name: string) {
  const { key, accountId } = await createAccount(call, { name });
  const shown = await call('GET', '/v1/account', { key });
  return { key, accountId, jwksUrl: shown.json.data.jwks_url as string };
}

async function jwksOf(url: string): Promise<{ keys: Array<{ kid: string; x: string }> }> {
  const res = await call('GET', new URL(url).pathname);
  expect(res.status).toBe(200);
  return res.json;
}

/** The JWKS URL a customer's portal session shows it. */
async function portalJwksUrl(key: string, customer: string): Promise<string> {
  const link = await call('POST', '/v1/portal-sessions', { key, body: { customer } });
  expect(link.status).toBe(201);
  const token = new URL(link.json.data.url as string).hash.slice(1);
  const session = await call('GET', '/v1/portal/session', { headers: { authorization: `Bearer ${token}` } });
  expect(session.status).toBe(200);
  return session.json.data.jwks_url as string;
}

const root = fileURLToPath(new URL('../../', import.meta.url));
const stringHeaders = (delivery: ReceivedRequest) =>
  Object.fromEntries(Object.entries(delivery.headers).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));

function run(command: string, args: string[], stdin: string, extraEnv: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: root, env: { ...process.env, ...extraEnv } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

const PYTHON_VERIFY = [
  'import base64, json, sys',
  'from hookgate.verify import verify_webhook_with_jwks',
  'given = json.load(sys.stdin)',
  'print(json.dumps(verify_webhook_with_jwks(base64.b64decode(given["body"]), given["headers"], given["jwks_url"])))',
].join('\n');

/** What the Python client (clients/python, in a process of its own) says of a delivery, fetching the JWKS itself. */
async function pythonVerifies(delivery: ReceivedRequest, jwksUrl: string): Promise<boolean> {
  const given = JSON.stringify({ body: delivery.body.toString('base64'), headers: stringHeaders(delivery), jwks_url: jwksUrl });
  const result = await run('python3', ['-c', PYTHON_VERIFY], given, { PYTHONPATH: join(root, 'clients/python'), PYTHONDONTWRITEBYTECODE: '1' });
  if (result.code !== 0) throw new Error(`python3 failed: ${result.stderr}`);
  return JSON.parse(result.stdout) as boolean;
}

/** `hookgate verify --jwks-url` on a delivery as a receiver saved it: its four headers and its body in a file. */
async function cliVerifies(delivery: ReceivedRequest, jwksUrl: string): Promise<{ code: number | null; reason: unknown }> {
  const file = join(dnsDir, `body-${delivery.at}-${Math.random()}.bin`);
  await writeFile(file, delivery.body);
  const headers = ['webhook-id', 'webhook-timestamp', 'webhook-signature', 'webhook-key-id'].flatMap((name) => ['--header', `${name}: ${header(delivery, name)}`]);
  const result = await run(process.execPath, [join(root, 'bin/hookgate.mjs'), 'verify', '--jwks-url', jwksUrl, ...headers, '--body-file', file, '--json'], '');
  return { code: result.code, reason: (JSON.parse(result.stdout) as { reason?: unknown }).reason };
}

/** One outbound event of `type`, addressed to `customer` (whose endpoints receive only what is addressed to it), as `path` receives it. */
async function deliverOne(key: string, path: string, type: string, customer?: string): Promise<ReceivedRequest> {
  const before = sink.received.filter((r) => r.path === path).length;
  await typedClient(env.call, key).outboundEvents.publish({ payload: JSON.stringify({ path, type }), event_type: type, ...(customer === undefined ? {} : { customer }) });
  const received = await sink.waitForPath(path, before + 1);
  return received[before]!;
}

describe('ed25519 signatures', () => {
  it('the JWKS is public, cacheable, and empty until the account first signs with Ed25519', async () => {
    const { accountId, jwksUrl } = await account('empty');
    expect(jwksUrl).toBe(`${env.gateway.url}/.well-known/jwks/${accountId}.json`);
    const res = await call('GET', `/.well-known/jwks/${accountId}.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('public, max-age=300');
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.json).toEqual({ keys: [] });
    expect((await call('GET', '/.well-known/jwks/not-an-account.json')).status).toBe(404);
    expect((await call('GET', `/.well-known/jwks/${accountId}`)).status).toBe(404);
  });

  it('delivers v1a signatures that verify with the account’s JWKS, through the client and by hand', async () => {
    const { key, accountId, jwksUrl } = await account('signer');
    const hookgate = typedClient(env.call, key);
    const destination = await hookgate.destinations.create({ name: 'ed', url: `${sink.url}/ed`, signature_scheme: 'ed25519' });
    expect(destination.signature_scheme).toBe('ed25519');
    await hookgate.routes.create({ destination_id: destination.id, event_type_pattern: 'ed.*' });

    const jwks = await jwksOf(jwksUrl);
    expect(jwks.keys).toEqual([{ kty: 'OKP', crv: 'Ed25519', x: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/), kid: expect.any(String), use: 'sig', alg: 'EdDSA' }]);
    const delivery = await deliverOne(key, '/ed', 'ed.one');
    expect(header(delivery, 'webhook-key-id')).toBe(jwks.keys[0]!.kid);
    expect(signedBy(delivery, jwks)).toEqual([jwks.keys[0]!.kid]);
    expect(await verifyWebhookWithJwks(delivery.body, delivery.headers, jwksUrl)).toBe(true);
    expect(await verifyWebhookWithJwks(Buffer.concat([delivery.body, Buffer.from(' ')]), delivery.headers, jwksUrl)).toBe(false);
    expect(() => verifyWebhook(delivery.body, delivery.headers, destination.signing_secret, { scheme: 'ed25519' })).toThrow(TypeError);

    // Another account's keys do not verify it.
    const other = await account('other');
    await typedClient(env.call, other.key).destinations.create({ name: 'x', url: `${sink.url}/x`, signature_scheme: 'ed25519' });
    expect(await verifyWebhookWithJwks(delivery.body, delivery.headers, other.jwksUrl)).toBe(false);

    const stored = await findSigningKeys(accountId, null);
    expect(stored?.current.kid).toBe(jwks.keys[0]!.kid);
  });

  it('a rotation signs with both keys and lists both for 24 hours, then only the new one', async () => {
    const { key, accountId, jwksUrl } = await account('rotating');
    const hookgate = typedClient(env.call, key);
    const destination = await hookgate.destinations.create({ name: 'rot', url: `${sink.url}/rot`, signature_scheme: 'ed25519' });
    await hookgate.routes.create({ destination_id: destination.id, event_type_pattern: 'rot.*' });
    const first = await deliverOne(key, '/rot', 'rot.before');
    expect(await verifyWebhookWithJwks(first.body, first.headers, jwksUrl)).toBe(true);
    const old = (await jwksOf(jwksUrl)).keys[0]!;

    const rotated = await call('POST', '/v1/signing-keys/rotate', { key });
    expect(rotated.status).toBe(200);
    const [fresh, previous] = rotated.json.data.keys;
    expect(previous).toMatchObject({ kid: old.kid, x: old.x });
    expect(Date.parse(previous.retires_at) - Date.parse(fresh.created_at)).toBe(DAY_MS);
    expect(fresh.retires_at).toBeNull();
    expect((await jwksOf(jwksUrl)).keys.map((k) => k.kid)).toEqual([fresh.kid, old.kid]);

    const during = await deliverOne(key, '/rot', 'rot.during');
    expect(header(during, 'webhook-key-id')).toBe(`${fresh.kid} ${old.kid}`);
    expect(signedBy(during, await jwksOf(jwksUrl))).toEqual([fresh.kid, old.kid]);
    // The client's cached JWKS lacks the new kid: it fetches again and verifies.
    expect(await verifyWebhookWithJwks(during.body, during.headers, jwksUrl)).toBe(true);
    // A receiver that still knows only the old key verifies it too.
    expect(signedBy(during, { keys: [old] })).toEqual(['unverified', old.kid]);

    vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });
    vi.setSystemTime(Date.parse(previous.retires_at) + 1000);
    const jwks = await jwksOf(jwksUrl);
    expect(jwks.keys.map((k) => k.kid)).toEqual([fresh.kid]);
    const after = await deliverOne(key, '/rot', 'rot.after');
    expect(header(after, 'webhook-key-id')).toBe(fresh.kid);
    expect(signedBy(after, jwks)).toEqual([fresh.kid]);
    expect(await verifyWebhookWithJwks(after.body, after.headers, jwksUrl)).toBe(true);

    const stored = await findSigningKeys(accountId, null);
    expect(stored?.previous?.kid).toBe(old.kid);
  });

  it('is served on the account’s verified custom domain, and not for another account there', async () => {
    const { key, accountId } = await account('branded');
    const other = await account('elsewhere');
    const hookgate = typedClient(env.call, key);
    await hookgate.destinations.create({ name: 'b', url: `${sink.url}/b`, signature_scheme: 'ed25519' });
    const domain = await hookgate.customDomains.create({ domain: 'hooks.jwks-owner.test' });
    await publishTxt({ [domain.verification_record.name]: domain.verification_token });
    expect((await hookgate.customDomains.verify(domain.id)).status).toBe('verified');

    const own = await call('GET', `/.well-known/jwks/${accountId}.json`, { host: 'hooks.jwks-owner.test' });
    expect(own.status).toBe(200);
    expect(own.headers.get('cache-control')).toBe('public, max-age=300');
    expect(own.json).toEqual(await jwksOf(`${env.gateway.url}/.well-known/jwks/${accountId}.json`));
    expect(own.json.keys).toHaveLength(1);
    expect((await call('GET', `/.well-known/jwks/${other.accountId}.json`, { host: 'hooks.jwks-owner.test' })).status).toBe(404);
  });

  it('the consumer portal’s session names the customer’s own JWKS, not the account’s', async () => {
    const { key, accountId, jwksUrl } = await account('portal');
    const shown = await portalJwksUrl(key, 'cus_ed@example.com');
    expect(shown).toBe(`${env.gateway.url}/.well-known/jwks/${accountId}/customers/cus_ed%40example.com.json`);
    expect(shown).not.toBe(jwksUrl);
    expect((await call('GET', new URL(shown).pathname)).json).toEqual({ keys: [] });
    expect((await call('GET', `/.well-known/jwks/${accountId}/customers/-bad.json`)).status).toBe(404);
    expect((await call('GET', `/.well-known/jwks/not-an-account/customers/cus_ed.json`)).status).toBe(404);
  });

  it('stores no private key in clear, only KMS ciphertexts bound to the account and the key, and never answers one', async () => {
    const { key, accountId } = await account('private');
    const destination = await call('POST', '/v1/destinations', { key, body: { name: 'p', url: `${sink.url}/p`, signature_scheme: 'ed25519' } });
    expect(destination.status).toBe(201);
    await call('POST', '/v1/signing-keys/rotate', { key });
    await call('GET', `/v1/destinations/${destination.json.data.id}`, { key });
    await call('GET', '/v1/account', { key });

    const item = (await documentClient().send(new GetCommand({ TableName: env.gateway.resources.tableName, Key: { pk: `ACCT#${accountId}`, sk: 'SIGNING_KEYS' }, ConsistentRead: true }))).Item;
    const stored = await findSigningKeys(accountId, null);
    if (!item || !stored?.previous) throw new Error('no rotated signing keys stored');
    expect(Object.keys(item.current).sort()).toEqual(['created_at', 'kid', 'public_key', 'sealed_private_key']);
    // Opened as the operator would (the local KMS key of this data dir): each is the key pair its `x` names.
    const opened = await Promise.all([stored.current, stored.previous].map((sealed) => openSigningKey(accountId, null, sealed)));
    for (const pair of opened) {
      const fromD = createPublicKey(createPrivateKey({ key: { kty: 'OKP', crv: 'Ed25519', x: pair.public_key, d: pair.private_key }, format: 'jwk' }));
      expect(fromD.export({ format: 'jwk' }).x).toBe(pair.public_key);
      const d = Buffer.from(pair.private_key, 'base64url');
      for (const encoding of ['base64url', 'base64', 'hex'] as const) expect(JSON.stringify(item)).not.toContain(d.toString(encoding).replace(/=+$/, ''));
      for (const answer of answers) expect(answer).not.toContain(pair.private_key);
    }
    // A ciphertext moved to another account's item, or to another key's place, does not decrypt.
    const other = await account('private-other');
    await expect(openSigningKey(other.accountId, null, stored.current)).rejects.toMatchObject({ name: 'InvalidCiphertextException' });
    await expect(openSigningKey(accountId, null, { ...stored.current, kid: stored.previous.kid })).rejects.toMatchObject({ name: 'InvalidCiphertextException' });
  });

  it('the deliver function decrypts a key once per container: the first try with each kid, never again', async () => {
    const { key, accountId } = await account('decrypts');
    const hookgate = typedClient(env.call, key);
    const destination = await hookgate.destinations.create({ name: 'dec', url: `${sink.url}/dec`, signature_scheme: 'ed25519' });
    await hookgate.routes.create({ destination_id: destination.id, event_type_pattern: 'dec.*' });
    const kmsCalls = async () =>
      Object.fromEntries((await readCallCounts(['main'])).filter((c) => c.service === 'kms' && c.account === accountId).map((c) => [`${c.thread}:${c.op}`, c.requests]));

    for (const type of ['dec.one', 'dec.two', 'dec.three']) await deliverOne(key, '/dec', type);
    expect(await kmsCalls()).toEqual({ 'main:Encrypt': 1, 'main:Decrypt': 1 });
    await call('POST', '/v1/signing-keys/rotate', { key });
    for (const type of ['dec.four', 'dec.five']) await deliverOne(key, '/dec', type);
    // Both keys sign now; only the new one was not yet decrypted.
    expect(await kmsCalls()).toEqual({ 'main:Encrypt': 2, 'main:Decrypt': 2 });
  });

});

describe('hookgate verify and a broken JWKS', () => {
  it('hookgate verify skips a malformed key of the set: the others verify, and the one it names is unknown_key', async () => {
    const { key, jwksUrl } = await account('malformed-set');
    const hookgate = typedClient(env.call, key);
    const destination = await hookgate.destinations.create({ name: 'm', url: `${sink.url}/malformed`, signature_scheme: 'ed25519' });
    await hookgate.routes.create({ destination_id: destination.id, event_type_pattern: 'mal.*' });
    const delivery = await deliverOne(key, '/malformed', 'mal.one');
    const real = (await jwksOf(jwksUrl)).keys;
    const bad = [null, 'text', { kty: 'OKP', crv: 'Ed25519', x: 'not-32-bytes', kid: 'short' }, { kty: 'OKP', crv: 'Ed25519', kid: 'no-x' }];
    // The receiver's JWKS as a proxy or a hand-edited file might serve it: the real keys among broken ones.
    const server = createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ keys: req.url === '/only-bad.json' ? bad : [...bad, ...real] }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      expect(await cliVerifies(delivery, `${base}/mixed.json`)).toEqual({ code: 0, reason: null });
      expect(await cliVerifies(delivery, `${base}/only-bad.json`)).toEqual({ code: 1, reason: 'unknown_key' });
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('a key pair per customer', () => {
  it('a delivery captured at one customer’s receiver is refused by another customer’s verifier: TypeScript, Python and the CLI', async () => {
    const { key, accountId, jwksUrl: accountJwks } = await account('customers');
    const hookgate = typedClient(env.call, key);
    const a = await hookgate.destinations.create({ name: 'a', url: `${sink.url}/cus-a`, signature_scheme: 'ed25519', customer: 'cus_a' });
    const b = await hookgate.destinations.create({ name: 'b', url: `${sink.url}/cus-b`, signature_scheme: 'ed25519', customer: 'cus_b' });
    await hookgate.routes.create({ destination_id: a.id, event_type_pattern: 'ca.*' });
    await hookgate.routes.create({ destination_id: b.id, event_type_pattern: 'cb.*' });
    const jwksA = await portalJwksUrl(key, 'cus_a');
    const jwksB = await portalJwksUrl(key, 'cus_b');
    expect(jwksA).toBe(`${env.gateway.url}/.well-known/jwks/${accountId}/customers/cus_a.json`);
    const [keysA, keysB] = [await jwksOf(jwksA), await jwksOf(jwksB)];
    expect(keysA.keys).toHaveLength(1);
    expect(keysB.keys).toHaveLength(1);
    expect(keysA.keys[0]!.x).not.toBe(keysB.keys[0]!.x);
    // No destination of the account's own signs with Ed25519, so its own set made no key.
    expect((await jwksOf(accountJwks)).keys).toEqual([]);

    const captured = await deliverOne(key, '/cus-a', 'ca.paid', 'cus_a');
    expect(signedBy(captured, keysA)).toEqual([keysA.keys[0]!.kid]);
    expect(await verifyWebhookWithJwks(captured.body, captured.headers, jwksA)).toBe(true);
    expect(await pythonVerifies(captured, jwksA)).toBe(true);
    expect(await cliVerifies(captured, jwksA)).toEqual({ code: 0, reason: null });

    // Customer A sends what it received, headers and all, to customer B's receiver within the tolerance.
    expect(signedBy(captured, keysB)).toEqual(['unverified']);
    expect(await verifyWebhookWithJwks(captured.body, captured.headers, jwksB)).toBe(false);
    expect(await pythonVerifies(captured, jwksB)).toBe(false);
    expect(await cliVerifies(captured, jwksB)).toEqual({ code: 1, reason: 'unknown_key' });
    // Nor at a receiver of the account's own destinations.
    expect(await verifyWebhookWithJwks(captured.body, captured.headers, accountJwks)).toBe(false);

    const toB = await deliverOne(key, '/cus-b', 'cb.paid', 'cus_b');
    expect(await verifyWebhookWithJwks(toB.body, toB.headers, jwksB)).toBe(true);
    expect(await verifyWebhookWithJwks(toB.body, toB.headers, jwksA)).toBe(false);

    // Each customer's private key is sealed to it: A's ciphertext does not open as B's.
    const sealedA = await findSigningKeys(accountId, 'cus_a');
    if (!sealedA) throw new Error('no keys stored for cus_a');
    expect((await openSigningKey(accountId, 'cus_a', sealedA.current)).public_key).toBe(keysA.keys[0]!.x);
    await expect(openSigningKey(accountId, 'cus_b', sealedA.current)).rejects.toMatchObject({ name: 'InvalidCiphertextException' });
    await expect(openSigningKey(accountId, null, sealedA.current)).rejects.toMatchObject({ name: 'InvalidCiphertextException' });
  });

  it('an ownership challenge is signed with its customer’s key', async () => {
    const { key } = await account('challenged');
    const destination = await typedClient(env.call, key).destinations.create({
      name: 'c',
      url: `${sink.url}/challenged`,
      signature_scheme: 'ed25519',
      customer: 'cus_challenged',
      verify_ownership: true,
    });
    expect(destination.status).toBe('pending_verification');
    const [challenge] = await sink.waitForPath('/challenged', 1);
    expect(await verifyWebhookWithJwks(challenge!.body, challenge!.headers, await portalJwksUrl(key, 'cus_challenged'))).toBe(true);
    expect(await verifyWebhookWithJwks(challenge!.body, challenge!.headers, await portalJwksUrl(key, 'cus_other'))).toBe(false);
  });

  it('rotates one customer’s keys only; a destination moved to another customer signs with that one’s', async () => {
    const { key } = await account('customer-rotation');
    const hookgate = typedClient(env.call, key);
    const a = await hookgate.destinations.create({ name: 'a', url: `${sink.url}/rot-a`, signature_scheme: 'ed25519', customer: 'cus_ra' });
    const b = await hookgate.destinations.create({ name: 'b', url: `${sink.url}/rot-b`, signature_scheme: 'ed25519', customer: 'cus_rb' });
    await hookgate.routes.create({ destination_id: a.id, event_type_pattern: 'ra.*' });
    await hookgate.routes.create({ destination_id: b.id, event_type_pattern: 'rb.*' });
    const jwksA = await portalJwksUrl(key, 'cus_ra');
    const jwksB = await portalJwksUrl(key, 'cus_rb');
    const [oldA, oldB] = [(await jwksOf(jwksA)).keys[0]!, (await jwksOf(jwksB)).keys[0]!];
    // The clients cache each JWKS from here on: the rotation must reach them by the new kid.
    const before = await deliverOne(key, '/rot-a', 'ra.before', 'cus_ra');
    expect(await verifyWebhookWithJwks(before.body, before.headers, jwksA)).toBe(true);

    const rotated = await call('POST', '/v1/signing-keys/rotate', { key, body: { customer: 'cus_ra' } });
    expect(rotated.status).toBe(200);
    expect(rotated.json.data).toMatchObject({ customer: 'cus_ra', jwks_url: jwksA });
    const [fresh, previous] = rotated.json.data.keys;
    expect(previous).toMatchObject({ kid: oldA.kid, x: oldA.x });
    expect((await jwksOf(jwksA)).keys.map((k) => k.kid)).toEqual([fresh.kid, oldA.kid]);
    expect((await jwksOf(jwksB)).keys).toEqual([oldB]);
    expect((await call('POST', '/v1/signing-keys/rotate', { key, body: { customer: '-no' } })).status).toBe(400);

    const during = await deliverOne(key, '/rot-a', 'ra.during', 'cus_ra');
    expect(header(during, 'webhook-key-id')).toBe(`${fresh.kid} ${oldA.kid}`);
    expect(await verifyWebhookWithJwks(during.body, during.headers, jwksA)).toBe(true);
    expect(await pythonVerifies(during, jwksA)).toBe(true);
    expect(await cliVerifies(during, jwksA)).toEqual({ code: 0, reason: null });
    expect(await verifyWebhookWithJwks(during.body, during.headers, jwksB)).toBe(false);
    expect(header(await deliverOne(key, '/rot-b', 'rb.after', 'cus_rb'), 'webhook-key-id')).toBe(oldB.kid);

    // Moved to a customer with no keys yet: it gets its own, and B's no longer verify what it is sent.
    await hookgate.destinations.update(b.id, { customer: 'cus_rc' });
    const jwksC = await portalJwksUrl(key, 'cus_rc');
    const [keyC] = (await jwksOf(jwksC)).keys;
    expect(keyC?.kid).not.toBe(oldB.kid);
    const moved = await deliverOne(key, '/rot-b', 'rb.moved', 'cus_rc');
    expect(header(moved, 'webhook-key-id')).toBe(keyC!.kid);
    expect(await verifyWebhookWithJwks(moved.body, moved.headers, jwksC)).toBe(true);
    expect(await verifyWebhookWithJwks(moved.body, moved.headers, jwksB)).toBe(false);
  });
});
