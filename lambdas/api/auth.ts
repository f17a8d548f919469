import { unauthorized } from '../domain/errors';
import type { ApiRequest } from './http';
import { hashApiKey } from '../shared/secrets';
import { findApiKeyByHash, touchApiKey } from '../accounts/api-key-record';

export interface Principal {
  accountId: string;
  keyId: string;
}

/** The scheme is case-insensitive (RFC 9110 §11.1), the key is not. */
const BEARER = /^([Bb][Ee][Aa][Rr][Ee][Rr])\s+(hk_[A-Za-z0-9_-]{43})\s*$/;
const LAST_USED_RESOLUTION_MS = 60_000;

/** Every failure gives the same 401 text, so a caller learns nothing about which part was wrong. */
export async function authenticate(request: ApiRequest, now: Date): Promise<Principal> {
  const match = BEARER.exec(request.headers.authorization ?? '');
  if (!match?.[2]) throw unauthorized();
  const lookup = await findApiKeyByHash(hashApiKey(match[2]));
  if (!lookup) throw unauthorized();
  await touchApiKey(lookup, now, LAST_USED_RESOLUTION_MS);
  return { accountId: lookup.account_id, keyId: lookup.key_id };
}
