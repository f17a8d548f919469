
/** Standard Webhooks keys are `whsec_` + base64 of 24 to 64 random bytes; the HMAC key is the decoded part. */
export function isStandardWebhooksSecret(secret: string): boolean {
  if (!secret.startsWith('whsec_')) return false;
  const encoded = secret.slice('whsec_'.length);
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded)) return false;
  const bytes = Buffer.from(encoded, 'base64').length;
  return bytes >= 24 && bytes <= 64;
}

export const SECRET_ROTATION_OVERLAP_MS = 24 * 3600 * 1000;
