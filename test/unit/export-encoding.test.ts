import { describe, expect, it } from 'vitest';
import { csvField, csvLine } from '../../lambdas/domain/csv';
import { csvEncoder, jsonEncoder, type ExportRow } from '../../lambdas/domain/export-rows';
import { firstIdAt, lastIdAt } from '../../lambdas/domain/time-bounds';
import { uuidv7 } from '../../lambdas/domain/ids';

const row: ExportRow = {
  id: 'e1',
  direction: 'inbound',
  event_type: 'a,"b"',
  external_event_id: null,
  status: 'delivered',
  attempts_count: 2,
  received_at: '2026-01-01T00:00:00.000Z',
  created_at: '2026-01-01T00:00:00.000Z',
};

describe('CSV', () => {
  it('quotes fields with commas, quotes or line breaks, and doubles quotes (RFC 4180)', () => {
    expect(csvField('plain')).toBe('plain');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('two\nlines')).toBe('"two\nlines"');
    expect(csvField(null)).toBe('');
    expect(csvField(3)).toBe('3');
    expect(csvLine(['a', null, 'b,c'])).toBe('a,,"b,c"\r\n');
  });
  it.each([
    ['=HYPERLINK("http://evil.example","x")', `"'=HYPERLINK(""http://evil.example"",""x"")"`],
    ['+1+cmd|/c calc', `"'+1+cmd|/c calc"`],
    ['-2+3', `"'-2+3"`],
    ['@SUM(A1)', `"'@SUM(A1)"`],
    ['\t=1', `"'\t=1"`],
    ['\r=1', `"'\r=1"`],
    ['a=1', 'a=1'],
    ['payment.succeeded', 'payment.succeeded'],
  ])('neutralises a cell a spreadsheet would run as a formula (OWASP): %j', (cell, encoded) => {
    expect(csvField(cell)).toBe(encoded);
  });
  it('writes numbers as they are, even negative ones', () => {
    expect(csvField(-1)).toBe('-1');
  });
  it('encodes a header and rows', () => {
    const text = csvEncoder.header() + csvEncoder.row(row, 0) + csvEncoder.footer(1);
    expect(text).toBe(
      'id,direction,event_type,external_event_id,status,attempts_count,received_at,created_at\r\n' +
        'e1,inbound,"a,""b""",,delivered,2,2026-01-01T00:00:00.000Z,2026-01-01T00:00:00.000Z\r\n',
    );
  });
});

describe('JSON', () => {
  it('streams a valid array, empty or not', () => {
    expect(JSON.parse(jsonEncoder.header() + jsonEncoder.footer(0))).toEqual([]);
    const two = jsonEncoder.header() + jsonEncoder.row(row, 0) + jsonEncoder.row({ ...row, id: 'e2' }, 1) + jsonEncoder.footer(2);
    expect(JSON.parse(two).map((r: ExportRow) => r.id)).toEqual(['e1', 'e2']);
  });
});

describe('time bounds as id bounds', () => {
  it('every id created in a millisecond sorts between that millisecond’s first and last id', () => {
    const ms = Date.UTC(2026, 5, 1, 12, 0, 0, 123);
    const inside = uuidv7(ms, new Uint8Array(10).fill(0x5a));
    expect(firstIdAt(ms) <= inside && inside <= lastIdAt(ms)).toBe(true);
    expect(lastIdAt(ms - 1) < firstIdAt(ms)).toBe(true);
    expect(uuidv7(ms + 1, new Uint8Array(10)) > lastIdAt(ms)).toBe(true);
  });
});
