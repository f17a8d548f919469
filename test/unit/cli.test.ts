import { existsSync, readdirSync, readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { configPath, normaliseUrl, resolveConnection } from '../../clients/cli/src/config';
import { diagnose, parseHeaderArguments, type Diagnosis, type VerifyInput } from '../../clients/cli/src/diagnose';
import { CliError, describeError, EXIT } from '../../clients/cli/src/exit';
import { Output } from '../../clients/cli/src/output';
import { buildProgram } from '../../clients/cli/src/program';
import { TailWindow } from '../../clients/cli/src/tail';
import { HookgateError, verifyWebhook, type EventListItem } from '../../clients/typescript/src/index';
import { hookgateSignature, standardWebhooksSignature } from '../../lambdas/domain/signing';

/** The pure parts of the `hookgate` CLI (clients/cli); test/integration/cli.test.ts runs the whole of it. */

const NOW = new Date('2026-11-26T12:00:00Z');
const T = Math.floor(NOW.getTime() / 1000);
const SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
const OTHER = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;
const BODY = '{"order":"o_1","total":4200}';
const signed = (body = BODY, t = T, secrets = [SECRET]) => hookgateSignature(Buffer.from(body), t, secrets);
const standard = (body = BODY, t = T, secret = SECRET) => ({
  'webhook-id': 'msg_1',
  'webhook-timestamp': String(t),
  'webhook-signature': standardWebhooksSignature('msg_1', t, Buffer.from(body), [secret]),
});

function check(overrides: Partial<VerifyInput> & { header?: string }): Diagnosis {
  const { header, ...rest } = overrides;
  return diagnose({
    scheme: 'hookgate',
    secret: SECRET,
    headers: { 'webhook-signature': header ?? signed() },
    body: Buffer.from(BODY),
    now: NOW,
    toleranceSeconds: 300,
    ...rest,
  });
}

describe('verify: what is wrong with a signature', () => {
  const cases: Array<[string, Partial<VerifyInput> & { header?: string }, Diagnosis['reason'], RegExp, Diagnosis['likely_cause']?]> = [
    ['a genuine delivery', {}, null, /matches this secret and body/],
    ['one of two signatures during a rotation', { header: signed(BODY, T, [OTHER, SECRET]) }, null, /one of the 2/],
    ['signed 10 minutes ago', { header: signed(BODY, T - 600) }, 'timestamp_too_old', /600 s ago, beyond the 300 s tolerance/],
    ['signed 10 minutes ahead', { header: signed(BODY, T + 600) }, 'timestamp_in_future', /600 s in the future.*clock/],
    ['another secret', { secret: OTHER }, 'signature_mismatch', /cannot tell which input differs/, null],
    ['a secret not of the generated form', { secret: 'hunter2hunter2' }, 'signature_mismatch', /more likely the secret/, 'secret'],
    ['another body', { body: Buffer.from('{"order":"o_2","total":4200}') }, 'signature_mismatch', /cannot tell/, null],
    ['an indented body', { body: Buffer.from(JSON.stringify({ a: 1, b: [1, 2] }, null, 2)) }, 'signature_mismatch', /indented JSON.*more likely the body/, 'body'],
    ['an empty body', { body: Buffer.alloc(0) }, 'signature_mismatch', /empty.*more likely the body/, 'body'],
    ['a line break added to the body', { body: Buffer.from(`${BODY}\n`) }, 'body_changed', /without the line break at its end/],
    ['CRLF line breaks', { header: signed('a\nb'), body: Buffer.from('a\r\nb') }, 'body_changed', /CRLF line breaks made LF/],
    ['a byte order mark', { body: Buffer.from(`\uFEFF${BODY}`) }, 'body_changed', /byte order mark/],
    ['the same JSON re-indented', { body: Buffer.from(JSON.stringify(JSON.parse(BODY), null, 2)) }, 'body_changed', /compact JSON/],
    ['the secret without its prefix', { secret: SECRET.slice(6) }, 'wrong_secret', /with a whsec_ prefix/],
    ['the secret with a line break', { secret: `${SECRET}\n` }, 'wrong_secret', /line break around it/],
    ['no signature at all', { headers: {} }, 'malformed_header', /There is no signature/],
    ['no timestamp', { header: `v1=${'a'.repeat(64)}` }, 'malformed_header', /no t=<unix seconds>/],
    ['a timestamp written as a date', { header: `t=2026-11-26,v1=${'a'.repeat(64)}` }, 'malformed_header', /t=2026-11-26 is not a time in unix seconds/],
    ['a truncated signature', { header: `t=${T},v1=abc` }, 'malformed_header', /v1= holds 3 characters where a hex HMAC-SHA256 has 64/],
    ['a Standard Webhooks header under the Hookgate scheme', { headers: standard() }, 'wrong_scheme', /It verifies with --scheme standard_webhooks/],
    ['only a Standard Webhooks signature', { header: standard()['webhook-signature'] }, 'wrong_scheme', /Check it with --scheme standard_webhooks and the webhook-id/],
    ['Standard Webhooks, genuine', { scheme: 'standard_webhooks', headers: standard() }, null, /matches this secret and body/],
    ['Standard Webhooks, old', { scheme: 'standard_webhooks', headers: standard(BODY, T - 301) }, 'timestamp_too_old', /301 s ago/],
    ['Standard Webhooks, another secret', { scheme: 'standard_webhooks', headers: standard(), secret: OTHER }, 'signature_mismatch', /cannot tell/],
    ['Standard Webhooks, a secret that is no base64 key', { scheme: 'standard_webhooks', headers: standard(), secret: 'whsec_short' }, 'malformed_secret', /not a Standard Webhooks secret/],
    ['Standard Webhooks without webhook-id', { scheme: 'standard_webhooks', headers: { ...standard(), 'webhook-id': '' } }, 'malformed_header', /pass the 'webhook-id: …' header with/],
    ['Standard Webhooks with a Hookgate header', { scheme: 'standard_webhooks', header: signed() }, 'wrong_scheme', /It verifies with --scheme hookgate/],
    ['Standard Webhooks, a body with a line break', { scheme: 'standard_webhooks', headers: standard(), body: Buffer.from(`${BODY}\r\n`) }, 'body_changed', /line break at its end/],
  ];

  it.each(cases)('%s', (_, input, reason, finding, likely) => {
    const diagnosis = check(input);
    expect(diagnosis.reason).toBe(reason);
    expect(diagnosis.valid).toBe(reason === null);
    expect(diagnosis.findings.join(' ')).toMatch(finding);
    if (likely !== undefined) expect(diagnosis.likely_cause).toBe(likely);
  });

  it('agrees with the TypeScript client\'s verifyWebhook on the Hookgate scheme', () => {
    for (const [, input] of cases.filter(([, input]) => !input.scheme && !input.headers)) {
      const header = input.header ?? signed();
      const body = input.body ?? Buffer.from(BODY);
      expect(check(input).valid).toBe(verifyWebhook(body, { 'webhook-signature': header }, input.secret ?? SECRET, { now: NOW }));
    }
  });

  it('reads --header values as named headers, or a bare one as the signature', () => {
    expect(parseHeaderArguments(['Webhook-Id: msg_1', 'webhook-timestamp:1700000000', ` t=1,v1=${'a'.repeat(64)} `])).toEqual({
      'webhook-id': 'msg_1',
      'webhook-timestamp': '1700000000',
      'webhook-signature': `t=1,v1=${'a'.repeat(64)}`,
    });
    expect(parseHeaderArguments(['v1,abc= v1,def='])).toEqual({ 'webhook-signature': 'v1,abc= v1,def=' });
  });
});

describe('config', () => {
  it('lives under XDG_CONFIG_HOME when it is absolute, else ~/.config', () => {
    expect(configPath({ XDG_CONFIG_HOME: '/x/config' }, '/home/a')).toBe('/x/config/hookgate/config.json');
    expect(configPath({ XDG_CONFIG_HOME: 'relative' }, '/home/a')).toBe('/home/a/.config/hookgate/config.json');
    expect(configPath({}, '/home/a')).toBe('/home/a/.config/hookgate/config.json');
  });

  it('takes HOOKGATE_URL and HOOKGATE_API_KEY over the saved config, each on its own', () => {
    const saved = { url: 'http://saved:3000', api_key: 'hk_saved' };
    const file = { from: 'config', path: 'p' };
    const env = { from: 'env' };
    expect(resolveConnection({}, saved, 'p')).toEqual({ url: 'http://saved:3000', apiKey: 'hk_saved', keySource: file });
    expect(resolveConnection({ HOOKGATE_URL: 'https://env.example/' }, saved, 'p')).toEqual({ url: 'https://env.example', apiKey: 'hk_saved', keySource: file });
    expect(resolveConnection({ HOOKGATE_API_KEY: 'hk_env' }, saved, 'p')).toEqual({ url: 'http://saved:3000', apiKey: 'hk_env', keySource: env });
    expect(resolveConnection({ HOOKGATE_URL: 'http://e', HOOKGATE_API_KEY: 'hk_e' }, undefined, 'p')).toEqual({ url: 'http://e', apiKey: 'hk_e', keySource: env });
  });

  it('without a URL or a key is a config error (3); a bad value names where it came from', () => {
    expect(() => resolveConnection({}, undefined, '/c.json')).toThrow(expect.objectContaining({ exitCode: EXIT.config, message: expect.stringContaining('not logged in') }));
    // Half set: the message names the variable that is there and the one that is missing.
    expect(() => resolveConnection({ HOOKGATE_URL: 'http://e' }, undefined, '/c.json')).toThrow(
      expect.objectContaining({ exitCode: EXIT.config, message: expect.stringContaining('HOOKGATE_URL is set but no API key is: set HOOKGATE_API_KEY too') }),
    );
    expect(() => resolveConnection({ HOOKGATE_API_KEY: 'hk_1' }, undefined, '/c.json')).toThrow('HOOKGATE_API_KEY is set but no gateway URL is: set HOOKGATE_URL too');
    expect(() => resolveConnection({ HOOKGATE_API_KEY: 'nope' }, { url: 'http://e' }, '/c.json')).toThrow('HOOKGATE_API_KEY must be a Hookgate API key');
    expect(() => resolveConnection({}, { url: 'file:///etc', api_key: 'hk_1' }, '/c.json')).toThrow('url in /c.json must be an http or https URL');
    expect(normaliseUrl('http://127.0.0.1:3000//')).toBe('http://127.0.0.1:3000');
  });
});

describe('exit codes of errors', () => {
  const cases: Array<[string, unknown, number]> = [
    ['a CLI error', new CliError(EXIT.usage, 'bad'), EXIT.usage],
    ['401', new HookgateError(401, 'Unauthorized'), EXIT.config],
    ['403', new HookgateError(403, 'sign-up is closed'), EXIT.config],
    ['404', new HookgateError(404, 'Not found'), EXIT.failed],
    ['400', new HookgateError(400, 'invalid id'), EXIT.failed],
    ['500', new HookgateError(500, 'Internal server error'), EXIT.unavailable],
    ['a redirect', new HookgateError(302, 'HTTP 302'), EXIT.unavailable],
    ['a timeout', new DOMException('The operation was aborted due to timeout', 'TimeoutError'), EXIT.unavailable],
    ['a refused connection', new TypeError('fetch failed', { cause: { code: 'ECONNREFUSED' } }), EXIT.unavailable],
    ['no answer, as the client reports it', new HookgateError(0, 'cannot reach http://g/v1/account: connect ECONNREFUSED 127.0.0.1:3000'), EXIT.unavailable],
  ];
  it.each(cases)('%s', (_, error, code) => {
    expect(describeError(error, 'http://g').exitCode).toBe(code);
  });

  it.each([
    ['HOOKGATE_API_KEY', { from: 'env' } as const, 'the API refused the key in HOOKGATE_API_KEY (401 Unauthorized): set HOOKGATE_API_KEY to a current key of the account'],
    ['the saved config', { from: 'config', path: '/c.json' } as const, 'the API refused the key saved in /c.json (401 Unauthorized): run `hookgate login --url URL --key hk_…` with a current key'],
    ['--key of login', { from: 'option' } as const, 'the API refused the key given with --key (401 Unauthorized); nothing was saved'],
  ])('a refused key from %s names what to change', (_label, keySource, message) => {
    const described = describeError(new HookgateError(401, 'Unauthorized'), 'http://g', keySource);
    expect(described.exitCode).toBe(EXIT.config);
    expect(described.message.startsWith(message)).toBe(true);
    if (keySource.from === 'env') expect(described.message).not.toContain('run `hookgate login');
  });

  it('a bug is not dressed up as an answer', () => {
    expect(() => describeError(new RangeError('oops'))).toThrow('oops');
  });
});

describe('events tail: which events are new', () => {
  const at = (seconds: number) => new Date(Date.parse('2026-11-26T12:00:00Z') + seconds * 1000).toISOString();
  const event = (id: string, seconds: number): EventListItem => ({
    id,
    account_id: 'a',
    direction: 'inbound',
    source_id: null,
    event_type: null,
    external_event_id: null,
    customer: null,
    status: 'accepted',
    attempts_count: 0,
    received_at: at(seconds),
    created_at: at(seconds),
  });
  const started = Date.parse(at(0));

  it('answers each event once, oldest first, whatever order the pages came in', () => {
    const window = new TailWindow({ startedAt: started, filtersByStatus: false });
    expect(window.take([event('b', 2), event('a', 1)]).map((e) => e.id)).toEqual(['a', 'b']);
    expect(window.take([event('c', 3), event('b', 2), event('a', 1)]).map((e) => e.id)).toEqual(['c']);
  });

  it('starts its window before the start (the gateway\'s clock may be behind) and slides it behind the newest event', () => {
    const window = new TailWindow({ startedAt: started, filtersByStatus: false, clockSkewMs: 60_000, lookbackMs: 10_000 });
    expect(window.since()).toBe(at(-60));
    window.take([event('a', 100)]);
    expect(window.since()).toBe(at(90));
    window.take([event('b', 200), event('old', 50)]);
    expect(window.since()).toBe(at(190));
    expect(window.remembered).toBe(1); // what fell behind the window is forgotten
  });

  it('with a status filter keeps its window at the start: an old event can come to match later', () => {
    const window = new TailWindow({ startedAt: started, filtersByStatus: true, clockSkewMs: 60_000, lookbackMs: 10_000 });
    window.take([event('a', 100), event('b', 200)]);
    expect(window.since()).toBe(at(-60));
    expect(window.take([event('a', 100), event('c', 30)]).map((e) => e.id)).toEqual(['c']);
    expect(window.remembered).toBe(3);
  });
});

describe('docs/cli.md', () => {
  const doc = readFileSync(new URL('../../docs/cli.md', import.meta.url), 'utf8');
  const section = (name: string) => doc.split(`\n## ${name}\n`)[1]?.split('\n## ')[0] ?? '';
  const leaves = (command: Command, prefix: string[] = []): Array<[string, Command]> =>
    command.commands.flatMap((sub) => (sub.commands.length > 0 ? leaves(sub, [...prefix, sub.name()]) : [[[...prefix, sub.name()].join(' '), sub] as [string, Command]]));

  it.each(leaves(buildProgram(new Output())))('documents `hookgate %s` and each of its options', (name, command) => {
    expect(section(name), `docs/cli.md has no "## ${name}" section`).not.toBe('');
    for (const option of command.options) expect(section(name), `${name} ${option.long}`).toContain(`\`${option.long}`);
    expect(doc).toContain(`[\`hookgate ${name}`);
  });
});

describe('the docs run the CLI from the clone, never from the registry', () => {
  const root = new URL('../../', import.meta.url);
  const docs = [
    'README.md',
    ...readdirSync(new URL('docs/', root)).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`),
    ...readdirSync(new URL('clients/', root)).map((name) => `clients/${name}/README.md`).filter((path) => existsSync(new URL(path, root))),
  ];

  it.each(docs)('%s never says `npx hookgate`: the registry\'s `hookgate` is not this project\'s', (path) => {
    const text = readFileSync(new URL(path, root), 'utf8');
    expect(text.split('\n').filter((line) => /npx\s+hookgate/.test(line))).toEqual([]);
  });

  it('the docs that run the CLI give `npm exec --no -- hookgate`', () => {
    for (const path of ['README.md', 'docs/cli.md', 'docs/operations.md', 'clients/cli/README.md']) expect(readFileSync(new URL(path, root), 'utf8'), path).toContain('npm exec --no -- hookgate');
  });
});
