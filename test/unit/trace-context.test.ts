import { describe, expect, it } from 'vitest';
import { parseTraceparent, startedTrace, traceOf, traceparentOf } from '../../lambdas/domain/trace-context';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const SPAN = '00f067aa0ba902b7';
const valid = (flags = '01') => `00-${TRACE}-${SPAN}-${flags}`;

describe('parseTraceparent', () => {
  it.each([
    ['sampled', valid('01'), { id: TRACE, parent: SPAN, sampled: true }],
    ['not sampled', valid('00'), { id: TRACE, parent: SPAN, sampled: false }],
    ['other flags beside sampled', valid('03'), { id: TRACE, parent: SPAN, sampled: true }],
    ['other flags without sampled', valid('fe'), { id: TRACE, parent: SPAN, sampled: false }],
  ])('keeps a valid one (%s)', (_, header, expected) => {
    expect(parseTraceparent(header)).toEqual(expected);
  });

  it.each([
    ['absent', undefined],
    ['empty', ''],
    ['upper-case hex', valid().toUpperCase()],
    ['upper-case trace id', `00-${TRACE.toUpperCase()}-${SPAN}-01`],
    ['all-zero trace id', `00-${'0'.repeat(32)}-${SPAN}-01`],
    ['all-zero span id', `00-${TRACE}-${'0'.repeat(16)}-01`],
    ['version ff', `ff-${TRACE}-${SPAN}-01`],
    ['version 01 (only 00 is known)', `01-${TRACE}-${SPAN}-01`],
    ['version 00 with more after it', `${valid()}-extra`],
    ['56 characters', `${valid()}0`],
    ['short trace id', `00-${TRACE.slice(1)}-${SPAN}-01`],
    ['short span id', `00-${TRACE}-${SPAN.slice(1)}-01`],
    ['one-digit flags', `00-${TRACE}-${SPAN}-1`],
    ['not hex', `00-${TRACE.slice(0, -1)}g-${SPAN}-01`],
    ['leading space', ` ${valid()}`],
    ['trailing space', `${valid()} `],
    ['underscores for dashes', valid().replaceAll('-', '_')],
    ['two headers joined', `${valid()}, ${valid()}`],
  ])('ignores an invalid one (%s)', (_, header) => {
    expect(parseTraceparent(header)).toBeNull();
  });
});

describe('startedTrace', () => {
  it.each([
    ['random bytes as hex', Uint8Array.from({ length: 16 }, (_, i) => i + 1), '0102030405060708090a0b0c0d0e0f10'],
    ['only the first 16 bytes', new Uint8Array(20).fill(0xab), 'ab'.repeat(16)],
    ['never all zero', new Uint8Array(16), `${'0'.repeat(31)}1`],
  ])('makes a sampled trace of %s, with no parent', (_, random, id) => {
    expect(startedTrace(random)).toEqual({ id, parent: null, sampled: true });
  });

  it('refuses too few random bytes', () => {
    expect(() => startedTrace(new Uint8Array(15))).toThrow('an id needs 16 random bytes');
  });
});

describe('traceparentOf', () => {
  const span = Uint8Array.from([1, 2, 3, 4, 5, 6, 7, 8]);
  it.each([
    ['sampled', { id: TRACE, parent: SPAN, sampled: true }, span, `00-${TRACE}-0102030405060708-01`],
    ['not sampled', { id: TRACE, parent: SPAN, sampled: false }, span, `00-${TRACE}-0102030405060708-00`],
    ['started by Hookgate', { id: TRACE, parent: null, sampled: true }, span, `00-${TRACE}-0102030405060708-01`],
    ['an all-zero span made valid', { id: TRACE, parent: SPAN, sampled: true }, new Uint8Array(8), `00-${TRACE}-0000000000000001-01`],
  ])('keeps the trace and takes a new span (%s)', (_, trace, random, expected) => {
    const header = traceparentOf(trace, random);
    expect(header).toBe(expected);
    expect(parseTraceparent(header)?.id).toBe(TRACE);
  });

  it('gives every try its own span', () => {
    const trace = { id: TRACE, parent: SPAN, sampled: true };
    const first = parseTraceparent(traceparentOf(trace, new Uint8Array(8).fill(1)));
    const second = parseTraceparent(traceparentOf(trace, new Uint8Array(8).fill(2)));
    expect(first?.id).toBe(second?.id);
    expect(first?.parent).not.toBe(second?.parent);
  });
});

describe('traceOf', () => {
  const eventId = '018bcfe5-6800-7abc-8def-0123456789ab';
  it.each([
    ['the kept trace', { id: TRACE, parent: SPAN, sampled: false }, { id: TRACE, parent: SPAN, sampled: false }],
    ['one made from the id of an event stored before traces were kept', undefined, { id: '018bcfe568007abc8def0123456789ab', parent: null, sampled: true }],
  ])('is %s', (_, kept, expected) => {
    const trace = traceOf(kept, eventId);
    expect(trace).toEqual(expected);
    expect(parseTraceparent(traceparentOf(trace, new Uint8Array(8).fill(9)))?.id).toBe(expected.id);
  });
});
