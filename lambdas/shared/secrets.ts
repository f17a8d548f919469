import { createHash, createHmac, generateKeyPairSync, randomBytes } from 'node:crypto';
import type { SigningKey } from '../domain/signing-keys';
import { uuidv7 } from '../domain/ids';
import { startedTrace, type Trace } from '../domain/trace-context';

export const newId = (): string => uuidv7(Date.now(), randomBytes(10));

/** `hk_` + base64url of 32 random bytes (43 characters). */
export const newApiKey = (): string => `hk_${randomBytes(32).toString('base64url')}`;

export const hashApiKey = (key: string): string => createHash('sha256').update(key, 'utf8').digest('hex');

const API_KEY_PREFIX_LENGTH = 10;
export const apiKeyPrefix = (key: string): string => key.slice(0, API_KEY_PREFIX_LENGTH);

/** `whsec_` + base64 of 32 random bytes: usable by both the Hookgate and Standard Webhooks schemes. */
export const newSigningSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;

/** 32 bytes of randomness, URL-safe: 43 characters. */
export const newPathToken = (): string => randomBytes(32).toString('base64url');

/** The trace Hookgate starts for an event that came without a valid `traceparent`. */
export const newTrace = (): Trace => startedTrace(randomBytes(16));

/** The random bytes of one delivery try's span id. */
export const newSpanBytes = (): Buffer => randomBytes(8);

/** A fresh Ed25519 key pair, as its JWK's `x` and `d`; its id is random so it tells nothing of the account or the time. */
export function newSigningKey(now: Date): SigningKey {
  const jwk = generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' });
  if (!jwk.x || !jwk.d) throw new Error('node exported an Ed25519 key without x or d');
  return { kid: `key_${randomBytes(12).toString('base64url')}`, public_key: jwk.x, private_key: jwk.d, created_at: now.toISOString() };
}

/** A new key for an account's data-subject hashes: 32 random bytes, base64. */
export const newSubjectKey = (): string => randomBytes(32).toString('base64');

/** A data subject as it is stored and indexed: HMAC-SHA256 under the account's subject key, hex. */
export const subjectHmac = (key: string, subject: string): string => createHmac('sha256', Buffer.from(key, 'base64')).update(subject, 'utf8').digest('hex');

/** An endpoint's ownership challenge: 32 random bytes, base64url, unguessable by anyone who did not receive it. */
export const newChallenge = (): string => randomBytes(32).toString('base64url');
