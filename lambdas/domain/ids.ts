const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID.test(value);
}

/**
 * UUID version 7 (RFC 9562): 48 bits of Unix milliseconds, then random bits. Ids sort by creation
 * time, so a DynamoDB sort key made of them lists newest first without a second index.
 */
export function uuidv7(nowMs: number, random: Uint8Array): string {
  if (random.length < 10) throw new Error('uuidv7 needs 10 random bytes');
  const bytes = new Uint8Array(16);
  let ms = nowMs;
  for (let i = 5; i >= 0; i--) {
    bytes[i] = ms % 256;
    ms = Math.floor(ms / 256);
  }
  bytes.set(random.subarray(0, 10), 6);
  bytes[6] = 0x70 | ((bytes[6] ?? 0) & 0x0f);
  bytes[8] = 0x80 | ((bytes[8] ?? 0) & 0x3f);
  const hex = Buffer.from(bytes).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * The id a receiver de-duplicates on (`X-Webhook-Id`): a replay chain's first event's, the same on
 * every copy; an event that is no copy (or was stored before copies kept it) is its own.
 */
export function webhookIdOf(event: { id: string; webhook_id?: string | null }): string {
  return event.webhook_id ?? event.id;
}
