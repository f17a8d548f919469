import type { Context } from 'aws-lambda';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

// lambdas/shared/log.ts, metrics.ts and observability.ts. The logger picks its mode (Lambda JSON or
// readable lines) when first used, so every test imports fresh modules under the environment it wants.
const ENV_KEYS = ['AWS_LAMBDA_FUNCTION_NAME', 'HOOKGATE_LOCAL', 'HOOKGATE_LOG_LEVEL', 'HOOKGATE_METRICS', 'POWERTOOLS_METRICS_DISABLED', 'HOOKGATE_STAGE', 'POWERTOOLS_SERVICE_NAME'];
let saved: Record<string, string | undefined>;

beforeEach(() => {
  saved = Object.fromEntries(ENV_KEYS.map((k) => [k, process.env[k]]));
  for (const key of ENV_KEYS) delete process.env[key];
  vi.resetModules();
});
afterEach(() => {
  for (const [key, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
  vi.restoreAllMocks();
});

const fresh = async () => ({
  ...(await import('../../lambdas/shared/log')),
  ...(await import('../../lambdas/shared/metrics')),
  ...(await import('../../lambdas/shared/observability')),
});

function capture(method: 'info' | 'warn' | 'error' | 'log') {
  const lines: string[] = [];
  vi.spyOn(console, method).mockImplementation((line: unknown) => void lines.push(String(line)));
  return lines;
}

/** What Powertools writes in Lambda mode: straight to stdout/stderr, one JSON document per line. */
function captureStd() {
  const lines: string[] = [];
  const keep = (chunk: unknown) => {
    lines.push(...String(chunk).split('\n').filter(Boolean));
    return true;
  };
  vi.spyOn(process.stdout, 'write').mockImplementation(keep);
  vi.spyOn(process.stderr, 'write').mockImplementation(keep);
  return () => lines.map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe('logs outside AWS Lambda (local runtime, tests)', () => {
  it('are readable lines: time, level, message, then key=value, quoted when needed', async () => {
    const { log } = await fresh();
    const info = capture('info');
    log.info('delivery attempt', { account_id: 'a1', outcome: 'success', status: 200, reason: 'two words', skipped: undefined });
    expect(info).toHaveLength(1);
    expect(info[0]).toMatch(/^\d{2}:\d{2}:\d{2} INFO delivery attempt account_id=a1 outcome=success status=200 reason="two words"$/);
  });

  it('warnings and errors go to stderr; an error shows its name, message and where it was thrown', async () => {
    const { log } = await fresh();
    const warn = capture('warn');
    const error = capture('error');
    log.warn('careful', { n: 1 });
    log.error('failed', { event_id: 'e1' }, new TypeError('boom'));
    expect(warn).toEqual([expect.stringMatching(/ WARN careful n=1$/)]);
    expect(error[0]).toMatch(/ ERROR failed event_id=e1 error="TypeError: boom" at=\S+observability\.test\.ts:\d+:\d+$/);
  });

  it('HOOKGATE_LOG_LEVEL is read on every call', async () => {
    const { log } = await fresh();
    const info = capture('info');
    const warn = capture('warn');
    log.info('one');
    process.env.HOOKGATE_LOG_LEVEL = 'warn';
    log.info('two');
    log.warn('three');
    process.env.HOOKGATE_LOG_LEVEL = 'info';
    log.info('four');
    expect(info.map((l) => l.split(' ').at(-1))).toEqual(['one', 'four']);
    expect(warn).toHaveLength(1);
  });

  it('even with AWS_LAMBDA_FUNCTION_NAME set, when HOOKGATE_LOCAL=1', async () => {
    Object.assign(process.env, { AWS_LAMBDA_FUNCTION_NAME: 'fn', HOOKGATE_LOCAL: '1' });
    const { log, runningInLambda } = await fresh();
    expect(runningInLambda()).toBe(false);
    const info = capture('info');
    log.info('hello');
    expect(info[0]).toMatch(/ INFO hello$/);
  });
});

describe('logs in AWS Lambda', () => {
  it('are JSON with the Lambda context, the invocation keys and the fields; errors without anything hung on them', async () => {
    Object.assign(process.env, { AWS_LAMBDA_FUNCTION_NAME: 'fn', POWERTOOLS_SERVICE_NAME: 'hookgate-deliver', HOOKGATE_METRICS: 'off' });
    const { log, appendLogKeys, observedHandler } = await fresh();
    const read = captureStd();
    const context = { functionName: 'fn', awsRequestId: 'req-1', invokedFunctionArn: 'arn:aws:lambda:eu-west-1:1:function:fn', memoryLimitInMB: '512' } as Context;
    const handler = observedHandler(async (_event: unknown, _context?: Context) => {
      appendLogKeys({ account_id: 'acct-1' });
      log.info('hello', { n: 1 });
      log.error('failed', {}, Object.assign(new Error('no'), { $metadata: { requestId: 'x' }, $response: { body: 'secret' } }));
    });
    await handler({ body: 'never logged' }, context);
    const lines = read();
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({ level: 'INFO', message: 'hello', service: 'hookgate-deliver', function_request_id: 'req-1', account_id: 'acct-1', n: 1 });
    expect(Object.keys(lines[1]?.error as object).sort()).toEqual(['location', 'message', 'name', 'stack']);
    expect(JSON.stringify(lines)).not.toContain('never logged');
    expect(JSON.stringify(lines)).not.toContain('secret');
  });
});

describe('log keys', () => {
  it('belong to their invocation: concurrent ones never see each other’s', async () => {
    const { log, appendLogKeys, invocationScoped } = await fresh();
    const info = capture('info');
    const handler = invocationScoped(async (account: string, wait: number) => {
      appendLogKeys({ account_id: account });
      await new Promise((r) => setTimeout(r, wait));
      log.info('done');
    });
    await Promise.all([handler('a', 20), handler('b', 0), handler('c', 10)]);
    log.info('outside');
    expect(info.map((l) => l.replace(/^\S+ /, '')).sort()).toEqual(['INFO done account_id=a', 'INFO done account_id=b', 'INFO done account_id=c', 'INFO outside']);
  });

  it('withLogKeys nests: a record sees its invocation’s keys plus its own', async () => {
    const { log, appendLogKeys, invocationScoped, withLogKeys } = await fresh();
    const info = capture('info');
    await invocationScoped(async () => {
      appendLogKeys({ api_request_id: 'r1' });
      await withLogKeys({ account_id: 'a' }, async () => log.info('inner'));
      log.info('after');
    })();
    expect(info.map((l) => l.replace(/^\S+ /, ''))).toEqual(['INFO inner api_request_id=r1 account_id=a', 'INFO after api_request_id=r1']);
  });
});

/** The EMF documents printed since the spy was set. */
const emf = (lines: string[]) => lines.map((l) => JSON.parse(l) as Record<string, unknown> & { _aws: { CloudWatchMetrics: Array<{ Namespace: string; Dimensions: string[][]; Metrics: Array<{ Name: string; Unit: string }> }> } });

describe('metrics', () => {
  it('are recorded during the invocation and written at its end, one EMF document per dimension set', async () => {
    process.env.HOOKGATE_STAGE = 'prod';
    const { recordIngested, recordVerificationRejected, observedHandler } = await fresh();
    const out = capture('log');
    const handler = observedHandler(async () => {
      recordIngested('inbound');
      recordIngested('inbound');
      recordVerificationRejected('stripe');
      expect(out).toEqual([]); // nothing before the end
    });
    await handler();
    const docs = emf(out);
    expect(docs).toHaveLength(2);
    expect(docs).toContainEqual(
      expect.objectContaining({
        _aws: expect.objectContaining({ CloudWatchMetrics: [{ Namespace: 'Hookgate', Dimensions: [['service', 'direction']], Metrics: [{ Name: 'Ingested', Unit: 'Count' }] }] }),
        service: 'hookgate-prod',
        direction: 'inbound',
        Ingested: [1, 1],
      }),
    );
    expect(docs).toContainEqual(expect.objectContaining({ provider: 'stripe', VerificationRejected: 1 }));
  });

  it('are written when the handler throws, too, and only once', async () => {
    const { recordIngested, observedHandler, flushMetrics } = await fresh();
    const out = capture('log');
    const handler = observedHandler(async () => {
      recordIngested('outbound');
      throw new Error('boom');
    });
    await expect(handler()).rejects.toThrow('boom');
    flushMetrics();
    expect(emf(out)).toEqual([expect.objectContaining({ direction: 'outbound', Ingested: 1 })]);
  });

  it('a delivery try: attempts by outcome, delivered with its latency, or failed and dead-lettered', async () => {
    const { recordDeliveryAttempt, flushMetrics } = await fresh();
    const out = capture('log');
    const attemptedAt = new Date('2030-01-01T00:00:02.500Z');
    recordDeliveryAttempt({ outcome: 'success', deadLettered: false, receivedAt: '2030-01-01T00:00:00.000Z', attemptedAt });
    recordDeliveryAttempt({ outcome: 'timeout', deadLettered: false, receivedAt: '2030-01-01T00:00:00.000Z', attemptedAt });
    recordDeliveryAttempt({ outcome: 'http_error', deadLettered: true, receivedAt: '2030-01-01T00:00:00.000Z', attemptedAt });
    flushMetrics();
    const docs = emf(out);
    const plain = docs.find((d) => d._aws.CloudWatchMetrics[0]?.Dimensions[0]?.length === 1);
    expect(plain).toMatchObject({ Delivered: 1, DeliveryLatency: 2500, DeliveryFailed: [1, 1], DeadLettered: 1 });
    expect(plain?._aws.CloudWatchMetrics[0]?.Metrics).toContainEqual({ Name: 'DeliveryLatency', Unit: 'Milliseconds' });
    expect(docs.filter((d) => 'DeliveryAttempts' in d).map((d) => d.outcome).sort()).toEqual(['http_error', 'success', 'timeout']);
  });

  it('HOOKGATE_METRICS=off records nothing; POWERTOOLS_METRICS_DISABLED prints nothing', async () => {
    const out = capture('log');
    process.env.HOOKGATE_METRICS = 'off';
    let m = await fresh();
    m.recordIngested('inbound');
    m.flushMetrics();
    delete process.env.HOOKGATE_METRICS;
    process.env.POWERTOOLS_METRICS_DISABLED = 'true';
    vi.resetModules();
    m = await fresh();
    m.recordIngested('inbound');
    m.flushMetrics();
    expect(out).toEqual([]);
  });

  it('the local runtime prints them only at the debug log level; in Lambda they are always written', async () => {
    const out = capture('log');
    process.env.HOOKGATE_LOCAL = '1';
    process.env.AWS_LAMBDA_FUNCTION_NAME = 'local-ingest';
    const m = await fresh();
    m.recordIngested('inbound');
    m.flushMetrics();
    expect(out).toEqual([]);
    process.env.HOOKGATE_LOG_LEVEL = 'debug';
    m.recordIngested('inbound');
    m.flushMetrics();
    expect(emf(out)).toEqual([expect.objectContaining({ Ingested: 1 })]);

    const std = captureStd();
    delete process.env.HOOKGATE_LOCAL;
    delete process.env.HOOKGATE_LOG_LEVEL;
    vi.resetModules();
    const lambda = await fresh();
    lambda.recordIngested('inbound');
    lambda.flushMetrics();
    expect(std()).toEqual([expect.objectContaining({ Ingested: 1 })]);
  });
});

describe('observedHandler', () => {
  it('passes the context it was given, or none (scripts and tests call handlers without one)', async () => {
    const { observedHandler } = await fresh();
    const seen: unknown[] = [];
    const handler = observedHandler(async (event: { n?: number } = {}, context?: Pick<Context, 'getRemainingTimeInMillis'>) => {
      seen.push(event.n, context?.getRemainingTimeInMillis());
      return 'ok';
    });
    expect(await handler({ n: 1 })).toBe('ok');
    expect(await handler({ n: 2 }, { getRemainingTimeInMillis: () => 1234 })).toBe('ok');
    expect(seen).toEqual([1, undefined, 2, 1234]);
  });
});
