import { createPublicKey, sign, verify } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ed25519Signature, jwksOf, KEY_ROTATION_OVERLAP_MS, liveKeys, rotatedKeys, signerKey, type SigningKey, type SigningKeySet } from '../../lambdas/domain/signing-keys';
import { newSigningKey } from '../../lambdas/shared/secrets';

const hex = (value: string) => Buffer.from(value, 'hex').toString('base64url');
/** RFC 8032 section 7.1, TEST 1: its key signs the empty message to this signature. */
const RFC_8032_TEST_1: SigningKey = {
  kid: 'rfc',
  private_key: hex('9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60'),
  public_key: hex('d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a'),
  created_at: '2026-01-01T00:00:00.000Z',
};
const RFC_8032_TEST_1_SIGNATURE =
  'e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b';

const key = (kid: string): SigningKey => ({ ...RFC_8032_TEST_1, kid });
const rotatedAt = new Date('2026-01-01T12:00:00Z');
const rotated: SigningKeySet = rotatedKeys({ current: key('old'), previous: null }, key('new'), rotatedAt);

describe('signing keys', () => {
  it('reads a stored key as the RFC 8032 key pair its x and d are', () => {
    expect(sign(null, Buffer.alloc(0), signerKey(RFC_8032_TEST_1).key).toString('hex')).toBe(RFC_8032_TEST_1_SIGNATURE);
  });

  it.each([
    { at: rotatedAt, live: ['new', 'old'] },
    { at: new Date(rotatedAt.getTime() + KEY_ROTATION_OVERLAP_MS - 1), live: ['new', 'old'] },
    { at: new Date(rotatedAt.getTime() + KEY_ROTATION_OVERLAP_MS), live: ['new'] },
    { at: new Date(rotatedAt.getTime() + 2 * KEY_ROTATION_OVERLAP_MS), live: ['new'] },
  ])('after a rotation, at $at the live keys are $live', ({ at, live }) => {
    expect(liveKeys(rotated, at).map((k) => k.kid)).toEqual(live);
    expect(jwksOf(rotated, at).keys.map((k) => k.kid)).toEqual(live);
  });

  it('a second rotation retires the key two rotations back at once', () => {
    const again = rotatedKeys(rotated, key('newest'), new Date(rotatedAt.getTime() + 1000));
    expect(liveKeys(again, new Date(rotatedAt.getTime() + 1000)).map((k) => k.kid)).toEqual(['newest', 'new']);
  });

  it.each([
    { set: undefined, keys: [] },
    { set: { current: RFC_8032_TEST_1, previous: null }, keys: [{ kty: 'OKP', crv: 'Ed25519', x: RFC_8032_TEST_1.public_key, kid: 'rfc', use: 'sig', alg: 'EdDSA' }] },
  ])('the JWKS lists public halves only: $keys.length key(s)', ({ set, keys }) => {
    const jwks = jwksOf(set, rotatedAt);
    expect(jwks).toEqual({ keys });
    expect(JSON.stringify(jwks)).not.toContain(RFC_8032_TEST_1.private_key);
  });

  it('signs "<id>.<t>.<body>" with each key, in order, naming the keys in the same order', () => {
    const keys = [newSigningKey(rotatedAt), newSigningKey(rotatedAt)];
    const body = Buffer.from('{"a":1}');
    const { signature, keyIds } = ed25519Signature('msg_1', 1700000000, body, keys.map(signerKey));
    expect(keyIds).toBe(`${keys[0]!.kid} ${keys[1]!.kid}`);
    const parts = signature.split(' ');
    expect(parts).toHaveLength(2);
    parts.forEach((part, i) => {
      const publicKey = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: keys[i]!.public_key }, format: 'jwk' });
      const bytes = Buffer.from(part.replace(/^v1a,/, ''), 'base64');
      expect(verify(null, Buffer.from('msg_1.1700000000.{"a":1}'), publicKey, bytes)).toBe(true);
      expect(verify(null, Buffer.from('msg_1.1700000001.{"a":1}'), publicKey, bytes)).toBe(false);
    });
  });
});
