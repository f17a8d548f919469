import { checkDestinationUrl, isForbiddenAddress } from '../domain/address-policy';
import { invalid, type Refusal } from '../domain/errors';
import type { Resolver } from '../adapters/dns';

const DNS_CHECK_TIMEOUT_MS = 2000;

/**
 * Why a destination URL is refused, if it is: it points inside the network, by its literal form or
 * by what its name resolves to now. A name that does not resolve (yet) is accepted: every send checks again.
 */
export async function destinationUrlRefusal(url: string, allowPrivate: boolean, resolve: Resolver): Promise<Refusal | undefined> {
  const verdict = checkDestinationUrl(url, allowPrivate);
  if (!verdict.ok) return invalid(verdict.reason);
  if (allowPrivate || verdict.literalAddress) return undefined;
  const hostname = verdict.url.hostname;
  const answers = await Promise.race([
    resolve(hostname).catch(() => []),
    new Promise<[]>((done) => setTimeout(() => done([]), DNS_CHECK_TIMEOUT_MS).unref()),
  ]);
  if (answers.some((answer) => isForbiddenAddress(answer.address))) return invalid('url must not point to a private or reserved address');
  return undefined;
}
