import { describe, expect, it } from 'vitest';
import { isSendableHeaderValue } from '../../lambdas/domain/header-values';
import {
  judgeBody,
  jsonStringBytes,
  LAMBDA_PAYLOAD_LIMIT_BYTES,
  MAX_BINARY_BODY_BYTES,
  MAX_BODY_BYTES,
  MAX_ENCODED_BODY_BYTES,
  responseFits,
} from '../../lambdas/domain/payload-limits';

describe('request body limits', () => {
  it('leaves the event 128 KiB for headers and context, so binary bodies stop near 4.4 MiB', () => {
    expect(MAX_ENCODED_BODY_BYTES).toBe(6_160_384);
    expect(MAX_BINARY_BODY_BYTES).toBe(4_620_285);
    expect(Math.ceil(MAX_BINARY_BODY_BYTES / 3) * 4 + 2).toBeLessThanOrEqual(MAX_ENCODED_BODY_BYTES);
    expect(Math.ceil((MAX_BINARY_BODY_BYTES + 3) / 3) * 4 + 2).toBeGreaterThan(MAX_ENCODED_BODY_BYTES);
  });

  it.each([
    ['plain text at 5 MiB', MAX_BODY_BYTES, MAX_BODY_BYTES + 2, { ok: true }],
    ['one byte over 5 MiB', MAX_BODY_BYTES + 1, MAX_BODY_BYTES + 3, { ok: false, reason: 'raw_size' }],
    ['escapes push it over', 4_000_000, MAX_ENCODED_BODY_BYTES + 1, { ok: false, reason: 'encoded_size' }],
    ['exactly at the encoded limit', 4_000_000, MAX_ENCODED_BODY_BYTES, { ok: true }],
    ['empty', 0, 0, { ok: true }],
  ] as const)('%s', (_label, raw, encoded, verdict) => {
    expect(judgeBody(raw, encoded)).toEqual(verdict);
  });

  it.each([
    ['abc', 5],
    ['"', 4],
    ['\\', 4],
    ['\u0001', 8],
    ['\n', 4],
    ['é', 4],
    ['注', 5],
  ])('the JSON string literal of %j weighs %i bytes', (text, bytes) => {
    expect(jsonStringBytes(text)).toBe(bytes);
  });
});

describe('responses', () => {
  it('keeps 16 KiB of the 6,291,456 bytes for status, headers and duration_ms', () => {
    expect(responseFits(LAMBDA_PAYLOAD_LIMIT_BYTES - 16 * 1024)).toBe(true);
    expect(responseFits(LAMBDA_PAYLOAD_LIMIT_BYTES - 16 * 1024 + 1)).toBe(false);
  });
});

describe('header values that go out byte for byte', () => {
  it.each([
    ['payment.succeeded', true],
    ['Bearer abc.def-ghi_jkl~', true],
    ['a b\tc', true],
    ['!', true],
    ['注文.作成', false],
    ['café', false],
    ['a\r\nX-Injected: 1', false],
    ['nul\u0000', false],
    [' leading', false],
    ['trailing ', false],
    ['', false],
    ['\u007f', false],
  ])('%j → %s', (value, sendable) => {
    expect(isSendableHeaderValue(value)).toBe(sendable);
  });
});
