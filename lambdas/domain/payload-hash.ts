import { createHash } from 'node:crypto';

/** A body's identity: every event's `payload_hash`, and the delivery id of a signed webhook whose signature covers no id. */
export const payloadHash = (body: Uint8Array) => `sha256:${createHash('sha256').update(body).digest('hex')}`;
