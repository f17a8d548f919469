import { unauthorized } from '../domain/errors';
import type { ApiRequest } from './http';
import { hashApiKey } from '../shared/secrets';
import { findApiKeyByHash, touchApiKey } from '../store/api-keys';

export interface Principal {
  accountId: string;
  keyId: string;
}

const BEARER = /^Bearer\s+(hk_[A-Za-z0-9_-]{43})\s*$/;
const LAST_USED_RESOLUTION_MS = 60_000;

/** Every failure gives the same 401 text, so a caller learns nothing about which part was wrong. */
export async function authenticate(request: ApiRequest, now: Date): Promise<Principal> {
  const match = BEARER.exec(request.headers.authorization ?? '');
  if (!match?.[1]) throw unauthorized();
  const lookup = await findApiKeyByHash(hashApiKey(match[1]));
  if (!lookup) throw unauthorized();
  await touchApiKey(lookup, now, LAST_USED_RESOLUTION_MS);
  return { accountId: lookup.account_id, keyId: lookup.key_id };
}
