/** Structured one-line logs. Callers pass ids and counts, never bodies, headers or secrets. */
type Fields = Record<string, string | number | boolean | null | undefined>;

function write(level: 'INFO' | 'WARN' | 'ERROR', message: string, fields: Fields, error?: unknown): void {
  const entry: Record<string, unknown> = { level, message, ...fields, timestamp: new Date().toISOString() };
  if (error !== undefined) {
    entry.error = error instanceof Error ? { name: error.name, message: error.message } : String(error);
  }
  (level === 'ERROR' ? console.error : console.log)(JSON.stringify(entry));
}

export const log = {
  info: (message: string, fields: Fields = {}) => write('INFO', message, fields),
  warn: (message: string, fields: Fields = {}, error?: unknown) => write('WARN', message, fields, error),
  error: (message: string, fields: Fields = {}, error?: unknown) => write('ERROR', message, fields, error),
};
