import { domainToASCII, domainToUnicode } from 'node:url';

/** RFC 1035 limits: a name of at most 253 characters (no trailing dot), labels of 1..63. */
const MAX_HOSTNAME_LENGTH = 253;
const MAX_LABEL_LENGTH = 63;
// LDH rule (RFC 1123): letters, digits and hyphens, neither first nor last. Input is lower-cased first.
const LABEL = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/;
// A last label that WHATWG URL parsing reads as a number (decimal or 0x hex) makes the whole name an
// IPv4 address in some notation (`127.1`, `0x7f.1`, `1.2.3.4`); no real top-level domain looks like that.
const NUMERIC_LABEL = /^(?:\d+|0x[0-9a-f]*)$/;

export type HostnameResult = { ok: true; hostname: string } | { ok: false };

/**
 * Normalises and checks a customer's hostname: lower-cased, one trailing dot removed, at least two
 * labels of 1..63 LDH characters, at most 253 characters in all. IP addresses (any notation),
 * `localhost` and its subdomains, wildcards, underscores and non-ASCII text are refused;
 * internationalised names are accepted in their punycode (`xn--`) form when that form is valid.
 */
export function normalizeHostname(input: string): HostnameResult {
  let name = input.toLowerCase();
  if (name.endsWith('.')) name = name.slice(0, -1);
  if (name.length === 0 || name.length > MAX_HOSTNAME_LENGTH) return { ok: false };
  const labels = name.split('.');
  if (labels.length < 2) return { ok: false };
  for (const label of labels) {
    if (label.length > MAX_LABEL_LENGTH || !LABEL.test(label)) return { ok: false };
  }
  const last = labels[labels.length - 1] ?? '';
  if (NUMERIC_LABEL.test(last)) return { ok: false };
  if (last === 'localhost') return { ok: false };
  if (!labels.every((l) => !l.startsWith('xn--') || isValidALabel(l))) return { ok: false };
  return { ok: true, hostname: name };
}

/** An `xn--` label must be real punycode: it decodes to non-ASCII text that encodes back to itself. */
function isValidALabel(label: string): boolean {
  const unicode = domainToUnicode(label);
  // eslint-disable-next-line no-control-regex -- the ASCII range, not control characters
  return unicode !== '' && unicode !== label && /[^\x00-\x7f]/.test(unicode) && domainToASCII(unicode) === label;
}

/** The DNS name where the customer publishes the verification token. */
const VERIFICATION_RECORD_PREFIX = '_hookgate-challenge';
export const verificationRecordName = (hostname: string) => `${VERIFICATION_RECORD_PREFIX}.${hostname}`;

/**
 * The longest hostname whose verification record name still fits in 253 characters
 * (`_hookgate-challenge.` takes 20 of them).
 */
export const MAX_VERIFIABLE_HOSTNAME_LENGTH = MAX_HOSTNAME_LENGTH - VERIFICATION_RECORD_PREFIX.length - 1;
