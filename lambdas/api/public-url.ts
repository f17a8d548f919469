import type { ApiRequest } from './http';
import { config } from '../shared/config';

/** Where the consumer portal page is served; a portal session's `url` points there. */
export const PORTAL_PATH = '/portal';

/** Base of absolute URLs we hand out: the configured public URL, else the host the request came to. */
export function publicBaseUrl(request: ApiRequest): string {
  const configured = config().publicUrl;
  if (configured) return configured.replace(/\/+$/, '');
  const proto = request.headers['x-forwarded-proto']?.split(',')[0]?.trim() || 'https';
  return `${proto}://${request.headers.host ?? 'localhost'}`;
}
