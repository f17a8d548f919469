/** Structured one-line logs. Callers pass ids and counts, never bodies, headers or secrets. */
type Fields = Record<string, string | number | boolean | null | undefined>;

const RANK = { INFO: 0, WARN: 1, ERROR: 2 } as const;
type Level = keyof typeof RANK;

/** HOOKGATE_LOG_LEVEL (info | warn | error), read on each call so tests and the local runtime can set it late. */
function threshold(): number {
  const configured = (process.env.HOOKGATE_LOG_LEVEL ?? 'info').toUpperCase();
  return configured in RANK ? RANK[configured as Level] : RANK.INFO;
}

function write(level: Level, message: string, fields: Fields, error?: unknown): void {
  if (RANK[level] < threshold()) return;
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
