import { uuidv7 } from './ids';

/**
 * Ids are UUIDv7, so "created at or after T" and "created at or before T" are ranges of ids: the
 * smallest id of T's millisecond and the largest. String order equals time order (fixed version and
 * variant bits sit after the 48-bit time).
 */
export const firstIdAt = (ms: number) => uuidv7(ms, new Uint8Array(10));
export const lastIdAt = (ms: number) => uuidv7(ms, new Uint8Array(10).fill(0xff));
