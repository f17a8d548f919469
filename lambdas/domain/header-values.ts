/**
 * Whether a value can go out as an HTTP header exactly as given: visible ASCII, with inner spaces or
 * tabs, nothing at either end. Node refuses characters above U+00FF (`ERR_INVALID_CHAR`) and sends
 * U+0080..U+00FF as single Latin-1 bytes, which a receiver reading UTF-8 sees garbled; leading and
 * trailing whitespace is stripped on the way. So anything else would fail or change on every try.
 */
const SENDABLE = /^[\x21-\x7e](?:[\x20-\x7e\t]*[\x21-\x7e])?$/;

export const isSendableHeaderValue = (value: string): boolean => SENDABLE.test(value);

/** The refusal text for a field whose value is sent as a header. */
export const unsendableHeaderMessage = (field: string): string =>
  `${field} must be printable ASCII without leading or trailing spaces (it is sent as an HTTP header)`;
