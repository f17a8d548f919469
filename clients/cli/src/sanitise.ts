/**
 * What the CLI prints of a gateway's or a sender's data goes through here, and only here (output.ts
 * calls it for every line and JSON document): a webhook body, an event type or an error text is
 * written by whoever sent it, and a terminal obeys what it prints. ESC starts sequences that clear
 * the screen, recolour a fake status, plant a link (OSC 8) or write the clipboard (OSC 52); BEL ends
 * them; C1 bytes (U+0080–U+009F, CSI as U+009B) start them on terminals that read 8-bit controls; a
 * lone CR overwrites a line; bidi overrides, isolates and marks reorder what is shown, so a line
 * reads other than its bytes; U+2028 and U+2029 break a line where none seems to be.
 *
 * Each is shown escaped, `\x1b` or `\u202e`, never dropped: what was sent is all there to see. A
 * backslash itself is left as it is, so a body's own JSON escapes read as written; a sender can
 * therefore write the six characters `\x1b`, which look like an escaped ESC and do nothing.
 */
const UNSAFE = '\\u0000-\\u001f\\u007f-\\u009f\\u061c\\u200e\\u200f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069';
const UNSAFE_CHARACTER = new RegExp(`[${UNSAFE}]`, 'g');
/** CRLF first, so a multi-line text's Windows line breaks stay line breaks rather than a stray `\x0d`. */
const UNSAFE_IN_BLOCK = new RegExp(`\\r\\n|[${UNSAFE}]`, 'g');

const escaped = (character: string): string => {
  const code = character.codePointAt(0) ?? 0;
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
};

/** One line of text for a terminal: every control and bidi character escaped, line breaks and tabs included. */
export const terminalLine = (text: string): string => text.replace(UNSAFE_CHARACTER, escaped);

/**
 * Text meant to span lines (a body): LF, CRLF and tab are kept, since they cannot hide or rewrite what
 * was printed; everything else unsafe is escaped as in a line.
 */
export const terminalBlock = (text: string): string =>
  text.replace(UNSAFE_IN_BLOCK, (match) => (match === '\r\n' || match === '\n' || match === '\t' ? match : escaped(match)));

/**
 * A value as one line of JSON that is safe on a terminal and means the same: JSON.stringify escapes
 * C0 controls but writes DEL, C1 and bidi characters raw, and those can stand only inside a string,
 * where `\uXXXX` is the same character to any JSON parser.
 */
export const terminalJson = (value: unknown): string =>
  JSON.stringify(value).replace(UNSAFE_CHARACTER, (character) => `\\u${(character.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}`);
