import { describe, expect, it } from 'vitest';
import { isUuid, uuidv7 } from '../../lambdas/domain/ids';
import { resolveRetention } from '../../lambdas/domain/plans';
import { isStandardWebhooksSecret } from '../../lambdas/domain/signing-secret';
import { apiKeyPrefix, hashApiKey, newApiKey, newPathToken, newSigningSecret } from '../../lambdas/shared/secrets';

describe('uuidv7', () => {
  it('is a valid version 7 UUID that sorts by time', () => {
    const zero = new Uint8Array(10);
    const a = uuidv7(1_700_000_000_000, zero);
    const b = uuidv7(1_700_000_000_001, new Uint8Array(10).fill(255));
    expect(isUuid(a)).toBe(true);
    expect(a[14]).toBe('7');
    expect(['8', '9', 'a', 'b']).toContain(b[19]);
    expect(a < b).toBe(true);
    expect(a.startsWith('018bcfe5-6800')).toBe(true);
  });
});

describe('retention by plan', () => {
  it('gives each plan its default and only enterprise a custom window', () => {
    expect(resolveRetention({ plan: 'free', requestedDays: undefined })).toBe(1);
    expect(resolveRetention({ plan: 'pro', requestedDays: undefined })).toBe(30);
    expect(resolveRetention({ plan: 'enterprise', requestedDays: undefined })).toBe(90);
    expect(resolveRetention({ plan: 'enterprise', requestedDays: 400 })).toBe(400);
    expect(() => resolveRetention({ plan: 'pro', requestedDays: 10 })).toThrow(
      'retention_days can only be set on the enterprise plan',
    );
  });
  it('keeps a custom window while the plan stays, resets it when the plan changes', () => {
    expect(resolveRetention({ plan: 'enterprise', requestedDays: undefined, currentPlan: 'enterprise', currentDays: 400 })).toBe(400);
    expect(resolveRetention({ plan: 'pro', requestedDays: undefined, currentPlan: 'enterprise', currentDays: 400 })).toBe(30);
  });
});

describe('secrets', () => {
  it('makes API keys of the contract format, hashed with SHA-256', () => {
    const key = newApiKey();
    expect(key).toMatch(/^hk_[A-Za-z0-9_-]{43}$/);
    expect(apiKeyPrefix(key)).toBe(key.slice(0, 10));
    expect(hashApiKey('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
  it('makes signing secrets that Standard Webhooks libraries accept, and long path tokens', () => {
    expect(isStandardWebhooksSecret(newSigningSecret())).toBe(true);
    expect(isStandardWebhooksSecret('whsec_short')).toBe(false);
    expect(isStandardWebhooksSecret('plain-secret-value')).toBe(false);
    expect(newPathToken()).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });
});
