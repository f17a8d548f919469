import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { fifoMessageGroup, lineVerdict, linesToJoin, orderedWait, orderingKeyAt, orderingKeyIssue, unwrittenHead, type OrderingMode } from '../../lambdas/domain/ordering';
import { pointerTokens } from '../../lambdas/domain/json-pointer';
import type { DeliveryState } from '../../lambdas/domain/progress';
import { deliveryState } from '../fixtures/records';

const now = new Date('2026-11-28T12:00:00.000Z');
const LEASE_MS = 60_000;

describe('orderingKeyIssue', () => {
  it.each([
    ['order-1', undefined],
    ['cus_42/eu', undefined],
    ['é'.repeat(128), undefined],
    ['客户', undefined],
    ['', 'ordering_key must be 1 to 128 characters'],
    ['x'.repeat(129), 'ordering_key must be 1 to 128 characters'],
    ['a b', 'ordering_key must be visible characters only (no spaces or control characters)'],
    ['a\u0000b', 'ordering_key must be visible characters only (no spaces or control characters)'],
    ['a\u200bb', 'ordering_key must be visible characters only (no spaces or control characters)'],
  ])('%j → %s', (key, issue) => {
    expect(orderingKeyIssue(key)).toBe(issue);
  });
});

describe('fifoMessageGroup', () => {
  const digest = (key: string) => `k_${createHash('sha256').update(key, 'utf8').digest('base64url')}`;
  it.each<[string, string | null, string]>([
    ['no key: the destination', null, 'dest-1'],
    ['an ASCII key as it is', 'cus_42', 'cus_42'],
    ['ASCII punctuation kept', 'order#7/line~1', 'order#7/line~1'],
    ['a key of 128 ASCII characters as it is', 'k'.repeat(128), 'k'.repeat(128)],
    ['a non-ASCII key as its digest (the services refuse it)', 'café', digest('café')],
    ['a Japanese key as its digest', 'ユーザー42', digest('ユーザー42')],
  ])('%s', (_label, key, group) => expect(fifoMessageGroup(key, 'dest-1')).toBe(group));

  it('gives two keys two groups and a digest the services take', () => {
    expect(fifoMessageGroup('café', 'd')).not.toBe(fifoMessageGroup('cafe\u0301', 'd'));
    expect(fifoMessageGroup('ユーザー42', 'd')).toMatch(/^[\x21-\x7e]{1,128}$/);
  });
});

describe('pointerTokens (RFC 6901)', () => {
  it.each([
    ['/customer/id', ['customer', 'id']],
    ['/a~1b/c~0d', ['a/b', 'c~d']],
    ['/items/0', ['items', '0']],
    ['/', ['']],
    ['', undefined],
    ['customer', undefined],
    ['/a~2', undefined],
    ['/a~', undefined],
  ])('%j → %j', (pointer, tokens) => {
    expect(pointerTokens(pointer)).toEqual(tokens);
  });
});

describe('orderingKeyAt', () => {
  const payload = { customer: { id: 'cus_7', n: 42, deep: { x: 1 }, spaced: 'a b' }, items: [{ sku: 'sku-1' }], 'a/b': 'slash' };
  it.each([
    ['/customer/id', 'cus_7'],
    ['/customer/n', '42'],
    ['/items/0/sku', 'sku-1'],
    ['/a~1b', 'slash'],
    ['/customer/deep', null],
    ['/customer/spaced', null],
    ['/customer/missing', null],
    ['/items/01/sku', null],
    ['/items/length', null],
    ['not-a-pointer', null],
  ])('%s → %j', (pointer, key) => {
    expect(orderingKeyAt(payload, pointer)).toBe(key);
  });

  it('finds nothing in a payload that is no object', () => {
    expect(orderingKeyAt('text', '/customer/id')).toBeNull();
    expect(orderingKeyAt(null, '/customer/id')).toBeNull();
  });
});

describe('linesToJoin', () => {
  const modes: Record<string, OrderingMode | undefined> = { ordered: 'per_key', plain: 'none', old: undefined, ended: 'per_key' };
  const deliveries: Record<string, DeliveryState> = {
    ordered: deliveryState(),
    plain: deliveryState(),
    old: deliveryState(),
    ended: deliveryState({ status: 'dead_letter', end_reason: 'payload_too_large' }),
  };
  it.each([
    ['a keyed event joins the lines of its per_key destinations only', 'k', ['ordered']],
    ['an unkeyed event joins none', null, []],
  ] as const)('%s', (_case, key, lines) => {
    expect(linesToJoin(key, deliveries, (id) => modes[id])).toEqual(lines);
  });
});

describe('lineVerdict', () => {
  it.each([
    ['its own head', 'e1', 'e1', { kind: 'go' }],
    ['an empty line (it left already)', undefined, 'e1', { kind: 'go' }],
    ['behind an earlier event', 'e0', 'e1', { kind: 'wait', behind: 'e0' }],
  ] as const)('%s', (_case, head, eventId, verdict) => {
    expect(lineVerdict(head, eventId)).toEqual(verdict);
  });
});

describe('orderedWait', () => {
  const claimedAt = new Date(now.getTime() - 1000).toISOString();
  it.each([
    ['a queued delivery waits, no try spent', deliveryState(), { status: 'queued', attempts: 0, waiting: { reason: 'ordering', until: null, behind: 'e0' } }],
    ['waiting behind another event: shown behind the new head', deliveryState({ waiting: { reason: 'ordering', until: null, behind: 'older' } }), { waiting: { reason: 'ordering', until: null, behind: 'e0' } }],
    ['already shown behind the same event: no write', deliveryState({ waiting: { reason: 'ordering', until: null, behind: 'e0' } }), undefined],
    ['ended: left alone', deliveryState({ status: 'delivered', attempts: 1 }), undefined],
    ['in flight: left alone', deliveryState({ status: 'delivering', claimed_at: claimedAt }), undefined],
  ] as const)('%s', (_case, current, expected) => {
    const next = orderedWait(current, 'e0', now, LEASE_MS);
    if (expected === undefined) expect(next).toBeUndefined();
    else expect(next).toMatchObject(expected);
  });
});

describe('unwrittenHead', () => {
  const joinedAt = now.getTime() - 10_000;
  it.each([
    ['joined 10 s ago, a 60 s grace: looked at again twice the grace after it joined', 60, { kind: 'recheck', at: new Date(joinedAt + 120_000) }],
    ['joined 10 s ago, a 2 s grace: its accept died, its place goes', 2, { kind: 'orphan' }],
    ['joined exactly twice a 5 s grace ago: its place goes', 5, { kind: 'orphan' }],
  ] as const)('%s', (_case, grace, verdict) => {
    expect(unwrittenHead(joinedAt, now, grace)).toEqual(verdict);
  });
});
