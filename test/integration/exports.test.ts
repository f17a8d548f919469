import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newEventItems } from '../../lambdas/events/record';
import { BUCKETS } from '../../lambdas/shared/resource-definitions';
import { newId } from '../../lambdas/shared/secrets';
import { batchWrite } from '../../lambdas/store/table';
import { LOCAL_CREDENTIALS } from '../../local/aws-clients';
import { bootGateway } from '../fixtures/gateway';
import { createAccount, typedClient, type Call } from '../fixtures/http-client';
import { eventRecord } from '../fixtures/records';
import { eventually } from '../fixtures/sink';

let env: Awaited<ReturnType<typeof bootGateway>>;
let call: Call;
let key: string;
const inbound: string[] = [];
const outbound: string[] = [];
let middle = '';

// The poll interval is an hour: every job here is done by the worker started when the job is created.
beforeAll(async () => {
  env = await bootGateway({ SCHEDULER_EXPORT_POLL_INTERVAL: '3600' });
  call = env.call;
  ({ key } = await createAccount(call));
  const hookgate = typedClient(call, key);
  const source = await hookgate.sources.create({ name: 's' });
  for (const type of ['order.created', 'tricky,"type"', 'order.paid']) {
    const res = await call('POST', `/ingest/${source.path_token}`, { rawBody: '{}', headers: { 'x-event-type': type } });
    inbound.push(res.json.data.id);
  }
  await new Promise((resolve) => setTimeout(resolve, 20));
  middle = new Date().toISOString();
  await new Promise((resolve) => setTimeout(resolve, 20));
  for (const payload of ['{"a":1}', '{"a":2}']) {
    outbound.push((await hookgate.outboundEvents.publish({ payload, event_type: 'out.x', external_event_id: `ext-${payload}` })).id);
  }
});
afterAll(() => env?.stop());

async function exportOf(body: Record<string, unknown>) {
  const created = await call('POST', '/v1/exports', { key, body });
  expect(created.status).toBe(201);
  const job = await eventually(
    () => typedClient(call, key).exports.get(created.json.data.id),
    (j) => j.status === 'ready' || j.status === 'failed',
  );
  expect(job.status).toBe('ready');
  const download = await call('GET', `/v1/exports/${job.id}/download`, { key });
  expect(download.status).toBe(302);
  const file = await fetch(download.headers.get('location') ?? '');
  return { job, file, text: await file.text() };
}

describe('POST /v1/exports', () => {
  it('answers 201 with a queued job, nothing started yet', async () => {
    const res = await call('POST', '/v1/exports', { key, body: {} });
    expect(res.status).toBe(201);
    expect(res.json.data).toEqual({
      id: expect.any(String),
      account_id: expect.any(String),
      status: 'queued',
      format: 'json',
      filters: {},
      row_count: null,
      created_at: expect.any(String),
      started_at: null,
      completed_at: null,
      error_message: null,
    });
  });

  it.each([
    [{ format: 'xml' }, 'format must be one of: json, csv'],
    [{ filters: { direction: 'sideways' } }, 'filters.direction must be one of: inbound, outbound'],
    [{ filters: { status: 'lost' } }, 'filters.status must be one of: received, accepted, queued, delivering, delivered, retry_scheduled, dead_letter, replayed'],
    [{ filters: { date_from: 'yesterday' } }, 'filters.date_from must be an ISO 8601 timestamp'],
    [{ filters: { date_to: '2026-13-45T00:00:00Z' } }, 'filters.date_to must be an ISO 8601 timestamp'],
    [{ filters: { date_from: '2026-02-01T00:00:00Z', date_to: '2026-01-01T00:00:00Z' } }, 'filters.date_from must not be after filters.date_to'],
    [{ filters: { colour: 'red' } }, 'unknown field: filters.colour'],
    [{ filters: 'all' }, 'filters must be an object'],
  ])('refuses %j with 400', async (body, message) => {
    const res = await call('POST', '/v1/exports', { key, body });
    expect(res.status).toBe(400);
    expect(res.json.error).toBe(message);
  });
});

describe('export files', () => {
  it('exports every event as JSON by default, newest first, with the contract columns', async () => {
    const { job, file, text } = await exportOf({});
    expect(job).toMatchObject({ row_count: 5, started_at: expect.any(String), completed_at: expect.any(String), error_message: null });
    expect(file.headers.get('content-type')).toBe('application/json');
    const rows = JSON.parse(text);
    expect(rows.map((r: { id: string }) => r.id)).toEqual([...outbound].reverse().concat([...inbound].reverse()));
    expect(Object.keys(rows[0])).toEqual(['id', 'direction', 'event_type', 'external_event_id', 'status', 'attempts_count', 'received_at', 'created_at']);
  });

  it('exports CSV with a header and proper quoting', async () => {
    const { job, file, text } = await exportOf({ format: 'csv', filters: { direction: 'inbound' } });
    expect(job.row_count).toBe(3);
    expect(file.headers.get('content-type')).toBe('text/csv');
    const lines = text.trimEnd().split('\r\n');
    expect(lines[0]).toBe('id,direction,event_type,external_event_id,status,attempts_count,received_at,created_at');
    expect(lines).toHaveLength(4);
    expect(lines[2]).toContain(`${inbound[1]},inbound,"tricky,""type""",,accepted,0,`);
  });

  it('applies each filter', async () => {
    expect((await exportOf({ filters: { direction: 'outbound' } })).job.row_count).toBe(2);
    expect((await exportOf({ filters: { status: 'accepted', direction: 'inbound' } })).job.row_count).toBe(3);
    expect((await exportOf({ filters: { status: 'dead_letter' } })).job.row_count).toBe(0);
    expect(JSON.parse((await exportOf({ filters: { status: 'dead_letter' } })).text)).toEqual([]);
    const after = await exportOf({ filters: { date_from: middle } });
    expect(JSON.parse(after.text).map((r: { id: string }) => r.id).sort()).toEqual([...outbound].sort());
    const before = await exportOf({ filters: { date_to: middle } });
    expect(JSON.parse(before.text).map((r: { id: string }) => r.id).sort()).toEqual([...inbound].sort());
  });
});

