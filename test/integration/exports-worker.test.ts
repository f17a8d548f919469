import { PutObjectCommand } from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { s3Client } from '../../lambdas/adapters/s3';
import { handler as exportWorker } from '../../lambdas/handlers/export';
import { EXPORT_FAILED_MESSAGE } from '../../lambdas/exports/worker';
import { bootGateway } from '../fixtures/gateway';
import { createAccount, type Call } from '../fixtures/http-client';

let env: Awaited<ReturnType<typeof bootGateway>>;
let call: Call;
let key: string;

// No immediate start and no timer within the test: the test plays the worker itself.
beforeAll(async () => {
  env = await bootGateway({ EXPORT_FUNCTION_NAME: '', SCHEDULER_EXPORT_POLL_INTERVAL: '3600' });
  call = env.call;
  ({ key } = await createAccount(call));
  await call('POST', '/v1/outbound-events', { key, body: { payload: '{}' } });
});
afterAll(() => env?.stop());

const job = async (id: string) => (await call('GET', `/v1/exports/${id}`, { key })).json.data;

describe('the export worker', () => {
  it('two workers polling at once: exactly one takes the job', async () => {
    const id = (await call('POST', '/v1/exports', { key, body: {} })).json.data.id;
    expect((await job(id)).status).toBe('queued');
    const [a, b] = await Promise.all([exportWorker({}), exportWorker({})]);
    expect([...a.processed, ...b.processed]).toEqual([id]);
    expect(await job(id)).toMatchObject({ status: 'ready', row_count: 1 });
    // A later run finds nothing to do.
    expect((await exportWorker({})).processed).toEqual([]);
  });

  it('a job named in the trigger is taken once, even when the schedule races it', async () => {
    const id = (await call('POST', '/v1/exports', { key, body: { format: 'csv' } })).json.data.id;
    const account = (await call('GET', '/v1/account', { key })).json.data.id;
    const results = await Promise.all([exportWorker({ detail: { account_id: account, job_id: id } }), exportWorker({})]);
    expect(results.flatMap((r) => r.processed)).toEqual([id]);
  });

  it('a failing upload ends the job failed, with a stable message and none of AWS’s text', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const id = (await call('POST', '/v1/exports', { key, body: {} })).json.data.id;
    const s3 = mockClient(s3Client());
    s3.on(PutObjectCommand).rejects(
      Object.assign(new Error('User: arn:aws:sts::123456789012:assumed-role/Hookgate-prod-Export/fn is not authorized to perform: s3:PutObject on resource: arn:aws:s3:::hookgate-exports-123456789012/exports/x'), { name: 'AccessDenied' }),
    );
    try {
      expect((await exportWorker({})).processed).toEqual([id]);
    } finally {
      s3.restore();
    }
    const failed = await job(id);
    expect(failed).toMatchObject({ status: 'failed', row_count: null, error_message: EXPORT_FAILED_MESSAGE, completed_at: expect.any(String) });
    expect(JSON.stringify(failed)).not.toMatch(/arn:|123456789012/);
    const download = await call('GET', `/v1/exports/${id}/download`, { key });
    expect(download.status).toBe(400);
    expect(download.json.error).toBe('export is not ready');
  });
});
