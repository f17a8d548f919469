import { BlockList, isIP } from 'node:net';

// Addresses a delivery must never reach: the gateway's own network, cloud metadata, and ranges
// that are not routable on the public internet. Transition ranges (NAT64, 6to4, Teredo) and
// IPv4-mapped IPv6 are refused whole, because they can embed any IPv4 address, private included.
const FORBIDDEN_V4: Array<[string, number]> = [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
];

const FORBIDDEN_V6: Array<[string, number]> = [
  ['::', 96], // unspecified, loopback and IPv4-compatible
  ['::ffff:0:0', 96],
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001::', 32],
  ['2001:db8::', 32],
  ['2002::', 16],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
];

// Two lists: node's BlockList also matches IPv4 addresses against IPv4-mapped IPv6 rules.
const forbiddenV4 = new BlockList();
for (const [net, prefix] of FORBIDDEN_V4) forbiddenV4.addSubnet(net, prefix, 'ipv4');
const forbiddenV6 = new BlockList();
for (const [net, prefix] of FORBIDDEN_V6) forbiddenV6.addSubnet(net, prefix, 'ipv6');

/** True when `address` (an IP literal, IPv6 without brackets) is private, loopback or reserved. */
export function isForbiddenAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true;
  return family === 4 ? forbiddenV4.check(address, 'ipv4') : forbiddenV6.check(address, 'ipv6');
}

export type UrlVerdict =
  | { ok: true; url: URL; literalAddress: string | undefined }
  | { ok: false; reason: string };

const LOCAL_NAMES = /(^|\.)localhost\.?$/i;

/**
 * Checks what can be known about a destination URL without DNS: scheme, credentials, and a host
 * that is a forbidden literal address or a local name. Names are resolved and checked again when sent.
 */
export function checkDestinationUrl(raw: string, allowPrivate: boolean): UrlVerdict {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: 'url must be an http or https URL' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return { ok: false, reason: 'url must be an http or https URL' };
  }
  if (!url.hostname) return { ok: false, reason: 'url must be an http or https URL' };
  if (url.username || url.password) return { ok: false, reason: 'url must not contain credentials' };
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  const literalAddress = isIP(host) ? host : undefined;
  if (!allowPrivate) {
    const local = literalAddress ? isForbiddenAddress(literalAddress) : LOCAL_NAMES.test(host);
    if (local) return { ok: false, reason: 'url must not point to a private or reserved address' };
  }
  return { ok: true, url, literalAddress };
}
