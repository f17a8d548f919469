import { describe, expect, it } from 'vitest';
import { addCounts, erasedAttempt, erasureCountsOf, exportsWrittenBefore, isSubject, NO_ERASURES, subjectAt, tombstoneOf } from '../../lambdas/domain/erasure';
import { isJsonPointer } from '../../lambdas/domain/json-pointer';

const payload = { customer: { id: 'cus_1', n: 42, big: Number.POSITIVE_INFINITY, nested: [{ 'a/b': 'slash', 'm~n': 'tilde' }] }, empty: '', long: 'x'.repeat(257), flag: true };

describe('the data subject a pointer names in a payload', () => {
  it.each<[string, unknown, string | undefined]>([
    ['a string member', '/customer/id', 'cus_1'],
    ['a number, as its text', '/customer/n', '42'],
    ['a number that is not finite is none', '/customer/big', undefined],
    ['an array index', '/customer/nested/0/a~1b', 'slash'],
    ['an escaped tilde', '/customer/nested/0/m~0n', 'tilde'],
    ['an index that is no number', '/customer/nested/first', undefined],
    ['a missing member', '/customer/email', undefined],
    ['an object is no subject', '/customer', undefined],
    ['a boolean is no subject', '/flag', undefined],
    ['an empty string is no subject', '/empty', undefined],
    ['longer than 256 characters is no subject', '/long', undefined],
    ['the whole document is never one', '', undefined],
    ['an inherited member is not found', '/customer/constructor', undefined],
  ])('%s', (_name, pointer, expected) => {
    expect(subjectAt(payload, pointer as string)).toBe(expected);
  });

  it.each([
    ['/a/b', true],
    ['/a~0b~1c', true],
    ['/', true],
    ['a/b', false],
    ['', false],
    ['/a~2', false],
    ['/a~', false],
  ])('%s is a pointer: %s', (pointer, expected) => {
    expect(isJsonPointer(pointer)).toBe(expected);
  });

  it.each([
    ['u', true],
    ['x'.repeat(256), true],
    ['😀'.repeat(256), true],
    ['x'.repeat(257), false],
    ['', false],
    [7, false],
  ])('%j is a subject: %s', (value, expected) => {
    expect(isSubject(value)).toBe(expected);
  });
});

describe('what an erasure counts', () => {
  it.each([
    ['a live event with an inline body and two response bodies', { live: true, payloadObject: undefined, requestBody: true, responseBodies: 2 }, { events: 1, payload_objects: 0, request_bodies: 1, response_bodies: 2 }],
    ['a body in the payload bucket', { live: true, payloadObject: 'payloads/r1/a/e', requestBody: true, responseBodies: 0 }, { events: 1, payload_objects: 1, request_bodies: 1, response_bodies: 0 }],
    ['a tombstone already', { live: false, payloadObject: undefined, requestBody: false, responseBodies: 0 }, NO_ERASURES],
    ['an event gone with retention, its body left', { live: false, payloadObject: undefined, requestBody: true, responseBodies: 0 }, { ...NO_ERASURES, request_bodies: 1 }],
  ])('%s', (_name, plan, expected) => {
    expect(erasureCountsOf(plan)).toEqual(expected);
  });

  it('adds counts field by field', () => {
    expect(addCounts({ events: 1, payload_objects: 2, request_bodies: 3, response_bodies: 4 }, { events: 10, payload_objects: 20, request_bodies: 30, response_bodies: 40 })).toEqual({
      events: 11,
      payload_objects: 22,
      request_bodies: 33,
      response_bodies: 44,
    });
  });

  it('an attempt keeps its facts and loses its response body; an empty one was nothing to erase', () => {
    const attempt = { id: 'a', response_status: 200, response_body: 'hello' };
    expect(erasedAttempt(attempt)).toEqual({ attempt: { id: 'a', response_status: 200, response_body: '' }, erased: true });
    expect(erasedAttempt({ ...attempt, response_body: '' }).erased).toBe(false);
  });

  it('names the ready exports written before the erasure only', () => {
    const exports = [
      { id: 'before', status: 'ready', created_at: '2026-01-01T00:00:00.000Z' },
      { id: 'failed', status: 'failed', created_at: '2026-01-01T00:00:00.000Z' },
      { id: 'after', status: 'ready', created_at: '2026-01-03T00:00:00.000Z' },
    ];
    expect(exportsWrittenBefore(exports, '2026-01-02T00:00:00.000Z')).toEqual(['before']);
  });
});

describe('an event as a tombstone', () => {
  it.each([
    ['unkeyed', { id: 'e' }, { id: 'e', payload_erased: true }],
    ['keyed, in no line', { id: 'e', ordering_key: 'a@b.c' }, { id: 'e', payload_erased: true }],
    ['keyed, its lines named by the key’s HMAC', { id: 'e', ordering_key: 'a@b.c', line_key: 'h', lines: { d: 1 } }, { id: 'e', line_key: 'h', lines: { d: 1 }, payload_erased: true }],
    ['keyed, its lines named by the key itself (accepted before line_key)', { id: 'e', ordering_key: 'a@b.c', lines: { d: 1 } }, { id: 'e', line_key: 'a@b.c', lines: { d: 1 }, payload_erased: true }],
    ['a tombstone already', { id: 'e', payload_erased: true, line_key: 'h' }, { id: 'e', payload_erased: true, line_key: 'h' }],
  ])('%s', (_name, event: { id: string; ordering_key?: string; line_key?: string; lines?: Record<string, number>; payload_erased?: boolean }, expected) => {
    expect(tombstoneOf(event)).toStrictEqual(expected);
  });
});
