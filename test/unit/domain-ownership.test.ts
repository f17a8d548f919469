import { describe, expect, it } from 'vitest';
import {
  CLAIM_GRACE_MS,
  customDomainHostname,
  hostnameStanding,
  servesOnHost,
  type HostCaller,
  type HostnameStanding,
  type RegistrationStatus,
} from '../../lambdas/domain/domain-ownership';

const A: HostCaller = { kind: 'account', accountId: 'acct_a' };
const B: HostCaller = { kind: 'account', accountId: 'acct_b' };
const SIGN_UP: HostCaller = { kind: 'sign_up' };

describe('who is served on a host', () => {
  it.each<[string, string | null, HostCaller, boolean]>([
    ['the API’s own host (no owner): any account', null, B, true],
    ['the API’s own host: sign-up', null, SIGN_UP, true],
    ['a custom domain: its owner', 'acct_a', A, true],
    ['a custom domain: another account', 'acct_a', B, false],
    ['a custom domain: sign-up', 'acct_a', SIGN_UP, false],
  ])('%s', (_, owner, caller, served) => {
    expect(servesOnHost(owner, caller)).toBe(served);
  });
});

describe('which hosts can be custom domains', () => {
  it.each<[string, string | null]>([
    ['hooks.acme.example', 'hooks.acme.example'],
    ['Hooks.ACME.example.', 'hooks.acme.example'],
    ['hooks.acme.example:8443', 'hooks.acme.example'],
    ['abc123.execute-api.us-east-1.amazonaws.com', 'abc123.execute-api.us-east-1.amazonaws.com'],
    ['localhost', null],
    ['localhost:3000', null],
    ['127.0.0.1:3000', null],
    ['127.0.0.1', null],
    ['[::1]:3000', null],
    ['', null],
    ['hooks.acme.example:80:80', null],
  ])('%j → %j', (host, hostname) => {
    expect(customDomainHostname(host)).toBe(hostname);
  });
});

describe('what a hostname’s lookup stands for', () => {
  const young = 1_000;
  const old = CLAIM_GRACE_MS + 1;
  it.each<[string, RegistrationStatus | undefined, number, HostnameStanding]>([
    ['a verified registration, however young or old', 'verified', young, 'owned'],
    ['a verified registration, old', 'verified', old, 'owned'],
    ['a deleted one still being torn down (API Gateway may serve it)', 'deleting', old, 'owned'],
    ['a failed registration', 'failed', young, 'released'],
    ['a pending one, just claimed (its verification is finishing)', 'pending_verification', young, 'claiming'],
    ['a pending one, claimed long ago (that verification died)', 'pending_verification', old, 'released'],
    ['no registration, just now (a deletion is finishing)', undefined, young, 'claiming'],
    ['no registration, long ago (an orphan)', undefined, old, 'released'],
    ['exactly at the grace', 'pending_verification', CLAIM_GRACE_MS, 'claiming'],
  ])('%s', (_, holder, age, standing) => {
    expect(hostnameStanding(holder, age)).toBe(standing);
  });
});
