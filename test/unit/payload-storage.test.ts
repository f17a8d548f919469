import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { compactBody, readStoredBody } from '../../lambdas/adapters/payloads';
import { queueTask } from '../../lambdas/adapters/delivery-queue';
import { carriedBodyOf } from '../../lambdas/events/record';

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

describe('bodies carried in delivery tasks', () => {
  const stored = (body: Buffer) => ({ ...compactBody(body), body_size: body.length, content_type: 'application/json', headers: { 'x-a': '1' }, payload_hash: 'h' });

  it('a small body rides as stored (gzipped bytes stay gzipped) and survives the message', async () => {
    const json = Buffer.from(JSON.stringify({ items: Array.from({ length: 300 }, (_, i) => ({ id: i })) }));
    const carried = carriedBodyOf(stored(json));
    const task = queueTask.parse(JSON.parse(JSON.stringify({ v: 1, account_id: 'a', event_id: 'e', destination_id: 'd', body: carried })));
    expect(task).toMatchObject({ body: { body_compression: 'gzip', headers: { 'x-a': '1' }, body_size: json.length } });
    const body = 'body' in task && task.body ? task.body : undefined;
    expect((await readStoredBody({ ...body, body: Buffer.from(body?.body_base64 ?? '', 'base64') })).equals(json)).toBe(true);
  });

  it('a body over 4 KB as stored, or in S3, stays behind', () => {
    expect(carriedBodyOf(stored(randomBytes(4097)))).toBeUndefined();
    expect(carriedBodyOf({ body_ref: 'p/1', body_size: 400_000, content_type: null, headers: {}, payload_hash: 'h' })).toBeUndefined();
  });
});
