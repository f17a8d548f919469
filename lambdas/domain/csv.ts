/**
 * Characters that make a spreadsheet read a cell as a formula (OWASP CSV injection): a cell holding
 * a third party's text (an `X-Event-Type`, an idempotency key) must never run on the reader's machine.
 */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * RFC 4180: a field with a comma, a quote or a line break is quoted, and its quotes doubled. A text
 * that a spreadsheet would take for a formula is prefixed with `'` and quoted, as OWASP recommends;
 * numbers are written as they are.
 */
export function csvField(value: string | number | null): string {
  if (value === null) return '';
  if (typeof value === 'number') return String(value);
  if (FORMULA_START.test(value)) return `"'${value.replaceAll('"', '""')}"`;
  return /[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

export const csvLine = (values: ReadonlyArray<string | number | null>) => `${values.map(csvField).join(',')}\r\n`;
