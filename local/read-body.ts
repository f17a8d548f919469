import type { IncomingMessage } from 'node:http';

/** API Gateway HTTP API's payload limit. */
const MAX_REQUEST_BYTES = 10 * 1024 * 1024;

export type BodyResult = { ok: true; body: Buffer } | { ok: false; reason: 'too_large' };

/** Buffers the whole body, giving up (without buffering more) once it passes `limit` bytes. */
export function readBody(req: IncomingMessage, limit = MAX_REQUEST_BYTES): Promise<BodyResult> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return Promise.resolve({ ok: false, reason: 'too_large' });
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limit) {
        req.off('data', onData);
        req.off('end', onEnd);
        req.resume();
        resolve({ ok: false, reason: 'too_large' });
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => resolve({ ok: true, body: Buffer.concat(chunks, size) });
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', reject);
  });
}
