/**
 * RFC 6901 JSON pointers into a parsed payload, for what a source reads from its inbound events (an
 * ordering key, a data subject). "" (the whole document) is refused: a payload that is itself the
 * value is no use to point at.
 */

/** A pointer's reference tokens, unescaped, or undefined when it is no pointer. */
export function pointerTokens(pointer: string): string[] | undefined {
  if (!pointer.startsWith('/')) return undefined;
  const tokens = pointer.slice(1).split('/');
  // `~` only escapes `/` (~1) and itself (~0).
  if (tokens.some((token) => /~(?![01])/.test(token))) return undefined;
  return tokens.map((token) => token.replace(/~1/g, '/').replace(/~0/g, '~'));
}

export const isJsonPointer = (pointer: string): boolean => pointerTokens(pointer) !== undefined;

/** The value a pointer reaches in a parsed JSON document; undefined when it reaches nothing or is no pointer. */
export function valueAtPointer(json: unknown, pointer: string): unknown {
  const tokens = pointerTokens(pointer);
  if (!tokens) return undefined;
  let value = json;
  for (const token of tokens) {
    if (Array.isArray(value)) {
      if (!/^(0|[1-9][0-9]*)$/.test(token)) return undefined;
      value = value[Number(token)];
    } else if (value !== null && typeof value === 'object' && Object.hasOwn(value, token)) value = (value as Record<string, unknown>)[token];
    else return undefined;
  }
  return value;
}
