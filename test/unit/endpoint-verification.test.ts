import { describe, expect, it } from 'vitest';
import {
  destinationStatus,
  echoesChallenge,
  manualVerification,
  nextVerificationTry,
  parseVerificationResend,
  pendingVerification,
  VERIFICATION_RESEND_SECONDS,
  type ManualVerification,
  type OwnershipFacts,
} from '../../lambdas/domain/endpoint-verification';
import { MAX_MESSAGE_DELAY_SECONDS } from '../../lambdas/domain/queue-wait';

const CHALLENGE = 'Zm9vYmFyYmF6cXV4LWNoYWxsZW5nZS0wMTIzNDU2Nzg5';
const AT = '2026-01-01T00:00:00.000Z';

describe('an answer that echoes the challenge', () => {
  it.each<[string, string, boolean]>([
    ['the bare challenge', CHALLENGE, true],
    ['the bare challenge with a trailing newline', `${CHALLENGE}\n`, true],
    ['{"challenge": …}', JSON.stringify({ challenge: CHALLENGE }), true],
    ['{"challenge": …} with other fields', JSON.stringify({ ok: true, challenge: CHALLENGE }), false],
    ['the challenge event echoed back whole', JSON.stringify({ type: 'hookgate.endpoint.verification', challenge: CHALLENGE, destination_id: 'd', created_at: AT }), false],
    ['the echoed event with an id added (a create API)', JSON.stringify({ type: 'hookgate.endpoint.verification', challenge: CHALLENGE, id: 101 }), false],
    ['the JSON string', JSON.stringify(CHALLENGE), true],
    ['an empty body', '', false],
    ['"ok"', 'ok', false],
    ['another challenge', JSON.stringify({ challenge: `${CHALLENGE}x` }), false],
    ['a prefix of it', CHALLENGE.slice(0, -1), false],
    ['the challenge inside a longer text', `received ${CHALLENGE}`, false],
    ['the whole event echoed back (its challenge nested)', JSON.stringify({ data: { challenge: CHALLENGE } }), false],
    ['a challenge that is no string', JSON.stringify({ challenge: 42 }), false],
    ['JSON null', 'null', false],
  ])('%s → %s', (_label, body, expected) => expect(echoesChallenge(body, CHALLENGE)).toBe(expected));
});

describe('waiting for proof', () => {
  it.each<[string, OwnershipFacts & { active: boolean }, boolean, string]>([
    ['a destination that never asked (stored before the setting)', { active: true }, false, 'active'],
    ['one that does not ask', { active: true, verify_ownership: false, verified_at: null }, false, 'active'],
    ['one waiting for proof', { active: true, verify_ownership: true, verified_at: null }, true, 'pending_verification'],
    ['one verified', { active: true, verify_ownership: true, verified_at: AT }, false, 'active'],
    ['one waiting and switched off: paused first', { active: false, verify_ownership: true, verified_at: null }, true, 'paused'],
  ])('%s', (_label, facts, pending, status) => {
    expect(pendingVerification(facts)).toBe(pending);
    expect(destinationStatus(facts)).toBe(status);
  });
});

describe('a challenge posted by hand', () => {
  const pending = { verify_ownership: true, verified_at: null, verification_challenge: CHALLENGE };
  it.each<[string, OwnershipFacts & { verification_challenge: string | null }, string, ManualVerification['kind']]>([
    ['the challenge last sent', pending, CHALLENGE, 'verified'],
    ['another', pending, 'guess', 'mismatch'],
    ['an empty one', pending, '', 'mismatch'],
    ['to one already verified', { verify_ownership: true, verified_at: AT, verification_challenge: null }, CHALLENGE, 'not_pending'],
    ['to one that does not ask for proof', { verify_ownership: false, verified_at: null, verification_challenge: null }, CHALLENGE, 'not_pending'],
  ])('%s → %s', (_label, destination, given, kind) => expect(manualVerification(destination, given).kind).toBe(kind));
});

describe('resending the challenge', () => {
  it.each<[number, number | null]>([
    [1, 10],
    [2, 60],
    [6, 900],
    [7, null],
  ])('after try %i: the next in %s s', (attempt, wait) => expect(nextVerificationTry(attempt)).toBe(wait));

  it('each wait fits one SQS message delay', () => {
    for (const seconds of VERIFICATION_RESEND_SECONDS) expect(seconds).toBeLessThanOrEqual(MAX_MESSAGE_DELAY_SECONDS);
  });

  it('follows a deployment\'s own schedule, and stops after its last step', () => {
    expect([1, 2, 3].map((attempt) => nextVerificationTry(attempt, [1, 2]))).toEqual([1, 2, null]);
  });
});

describe('a deployment\'s resend schedule (HOOKGATE_VERIFICATION_RESEND_SECONDS)', () => {
  it.each<[string | undefined, readonly number[]]>([
    [undefined, VERIFICATION_RESEND_SECONDS],
    ['', VERIFICATION_RESEND_SECONDS],
    ['1', [1]],
    [' 0, 2 ,900', [0, 2, 900]],
  ])('%j → %j', (raw, schedule) => expect(parseVerificationResend(raw)).toEqual(schedule));

  it.each(['901', '-1', 'soon', '1,,2', '1,'])('refuses %j: each step is seconds within one message delay', (raw) =>
    expect(() => parseVerificationResend(raw)).toThrow('comma-separated seconds between 0 and 900'),
  );
});
