/** RFC 4180: a field with a comma, a quote or a line break is quoted, and its quotes doubled. */
export function csvField(value: string | number | null): string {
  if (value === null) return '';
  const text = String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export const csvLine = (values: ReadonlyArray<string | number | null>) => `${values.map(csvField).join(',')}\r\n`;
