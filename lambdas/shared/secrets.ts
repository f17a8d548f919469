import { createHash, randomBytes } from 'node:crypto';
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

/** An endpoint's ownership challenge: 32 random bytes, base64url, unguessable by anyone who did not receive it. */
export const newChallenge = (): string => randomBytes(32).toString('base64url');
