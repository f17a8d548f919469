import { describe, expect, it } from 'vitest';
import { isListenRequest, LISTEN_MAX_RESPONSE_BODY_BYTES, replyOutcome, replyPolls, truncateUtf8 } from '../../lambdas/domain/listen';
import { ACCOUNT_ACTOR, mayManage } from '../../lambdas/destinations/changes';

describe('what the CLI’s answer makes of the attempt', () => {
  const long = 'é'.repeat(LISTEN_MAX_RESPONSE_BODY_BYTES);
  it.each([
    ['a 2xx is a success', { status: 204, body: '' }, { outcome: 'success', responseStatus: 204, responseBody: '', error: null }],
    ['a 200 keeps its body', { status: 200, body: 'ok' }, { outcome: 'success', responseStatus: 200, responseBody: 'ok', error: null }],
    ['a 500 is an http error, retried like any', { status: 500, body: 'boom' }, { outcome: 'http_error', responseStatus: 500, responseBody: 'boom', error: null }],
    ['a 3xx is not followed: an http error', { status: 302, body: '' }, { outcome: 'http_error', responseStatus: 302, responseBody: '', error: null }],
    ['a 410 stays a 410 (the pipeline disables on it)', { status: 410 }, { outcome: 'http_error', responseStatus: 410, responseBody: '', error: null }],
    ['the local server unreachable', { error: 'http://127.0.0.1:3000: ECONNREFUSED' }, { outcome: 'network_error', responseStatus: null, responseBody: '', error: 'local: http://127.0.0.1:3000: ECONNREFUSED' }],
    ['no status at all', {}, { outcome: 'network_error', responseStatus: null, responseBody: '', error: 'local: hookgate listen answered without a status' }],
    ['a status that is no HTTP status', { status: 1000 }, { outcome: 'network_error', responseStatus: null, responseBody: '', error: 'local: hookgate listen answered without a status' }],
    ['a fractional status', { status: 200.5 }, { outcome: 'network_error', responseStatus: null, responseBody: '', error: 'local: hookgate listen answered without a status' }],
  ])('%s', (_name, reply, expected) => {
    expect(replyOutcome(reply)).toEqual(expected);
  });

  it('a body is cut at 4096 bytes, as an HTTP attempt’s, never inside a character', () => {
    const { responseBody } = replyOutcome({ status: 200, body: long });
    expect(Buffer.byteLength(responseBody)).toBe(LISTEN_MAX_RESPONSE_BODY_BYTES);
    expect(responseBody).toBe('é'.repeat(LISTEN_MAX_RESPONSE_BODY_BYTES / 2));
    expect(truncateUtf8('aé', 2)).toBe('a');
    expect(truncateUtf8('short', 10)).toBe('short');
  });
});

describe('how often a deliver function reads for the answer', () => {
  it.each([
    [100, [20, 40, 40]],
    [1000, [20, 40, 80, 160, 250, 250, 200]],
    [0, []],
  ])('within %i ms: %j', (timeoutMs, pauses) => {
    expect(replyPolls(timeoutMs)).toEqual(pauses);
  });

  it('never waits past the timeout, and reads at most once per 250 ms after the first second', () => {
    const pauses = replyPolls(15_000);
    expect(pauses.reduce((a, b) => a + b, 0)).toBe(15_000);
    expect(pauses.length).toBe(63);
    expect(Math.max(...pauses)).toBe(250);
  });
});

describe('who manages a listen destination', () => {
  it.each([
    ['the account', ACCOUNT_ACTOR, { customer: 'cus_1', listen_session: 'session-1' }, true],
    ['its customer’s portal: never, though listen gave it the customer', { kind: 'customer', customer: 'cus_1' } as const, { customer: 'cus_1', listen_session: 'session-1' }, false],
    ['the customer’s own http endpoint', { kind: 'customer', customer: 'cus_1' } as const, { customer: 'cus_1', listen_session: null }, true],
  ])('%s', (_name, actor, destination, allowed) => {
    expect(mayManage(actor, destination)).toBe(allowed);
  });
});

describe('what the CLI forwards and prints', () => {
  const request = { type: 'request', request_id: 'r1', event_id: 'e1', event_type: 'order.paid', attempt: 1, method: 'POST', headers: { 'x-a': '1' }, body_base64: 'e30=', timeout_ms: 5000 };
  it.each<[string, unknown, boolean]>([
    ['a request', request, true],
    ['one without an event type', { ...request, event_type: null }, true],
    ['another frame kind', { ...request, type: 'hello' }, false],
    ['a method other than POST', { ...request, method: 'DELETE' }, false],
    ['a header that is no text', { ...request, headers: { 'x-a': 1 } }, false],
    ['a body that is no text', { ...request, body_base64: 42 }, false],
    ['a timeout that is no number', { ...request, timeout_ms: '5000' }, false],
    ['null', null, false],
  ])('%s → %s', (_label, frame, expected) => expect(isListenRequest(frame)).toBe(expected));
});
