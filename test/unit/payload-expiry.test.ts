import { CopyObjectCommand, DeleteObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { INLINE_BODY_LIMIT_BYTES, payloadKey } from '../../lambdas/adapters/payloads';
import { MAX_RETENTION_DAYS } from '../../lambdas/domain/plans';
import {
  PAYLOAD_BACKSTOP_EXPIRY_DAYS,
  PAYLOAD_EXPIRY_RULES,
  payloadKeyClass,
  payloadRetentionClass,
  TTL_MARGIN_DAYS,
} from '../../lambdas/domain/retention';
import { acceptEvent } from '../../lambdas/events/accept';
import { copyEvent } from '../../lambdas/replays/replay-event';
import { resetConfigForTests } from '../../lambdas/shared/config';
import { UNIT_ENV } from '../fixtures/apigw';
import { eventRecord, newEvent, routingTable } from '../fixtures/records';

const DAY_SECONDS = 86_400;

describe('the retention class of a payload object', () => {
  it.each([
    [1, 1],
    [2, 7],
    [7, 7],
    [8, 30],
    [30, 30],
    [31, 90],
    [45, 90],
    [90, 90],
    [91, 365],
    [365, 365],
    [366, 3650],
    [3650, 3650],
  ])('a window of %i days is filed under class %i', (days, retentionClass) => {
    expect(payloadRetentionClass(days)).toBe(retentionClass);
    const key = payloadKey('acct', 'evt', days);
    expect(key).toBe(`payloads/r${retentionClass}/acct/evt`);
    expect(payloadKeyClass(key)).toBe(retentionClass);
  });

  it.each([
    ['the older layout', 'payloads/0190a1b2-0000-7000-8000-000000000001/evt'],
    ['a prefix that is no class', 'payloads/r2/acct/evt'],
    ['another bucket layout', 'exports/r1/acct/job.jsonl'],
  ])('%s has no class', (_what, key) => {
    expect(payloadKeyClass(key)).toBeUndefined();
  });
});

// ---------------------------------------------------------------------------------------------------
// In AWS nothing deletes a payload object but the bucket's lifecycle rules (TTL removes the event's
// items and never calls S3), which no emulator runs: S3 is mocked, and the rules are the ones the
// stack gives the bucket (test/infra/stateful-stack.test.ts checks the synthesized bucket has exactly
// these; synthesizing here would take the unit run seconds).

const ddb = mockClient(DynamoDBDocumentClient);
const s3 = mockClient(S3Client);
const sqs = mockClient(SQSClient);
const NOW = new Date('2026-05-04T10:00:00.000Z');

const rules: Array<{ prefix?: string; expirationDays: number }> = [...PAYLOAD_EXPIRY_RULES, { expirationDays: PAYLOAD_BACKSTOP_EXPIRY_DAYS }];

beforeAll(() => {
  Object.assign(process.env, UNIT_ENV, { HOOKGATE_LOG_LEVEL: 'error' });
  resetConfigForTests();
});

beforeEach(() => {
  ddb.reset();
  s3.reset();
  sqs.reset();
  ddb.on(PutCommand).resolves({});
  s3.on(PutObjectCommand).resolves({});
  s3.on(CopyObjectCommand).resolves({});
  s3.on(DeleteObjectCommand).resolves({});
  sqs.on(SendMessageBatchCommand).resolves({ Successful: [], Failed: [] });
});

/** When S3 deletes an object put at `putAt`: the shortest expiration of the rules matching its key (S3 then rounds up to a midnight). */
function objectExpiresAt(key: string, putAt: Date): number {
  const matching = rules.filter((rule) => key.startsWith(rule.prefix ?? ''));
  return Math.floor(putAt.getTime() / 1000) + Math.min(...matching.map((rule) => rule.expirationDays)) * DAY_SECONDS;
}

let accounts = 0;
/** A routing table with no routes: the event settles (`accepted`) as it is stored, so its status item gets its TTL at once. */
const routingOf = (retentionDays: number) =>
  routingTable({ id: `0190a1b2-0000-7000-8000-${String(++accounts).padStart(12, '0')}`, plan: 'enterprise', retention_days: retentionDays });

/** What accept wrote: the object's key, and the TTLs of the status and body items that point at it. */
function written() {
  const key = String(s3.commandCalls(PutObjectCommand)[0]?.args[0].input.Key ?? s3.commandCalls(CopyObjectCommand)[0]?.args[0].input.Key);
  const items = ddb.commandCalls(PutCommand).map((call) => call.args[0].input.Item as Record<string, unknown>);
  const status = items.find((item) => item.sk === 'EVENT');
  const body = items.find((item) => item.sk === 'BODY');
  expect(body?.body_ref).toBe(key);
  return { key, statusExpiresAt: Number(status?.expires_at), bodyExpiresAt: Number(body?.expires_at) };
}

describe('in AWS a large payload expires with its event, by its bucket rule alone', () => {
  it.each([
    ['free', 1],
    ['pro', 30],
    ['enterprise', 90],
    ['enterprise at the longest window', MAX_RETENTION_DAYS],
  ])('%s (%i days): no sooner than the event’s TTL or its body item’s, no later than the TTL plus the margin', async (_plan, days) => {
    const routing = routingOf(days);
    await acceptEvent(newEvent(routing, { body: Buffer.alloc(INLINE_BODY_LIMIT_BYTES + 1, 0x61), now: NOW }));
    const { key, statusExpiresAt, bodyExpiresAt } = written();
    expect(key.startsWith(`payloads/r${days}/`)).toBe(true);
    expect(statusExpiresAt).toBe(Math.floor(NOW.getTime() / 1000) + days * DAY_SECONDS);
    const expiresAt = objectExpiresAt(key, NOW);
    expect(expiresAt).toBeGreaterThanOrEqual(statusExpiresAt);
    // The body item is what readers follow to the object: it must never point at a deleted one.
    expect(expiresAt).toBeGreaterThanOrEqual(bodyExpiresAt);
    expect(expiresAt).toBeLessThanOrEqual(statusExpiresAt + TTL_MARGIN_DAYS * DAY_SECONDS);
  });

  it('a window between two classes takes the longer one: kept past its body item, by at most the gap to that class', async () => {
    const routing = routingOf(45);
    await acceptEvent(
      newEvent(routing, { direction: 'inbound', eventType: null, body: Buffer.alloc(INLINE_BODY_LIMIT_BYTES + 1, 0x62), contentType: null, createdBy: 'ingest', now: NOW }),
    );
    const { key, statusExpiresAt, bodyExpiresAt } = written();
    expect(key.startsWith('payloads/r90/')).toBe(true);
    const expiresAt = objectExpiresAt(key, NOW);
    expect(expiresAt).toBeGreaterThanOrEqual(bodyExpiresAt);
    expect(expiresAt).toBe(statusExpiresAt + (90 - 45 + TTL_MARGIN_DAYS) * DAY_SECONDS);
  });

  it('a replay’s copy is filed under the class of the account’s window today, not the original’s', async () => {
    const routing = routingOf(30);
    const accountId = routing.account.id;
    // copyEvent reads the routing table itself: the account item (its routing stamp) and its routes, none.
    ddb.on(GetCommand).resolves({ Item: { pk: `ACCT#${accountId}`, sk: 'ACCOUNT', ...routing.account, routing_version: 0 } });
    ddb.on(QueryCommand).resolves({ Items: [] });
    ddb.on(UpdateCommand).resolves({});
    const original = eventRecord({ account_id: accountId, direction: 'outbound', status: 'delivered', retention_days: 1 });
    const from = payloadKey(accountId, original.id, 1);
    const body = { body_size: INLINE_BODY_LIMIT_BYTES + 1, content_type: 'application/json', headers: {}, payload_hash: 'sha256:x', body_ref: from };
    await copyEvent(accountId, { event: original, body }, undefined, NOW);

    const copy = s3.commandCalls(CopyObjectCommand)[0]?.args[0].input;
    expect(decodeURIComponent(String(copy?.CopySource))).toBe(`${UNIT_ENV.PAYLOAD_BUCKET}/${from}`);
    const { key, statusExpiresAt, bodyExpiresAt } = written();
    expect(key.startsWith(`payloads/r30/${accountId}/`)).toBe(true);
    const expiresAt = objectExpiresAt(key, NOW);
    expect(expiresAt).toBeGreaterThanOrEqual(bodyExpiresAt);
    expect(expiresAt).toBe(statusExpiresAt + TTL_MARGIN_DAYS * DAY_SECONDS);
  });
});
