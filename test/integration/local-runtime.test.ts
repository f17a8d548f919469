import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readlinkSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { getPriority, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DescribeTableCommand, GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import {
  ChangeMessageVisibilityCommand,
  GetQueueAttributesCommand,
  SendMessageCommand,
} from '@aws-sdk/client-sqs';
import type { APIGatewayProxyEventV2, ScheduledEvent, SQSRecord } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DELIVERY_QUEUE, ENV, TABLE } from '../../lambdas/shared/resource-definitions';
import { createLocalClients, type LocalClients } from '../../local/aws-clients';
import { startGateway, type ApiHandler, type Gateway, type SqsHandler } from '../../local/gateway';
import { LOCAL_MAX_RECEIVE_COUNT } from '../../local/resources';
import { DELIVERY_TEST_ENV } from '../fixtures/gateway';
import { deliveryState, destinationRecord, eventRecord } from '../fixtures/records';
import { eventEntity } from '../../lambdas/events/record';
import { accountPartition } from '../../lambdas/store/keys';
import { destinationKey } from '../../lambdas/destinations/record';
import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { httpClient } from '../fixtures/http-client';
import { accountWithSource, addDestination, addRoute, ingest } from '../fixtures/setup';
import { startSink } from '../fixtures/sink';

const root = fileURLToPath(new URL('../../', import.meta.url));
const TEN_MB = 10 * 1024 * 1024;

async function tempDir(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'hookgate-local-'));
}