describe('listing, detail and download errors', () => {
  it('lists newest first with limit and offset, and refuses out-of-range values', async () => {
    const all = await call('GET', '/v1/exports?limit=200', { key });
    expect(all.status).toBe(200);
    const ids = all.json.data.map((j: { id: string }) => j.id);
    expect([...ids].sort().reverse()).toEqual(ids);
    const hookgate = typedClient(call, key);
    const page = await hookgate.exports.list({ limit: 2, offset: 1 });
    expect(page.map((j) => j.id)).toEqual(ids.slice(1, 3));
    expect((await hookgate.exports.list()).length).toBe(Math.min(25, ids.length));
    for (const [query, message] of [
      ['limit=0', 'limit must be at least 1'],
      ['limit=201', 'limit must be at most 200'],
      ['offset=-1', 'offset must be at least 0'],
      ['limit=x', 'limit must be a number'],
    ]) {
      const res = await call('GET', `/v1/exports?${query}`, { key });
      expect(res.status, query).toBe(400);
      expect(res.json.error).toBe(message);
    }
  });

  it('answers 400 for invalid ids, 404 for missing or foreign jobs', async () => {
    const stranger = (await createAccount(call)).key;
    const ours = (await typedClient(call, key).exports.create()).id;
    expect((await call('GET', '/v1/exports/nope', { key })).json.error).toBe('invalid id');
    expect((await call('GET', '/v1/exports/nope/download', { key })).status).toBe(400);
    expect((await call('GET', '/v1/exports/0191a5e4-0000-7000-8000-000000000000', { key })).status).toBe(404);
    expect((await call('GET', '/v1/exports/0191a5e4-0000-7000-8000-000000000000/download', { key })).status).toBe(404);
    expect((await call('GET', `/v1/exports/${ours}`, { key: stranger })).status).toBe(404);
    expect((await call('GET', `/v1/exports/${ours}/download`, { key: stranger })).status).toBe(404);
    expect(await typedClient(call, stranger).exports.list()).toEqual([]);
  });
});

describe('expiry', () => {
  it('a job expires with its file: TTL set at completion, and a download after that answers 410', async () => {
    const { job } = await exportOf({});
    const jobKey = { pk: `ACCT#${job.account_id}`, sk: `EXPORT#${job.id}` };
    const table = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1', endpoint: env.gateway.endpoints.dynamodb, credentials: LOCAL_CREDENTIALS }));
    const stored = (await table.send(new GetCommand({ TableName: env.gateway.resources.tableName, Key: jobKey }))).Item;
    const days = BUCKETS.exports.fileExpiryDays;
    expect(stored?.expires_at).toBe(Math.floor(Date.parse(job.completed_at!) / 1000) + days * 86_400);

    // The file's lifetime over (its bucket's lifecycle rule has deleted it): no redirect to nothing.
    const longAgo = new Date(Date.now() - (days + 1) * 86_400_000).toISOString();
    await table.send(new UpdateCommand({ TableName: env.gateway.resources.tableName, Key: jobKey, UpdateExpression: 'SET completed_at = :t', ExpressionAttributeValues: { ':t': longAgo } }));
    const download = await call('GET', `/v1/exports/${job.id}/download`, { key });
    expect(download.status).toBe(410);
    expect(download.json.error).toBe('export file expired');
    table.destroy();
  });
});

describe('the 10,000-row cap', () => {
  /**
   * Stores `count` outbound events as the items a publish that no route takes leaves (each one's body,
   * then its status item, which the export reads), 25 to a request and a few requests at a time.
   * Published through the API, 10,100 took 20 s of a 25 s test.
   */
  async function writeEvents(accountId: string, count: number) {
    const items = Array.from({ length: count }, (_, n) => {
      const at = new Date().toISOString();
      const body = Buffer.from(String(n));
      const event = eventRecord({ id: newId(), account_id: accountId, direction: 'outbound', created_by: 'api', status: 'accepted', deliveries: {}, received_at: at, created_at: at, version: 0 });
      return newEventItems(event, { body, body_size: body.length, content_type: null, headers: {}, payload_hash: 'sha256:test' });
    });
    const lanes = 4;
    await Promise.all(Array.from({ length: lanes }, (_, lane) => batchWrite(items.filter((_, n) => n % lanes === lane).flatMap((pair) => pair.map((item) => ({ put: item }))))));
  }

  it('stops at 10,000 rows', async () => {
    const { key: bulkKey, accountId } = await createAccount(call);
    await writeEvents(accountId, 10_100);
    const hookgate = typedClient(call, bulkKey);
    const created = await hookgate.exports.create({ format: 'csv' });
    const job = await eventually(() => hookgate.exports.get(created.id), (j) => j.status === 'ready', 60_000);
    expect(job.row_count).toBe(10_000);
    const file = await fetch(await hookgate.exports.downloadUrl(job.id));
    expect((await file.text()).trimEnd().split('\r\n')).toHaveLength(10_001);
  }, 180_000);
});
