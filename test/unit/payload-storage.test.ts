import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { compactBody, readStoredBody } from '../../lambdas/adapters/payloads';

describe('stored bodies', () => {
  it('keeps small bodies as they are', () => {
    const small = Buffer.from('{"a":1}');
    expect(compactBody(small)).toEqual({ body: small });
  });

  it('gzips a compressible body of 1 KB or more, and gives back the exact bytes', async () => {
    const json = Buffer.from(JSON.stringify({ items: Array.from({ length: 100 }, (_, i) => ({ id: i, name: `item ${i}` })) }));
    const stored = compactBody(json);
    expect(stored.body_compression).toBe('gzip');
    expect(stored.body.length).toBeLessThan(json.length / 2);
    expect((await readStoredBody(stored)).equals(json)).toBe(true);
  });

  it('does not gzip what does not shrink (random bytes)', async () => {
    const random = randomBytes(4096);
    const stored = compactBody(random);
    expect(stored.body_compression).toBeUndefined();
    expect((await readStoredBody(stored)).equals(random)).toBe(true);
  });
});