async function waitFor<T>(probe: () => T | undefined | Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** node:http rather than fetch, to send the same header twice. */
function rawRequest(
  url: string,
  opts: { method?: string; headers?: Record<string, string | string[]>; body?: Buffer },
): Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: opts.method ?? 'GET', headers: opts.headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

describe('local gateway with injected handlers', () => {
  let gateway: Gateway;
  let dataDir: string;
  let clients: LocalClients;
  const apiEvents: APIGatewayProxyEventV2[] = [];
  const ingestEvents: APIGatewayProxyEventV2[] = [];
  const deliveries: { record: SQSRecord; at: number }[] = [];
  const exportRuns: { event: ScheduledEvent; at: number }[] = [];

  /** Echoes the request body back, except on /v1/boom. */
  const api: ApiHandler = async (event) => {
    apiEvents.push(event);
    if (event.rawPath === '/v1/boom') throw new Error('handler exploded');
    return {
      statusCode: 200,
      headers: { 'content-type': event.headers['content-type'] ?? 'text/plain', 'x-route': event.routeKey },
      cookies: ['session=abc; Path=/', 'theme=dark'],
      body: event.body ?? '',
      isBase64Encoded: event.isBase64Encoded,
    };
  };

  const ingest: ApiHandler = async (event) => {
    ingestEvents.push(event);
    return {
      statusCode: 202,
      headers: { 'content-type': 'application/octet-stream' },
      body: event.body ?? '',
      isBase64Encoded: event.isBase64Encoded,
    };
  };

  /** `retry` fails once, `crash` throws once; both shorten their visibility first, as the real handler will. */
  const deliver: SqsHandler = async (event) => {
    const now = Date.now();
    for (const record of event.Records) deliveries.push({ record, at: now });
    const firstTry = (r: SQSRecord): boolean => deliveries.filter((d) => d.record.messageId === r.messageId).length === 1;
    const shorten = (r: SQSRecord) =>
      clients.sqs.send(
        new ChangeMessageVisibilityCommand({
          QueueUrl: gateway.resources.deliveryQueueUrl,
          ReceiptHandle: r.receiptHandle,
          VisibilityTimeout: 1,
        }),
      );
    if (event.Records.some((r) => r.body === 'crash' && firstTry(r))) {
      await Promise.all(event.Records.map(shorten));
      throw new Error('deliver crashed');
    }
    const failures = event.Records.filter((r) => r.body === 'retry' && firstTry(r));
    await Promise.all(failures.map(shorten));
    return { batchItemFailures: failures.map((r) => ({ itemIdentifier: r.messageId })) };
  };

  beforeAll(async () => {
    dataDir = await tempDir();
    gateway = await startGateway({
      port: 0,
      dataDir,
      log: () => undefined,
      env: { SCHEDULER_EXPORT_POLL_INTERVAL: '1', [ENV.version]: 'test-version' },
      handlers: {
        api,
        ingest,
        deliver,
        exportWorker: async (event) => {
          exportRuns.push({ event, at: Date.now() });
        },
      },
    });
    clients = createLocalClients(gateway.endpoints);
  });

  afterAll(async () => {
    clients?.destroy();
    await gateway?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('sets the handler environment before the handlers run, with user env winning', () => {
    expect(process.env).toMatchObject({
      [ENV.tableName]: TABLE.logicalName,
      [ENV.deliveryQueueUrl]: gateway.resources.deliveryQueueUrl,
      [ENV.payloadBucket]: 'hookgate-payloads',
      [ENV.exportBucket]: 'hookgate-exports',
      [ENV.publicUrl]: gateway.url,
      [ENV.s3ForcePathStyle]: 'true',
      [ENV.version]: 'test-version',
      AWS_REGION: 'us-east-1',
      AWS_ENDPOINT_URL_DYNAMODB: gateway.endpoints.dynamodb,
      AWS_ENDPOINT_URL_SQS: gateway.endpoints.sqs,
      AWS_ENDPOINT_URL_S3: gateway.endpoints.s3,
    });
    expect(gateway.url).toBe(`http://127.0.0.1:${gateway.port}`);
  });

  it('creates the table with both indexes and the queue with its redrive policy', async () => {
    const { Table } = await clients.dynamodb.send(new DescribeTableCommand({ TableName: TABLE.logicalName }));
    const { Attributes } = await clients.sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: gateway.resources.deliveryQueueUrl, AttributeNames: ['All'] }),
    );

    expect(Table?.BillingModeSummary?.BillingMode).toBe('PAY_PER_REQUEST');
    const gsi1 = Table?.GlobalSecondaryIndexes?.find((i) => i.IndexName === 'gsi1');
    const gsi2 = Table?.GlobalSecondaryIndexes?.find((i) => i.IndexName === 'gsi2');
    expect(gsi1?.Projection).toEqual({ ProjectionType: 'INCLUDE', NonKeyAttributes: [...TABLE.globalIndexes[0].nonKeyAttributes] });
    expect(gsi2?.Projection?.ProjectionType).toBe('KEYS_ONLY');
    expect(Attributes?.VisibilityTimeout).toBe(String(DELIVERY_QUEUE.visibilityTimeoutSeconds));
    expect(JSON.parse(Attributes?.RedrivePolicy ?? '{}')).toEqual({
      deadLetterTargetArn: expect.stringMatching(/:hookgate-delivery-dlq$/),
      maxReceiveCount: LOCAL_MAX_RECEIVE_COUNT,
    });
  });

  it('hands the api handler an HTTP API v2 event with method, path, query and headers', async () => {
    const res = await rawRequest(`${gateway.url}/v1/things/a%20b?tag=x&tag=y&q=hello%20world`, {
      headers: { 'X-Multi': ['one', 'two'], Cookie: 'a=1; b=2', 'User-Agent': 'local-test' },
    });

    const event = apiEvents.at(-1);
    expect(res.status).toBe(200);
    expect(res.headers['set-cookie']).toEqual(['session=abc; Path=/', 'theme=dark']);
    expect(res.headers['x-route']).toBe('ANY /{proxy+}');
    expect(event).toMatchObject({
      version: '2.0',
      routeKey: 'ANY /{proxy+}',
      rawPath: '/v1/things/a%20b',
      rawQueryString: 'tag=x&tag=y&q=hello%20world',
      queryStringParameters: { tag: 'x,y', q: 'hello world' },
      pathParameters: { proxy: 'v1/things/a b' },
      cookies: ['a=1', 'b=2'],
      isBase64Encoded: false,
      requestContext: { http: { method: 'GET', path: '/v1/things/a%20b', sourceIp: '127.0.0.1', userAgent: 'local-test' } },
    });
    expect(event?.headers['x-multi']).toBe('one,two');
    expect(event?.body).toBeUndefined();
  });

  it('passes a JSON body as text', async () => {
    const res = await fetch(`${gateway.url}/v1/things`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"name":"café"}',
    });

    expect(res.status).toBe(200);
    expect(await res.text()).toBe('{"name":"café"}');
    expect(apiEvents.at(-1)).toMatchObject({ body: '{"name":"café"}', isBase64Encoded: false });
  });

  it('round-trips a binary ingest body byte for byte, in the event and in the response', async () => {
    const body = Buffer.concat([Buffer.from(Array.from({ length: 256 }, (_, i) => i)), randomBytes(256 * 1024)]);

    const res = await fetch(`${gateway.url}/ingest/tok_123`, {
      method: 'POST',
      headers: { 'content-type': 'application/octet-stream' },
      body,
    });

    const event = ingestEvents.at(-1);
    expect(res.status).toBe(202);
    expect(Buffer.from(await res.arrayBuffer()).equals(body)).toBe(true);
    expect(event).toMatchObject({
      routeKey: 'POST /ingest/{token}',
      pathParameters: { token: 'tok_123' },
      isBase64Encoded: true,
    });
    expect(Buffer.from(event?.body ?? '', 'base64').equals(body)).toBe(true);
  });

  it('sends other methods on /ingest/... to the api handler, like API Gateway', async () => {
    const res = await fetch(`${gateway.url}/ingest/tok_123`);

    expect(res.status).toBe(200);
    expect(apiEvents.at(-1)?.pathParameters).toEqual({ proxy: 'ingest/tok_123' });
  });

  it('passes a body whose Lambda event fits 6 MB, and answers 413 without calling the handler above it or above 10 MB', async () => {
    const calls = ingestEvents.length;

    // 4 MB of binary is ~5.3 MB once base64-encoded in the event: Lambda takes it.
    const fits = await fetch(`${gateway.url}/ingest/big`, { method: 'POST', body: Buffer.alloc(4 * 1024 * 1024, 1) });
    await fits.arrayBuffer();
    // Exactly 10 MB passes API Gateway, but its event (~13.3 MB) is more than Lambda accepts.
    const overLambda = await fetch(`${gateway.url}/ingest/big`, { method: 'POST', body: Buffer.alloc(TEN_MB, 1) });
    const overGateway = await fetch(`${gateway.url}/ingest/big`, { method: 'POST', body: Buffer.alloc(TEN_MB + 1, 1) });

    expect(fits.status).toBe(202);
    expect(overLambda.status).toBe(413);
    expect(await overLambda.json()).toMatchObject({ error: 'request body too large' });
    expect(overGateway.status).toBe(413);
    expect(await overGateway.json()).toEqual({ error: 'request body too large', duration_ms: 0 });
    expect(ingestEvents.length).toBe(calls + 1);
  });

  it('answers 413 to a chunked upload (no content-length) once it passes 10 MB', async () => {
    const calls = ingestEvents.length;

    const res = await rawRequest(`${gateway.url}/ingest/big`, {
      method: 'POST',
      headers: { 'transfer-encoding': 'chunked' },
      body: Buffer.alloc(TEN_MB + 1024, 1),
    });

    expect(res.status).toBe(413);
    expect(JSON.parse(res.body.toString())).toEqual({ error: 'request body too large', duration_ms: 0 });
    expect(ingestEvents.length).toBe(calls);
  });

  it('answers a throwing handler with the 500 envelope and logs the error', async () => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);

    const res = await fetch(`${gateway.url}/v1/boom`);

    const body = (await res.json()) as { error: string; duration_ms: number };
    const calls = [...logged.mock.calls];
    logged.mockRestore();
    expect(res.status).toBe(500);
    expect(body).toEqual({ error: 'Internal server error', duration_ms: expect.any(Number) });
    expect(Number.isInteger(body.duration_ms)).toBe(true);
    expect(calls).toContainEqual([expect.stringContaining('api handler failed'), expect.any(Error)]);
  });

  it('answers 404 at / where no route matches', async () => {
    const res = await fetch(`${gateway.url}/`);

    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: 'Not found', duration_ms: 0 });
  });

  it('deletes delivered messages and redelivers batch item failures after their visibility timeout', async () => {
    const send = (body: string) =>
      clients.sqs.send(
        new SendMessageCommand({
          QueueUrl: gateway.resources.deliveryQueueUrl,
          MessageBody: body,
          MessageAttributes: { kind: { DataType: 'String', StringValue: body } },
        }),
      );
    const { MessageId: okId } = await send('ok');
    const { MessageId: retryId } = await send('retry');
    const triesOf = (id: string | undefined) => deliveries.filter((d) => d.record.messageId === id);

    await waitFor(() => triesOf(retryId).length === 2);

    const [first, second] = triesOf(retryId);
    expect(triesOf(okId)).toHaveLength(1);
    expect((second?.at ?? 0) - (first?.at ?? 0)).toBeGreaterThanOrEqual(900);
    expect(first?.record).toMatchObject({
      body: 'retry',
      eventSource: 'aws:sqs',
      eventSourceARN: gateway.resources.deliveryQueueArn,
      awsRegion: 'us-east-1',
      messageAttributes: { kind: { dataType: 'String', stringValue: 'retry' } },
      attributes: { ApproximateReceiveCount: '1' },
    });
    await waitFor(async () => {
      const { Attributes } = await clients.sqs.send(
        new GetQueueAttributesCommand({ QueueUrl: gateway.resources.deliveryQueueUrl, AttributeNames: ['All'] }),
      );
      return Attributes?.ApproximateNumberOfMessages === '0' && Attributes.ApproximateNumberOfMessagesNotVisible === '0';
    });
  });

  it('deletes nothing when the handler throws: the batch comes back after its visibility timeout', async () => {
    const { MessageId } = await clients.sqs.send(
      new SendMessageCommand({ QueueUrl: gateway.resources.deliveryQueueUrl, MessageBody: 'crash' }),
    );
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);

    await waitFor(() => deliveries.filter((d) => d.record.messageId === MessageId).length === 2);

    const calls = [...logged.mock.calls];
    logged.mockRestore();
    expect(calls).toContainEqual([expect.stringContaining('handler failed'), expect.any(Error)]);
  });

  it('runs the export schedule at start and then every SCHEDULER_EXPORT_POLL_INTERVAL seconds', async () => {
    await waitFor(() => exportRuns.length >= 2, 5_000);

    const [first, second] = exportRuns;
    expect(first?.event).toMatchObject({ source: 'aws.events', 'detail-type': 'Scheduled Event' });
    expect((second?.at ?? 0) - (first?.at ?? 0)).toBeGreaterThanOrEqual(900);
  });
});

