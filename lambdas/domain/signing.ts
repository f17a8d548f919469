import { createHmac } from 'node:crypto';

/** A destination's secrets that verify now: the current one, and the previous one during a rotation. */
export function activeSecrets(
  destination: { signing_secret: string; previous_signing_secret: string | null; previous_secret_expires_at: string | null },
  now: Date,
): string[] {
  const { signing_secret, previous_signing_secret, previous_secret_expires_at } = destination;
  const previousValid =
    previous_signing_secret !== null &&
    previous_secret_expires_at !== null &&
    Date.parse(previous_secret_expires_at) > now.getTime();
  return previousValid ? [signing_secret, previous_signing_secret] : [signing_secret];
}

/**
 * Hookgate's default scheme, the one Stripe-style verifiers check:
 * `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`, keyed with the secret string's UTF-8 bytes.
 * One `v1=` per active secret.
 */
export function hookgateSignature(body: Buffer, timestamp: number, secrets: readonly string[]): string {
  const parts = secrets.map((secret) => {
    const mac = createHmac('sha256', Buffer.from(secret, 'utf8'));
    mac.update(`${timestamp}.`);
    mac.update(body);
    return `v1=${mac.digest('hex')}`;
  });
  return [`t=${timestamp}`, ...parts].join(',');
}

/**
 * Standard Webhooks: `v1,<base64 HMAC-SHA256 of "<id>.<t>.<body>">` keyed with the base64-decoded part
 * of a `whsec_` secret; several signatures are separated by spaces.
 */
export function standardWebhooksSignature(
  messageId: string,
  timestamp: number,
  body: Buffer,
  secrets: readonly string[],
): string {
  return secrets
    .map((secret) => {
      const key = Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');
      const mac = createHmac('sha256', key);
      mac.update(`${messageId}.${timestamp}.`);
      mac.update(body);
      return `v1,${mac.digest('base64')}`;
    })
    .join(' ');
}
