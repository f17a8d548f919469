import { checkDestinationUrl, isForbiddenAddress } from '../domain/address-policy';
import { invalid } from '../domain/errors';
import type { Resolver } from '../adapters/dns';

const DNS_CHECK_TIMEOUT_MS = 2000;

/**
 * Refuses a destination URL that points inside the network: by its literal form, or by what its
 * name resolves to now. A name that does not resolve (yet) is accepted: every send checks again.
 */
export async function assertPublicDestination(url: string, allowPrivate: boolean, resolve: Resolver): Promise<void> {
  const verdict = checkDestinationUrl(url, allowPrivate);
  if (!verdict.ok) throw invalid(verdict.reason);
  if (allowPrivate || verdict.literalAddress) return;
  const hostname = verdict.url.hostname;
  const answers = await Promise.race([
    resolve(hostname).catch(() => []),
    new Promise<[]>((done) => setTimeout(() => done([]), DNS_CHECK_TIMEOUT_MS).unref()),
  ]);
  if (answers.some((answer) => isForbiddenAddress(answer.address))) {
    throw invalid('url must not point to a private or reserved address');
  }
}