describe('local gateway restarts', () => {
  it('keeps table items and S3 objects across a restart on the same data dir (queued messages are not kept)', async () => {
    const dataDir = await tempDir();
    const api: ApiHandler = async () => ({ statusCode: 204 });
    try {
      // Prepare
      const first = await startGateway({ port: 0, dataDir, log: () => undefined, handlers: { api } });
      const before = createLocalClients(first.endpoints);
      await before.dynamodb.send(
        new PutItemCommand({ TableName: TABLE.logicalName, Item: { pk: { S: 'acct#1' }, sk: { S: 'meta' }, name: { S: 'kept' } } }),
      );
      await before.s3.send(new PutObjectCommand({ Bucket: first.resources.payloadBucket, Key: 'p/1', Body: 'payload' }));
      await before.sqs.send(new SendMessageCommand({ QueueUrl: first.resources.deliveryQueueUrl, MessageBody: 'lost' }));
      const noIngest = await fetch(`${first.url}/ingest/tok`, { method: 'POST', body: 'x' });
      before.destroy();
      await first.close();

      // Act
      const second = await startGateway({ port: 0, dataDir, log: () => undefined, handlers: { api } });
      const after = createLocalClients(second.endpoints);
      const { Item } = await after.dynamodb.send(
        new GetItemCommand({ TableName: TABLE.logicalName, Key: { pk: { S: 'acct#1' }, sk: { S: 'meta' } } }),
      );
      const object = await after.s3.send(new GetObjectCommand({ Bucket: second.resources.payloadBucket, Key: 'p/1' }));
      const payload = await object.Body?.transformToString();
      const { Attributes } = await after.sqs.send(
        new GetQueueAttributesCommand({ QueueUrl: second.resources.deliveryQueueUrl, AttributeNames: ['ApproximateNumberOfMessages'] }),
      );
      after.destroy();
      await second.close();

      // Assess
      expect(noIngest.status).toBe(404);
      expect(await noIngest.json()).toEqual({ error: 'Not found', duration_ms: 0 });
      expect(Item?.name).toEqual({ S: 'kept' });
      expect(payload).toBe('payload');
      expect(Attributes?.ApproximateNumberOfMessages).toBe('0');
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('gives a destination waiting for its endpoint’s proof the next try of its challenge back, and a verified one none', async () => {
    const dataDir = await tempDir();
    const bodies: unknown[] = [];
    const deliver: SqsHandler = async (event) => {
      for (const record of event.Records) bodies.push(JSON.parse(record.body));
    };
    const pending = destinationRecord({ verify_ownership: true, verification_challenge: 'challenge-1' });
    const verified = destinationRecord({ verify_ownership: true, verified_at: new Date().toISOString() });
    const paused = destinationRecord({ verify_ownership: true, verification_challenge: 'challenge-2', active: false });
    try {
      const first = await startGateway({ port: 0, dataDir, log: () => undefined, handlers: {} });
      const clients = createLocalClients(first.endpoints);
      const table = DynamoDBDocumentClient.from(clients.dynamodb);
      for (const d of [pending, verified, paused]) await table.send(new PutCommand({ TableName: TABLE.logicalName, Item: { ...destinationKey(d.account_id, d.id), entity: 'destination', ...d } }));
      clients.destroy();
      await first.close();

      const second = await startGateway({ port: 0, dataDir, log: () => undefined, handlers: { deliver } });
      try {
        await waitFor(() => (bodies.length > 0 ? true : undefined));
      } finally {
        await second.close();
      }

      expect(bodies).toEqual([{ v: 1, kind: 'verify', account_id: pending.account_id, destination_id: pending.id, challenge: 'challenge-1', attempt: 1 }]);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('gives a delivery parked but still under a dead worker’s claim its message back, besides its destination’s release', async () => {
    const dataDir = await tempDir();
    const bodies: Array<Record<string, unknown>> = [];
    const deliver: SqsHandler = async (event) => {
      for (const record of event.Records) bodies.push(JSON.parse(record.body));
    };
    // Released, claimed, then its gateway died before the release took the park away: the park and the claim both stand.
    const claimedAt = new Date(Date.now() - 10 * 60_000).toISOString();
    const event = eventRecord({ status: 'delivering', deliveries: { d: deliveryState({ status: 'delivering', attempts: 1, claimed_at: claimedAt }) } });
    const shard = parseInt(event.id.slice(-1), 16) % 16;
    const held = { pk: `${accountPartition(event.account_id)}#HELD#d#${shard}`, sk: `${claimedAt}#${event.id}`, entity: 'held_delivery', event_id: event.id, due: claimedAt, nonce: 'n1' };
    try {
      const first = await startGateway({ port: 0, dataDir, log: () => undefined, handlers: {} });
      const clients = createLocalClients(first.endpoints);
      const table = DynamoDBDocumentClient.from(clients.dynamodb);
      for (const Item of [eventEntity.item(event), held]) await table.send(new PutCommand({ TableName: TABLE.logicalName, Item }));
      clients.destroy();
      await first.close();

      const second = await startGateway({ port: 0, dataDir, log: () => undefined, handlers: { deliver } });
      try {
        await waitFor(() => (bodies.length >= 2 ? true : undefined));
      } finally {
        await second.close();
      }

      expect(bodies).toEqual(
        expect.arrayContaining([
          { v: 1, account_id: event.account_id, event_id: event.id, destination_id: 'd' },
          { v: 1, kind: 'release', account_id: event.account_id, destination_id: 'd' },
        ]),
      );
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('refuses a second gateway on a data dir in use, and close() waits for the batch in flight', async () => {
    const dataDir = await tempDir();
    let finished = false;
    let started = false;
    const deliver: SqsHandler = async () => {
      started = true;
      await new Promise((r) => setTimeout(r, 400));
      finished = true;
    };
    try {
      const gateway = await startGateway({ port: 0, dataDir, log: () => undefined, handlers: { deliver } });
      const clients = createLocalClients(gateway.endpoints);
      await expect(startGateway({ port: 0, dataDir, log: () => undefined, handlers: {} })).rejects.toThrow(/in use/);
      await clients.sqs.send(new SendMessageCommand({ QueueUrl: gateway.resources.deliveryQueueUrl, MessageBody: 'slow' }));
      clients.destroy();
      await waitFor(() => started);

      await gateway.close();

      expect(finished).toBe(true);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

describe.skipIf(!existsSync(join(root, 'lambdas/handlers/api.ts')))('npm start (bin/local.ts) with the real handlers', () => {
  const children: ChildProcess[] = [];
  const dirs: string[] = [];

  /** SIGTERM reaches the gateway through tsx; SIGKILL would only kill tsx and orphan the gateway. */
  function stop(child: ChildProcess): Promise<number | null> {
    if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
    return new Promise((resolve) => {
      child.once('exit', (code) => resolve(code));
      child.kill('SIGTERM');
    });
  }

  afterAll(async () => {
    await Promise.all(children.map(stop));
    await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
  });

  async function launch(): Promise<{ child: ChildProcess; url: string; dataDir: string }> {
    const dataDir = await tempDir();
    dirs.push(dataDir);
    // What `npm start` runs, on the test's own Node (the same Node as vitest). tsx as a loader, not its
    // CLI: the CLI relays SIGTERM and SIGKILLs a child that does not acknowledge it within 30 ms, which
    // a busy machine misses (exit 143 instead of a clean shutdown).
    const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'bin/local.ts')], {
      cwd: root,
      env: { ...process.env, PORT: '0', HOOKGATE_DATA_DIR: dataDir, HOOKGATE_PUBLIC_URL: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let output = '';
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout?.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
        if (match?.[1]) resolve(match[1]);
      });
      child.once('exit', (code) => reject(new Error(`bin/local.ts exited with ${code}: ${output}`)));
    });
    return { child, url, dataDir };
  }

  it('prints its URL, serves /healthz from the api handler, runs side by side and stops with exit 0 on SIGTERM', async () => {
    const [a, b] = await Promise.all([launch(), launch()]);

    const [healthA, healthB] = await Promise.all([fetch(`${a.url}/healthz`), fetch(`${b.url}/healthz`)]);
    const exitCode = await stop(a.child);

    expect(a.url).not.toBe(b.url);
    expect(healthA.status).toBe(200);
    expect(healthB.status).toBe(200);
    expect(await healthA.json()).toMatchObject({ data: expect.anything(), duration_ms: expect.any(Number) });
    expect(exitCode).toBe(0);
  });
});

describe.skipIf(!existsSync(join(root, 'lambdas/handlers/deliver.ts')))('the deliver function on a thread of its own', () => {
  it('delivers with the real handlers, runs the HTTP thread below it in priority, and close() ends the thread', async () => {
    const dataDir = await tempDir();
    const sink = await startSink();
    const threadId = () => Number(readlinkSync('/proc/thread-self').split('/').pop());
    const niceBefore = process.platform === 'linux' ? getPriority(threadId()) : 0;
    const gateway = await startGateway({ port: 0, dataDir, log: () => undefined, env: { ...DELIVERY_TEST_ENV, HOOKGATE_LOG_LEVEL: 'error' } });
    try {
      const deliver = gateway.threads.deliver;
      expect(deliver).toBeDefined();
      const exited = new Promise<number>((resolve) => deliver?.once('exit', resolve));
      const call = httpClient(gateway.url);
      const { key, source } = await accountWithSource(call);
      const destination = await addDestination(call, key, { url: `${sink.url}/threaded` });
      await addRoute(call, key, { destination_id: destination.id });

      const accepted = await ingest(call, source.path_token, '{"n":1}');
      expect(accepted.status).toBe(202);
      await sink.waitForPath('/threaded', 1);
      expect(sink.received[0]?.headers['webhook-signature']).toBeTruthy();
      if (process.platform === 'linux') expect(getPriority(threadId())).toBe(Math.min(19, niceBefore + 4));

      await gateway.close();
      expect(await exited).toBeTypeOf('number');
    } finally {
      await gateway.close();
      await sink.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
