import { describe, expect, it } from 'vitest';
import { checkDestinationUrl, isForbiddenAddress } from '../../lambdas/domain/address-policy';

describe('checkDestinationUrl', () => {
  it.each([
    ['http://169.254.169.254/latest/meta-data/', 'metadata'],
    ['http://[fd00:ec2::254]/', 'IPv6 metadata'],
    ['http://127.0.0.1:8080/', 'loopback'],
    ['http://2130706433/', 'loopback as a decimal number'],
    ['http://0x7f000001/', 'loopback in hex'],
    ['http://0177.0.0.1/', 'loopback in octal'],
    ['http://127.1/', 'short loopback'],
    ['http://[::1]/', 'IPv6 loopback'],
    ['http://[::ffff:127.0.0.1]/', 'IPv4-mapped loopback'],
    ['http://[::ffff:8.8.8.8]/', 'any IPv4-mapped address'],
    ['http://[64:ff9b::7f00:1]/', 'NAT64 loopback'],
    ['http://10.0.0.5/', 'private 10/8'],
    ['http://172.20.1.1/', 'private 172.16/12'],
    ['http://192.168.1.1/', 'private 192.168/16'],
    ['http://100.64.0.1/', 'CGNAT'],
    ['http://0.0.0.0/', 'unspecified'],
    ['http://224.0.0.1/', 'multicast'],
    ['http://255.255.255.255/', 'broadcast'],
    ['http://[fe80::1]/', 'IPv6 link-local'],
    ['http://[fc00::1]/', 'IPv6 unique local'],
    ['http://localhost/', 'localhost'],
    ['http://localhost./', 'localhost with a trailing dot'],
    ['http://api.localhost/', 'a .localhost name'],
  ])('refuses %s (%s)', (url) => {
    const verdict = checkDestinationUrl(url, false);
    expect(verdict).toEqual({ ok: false, reason: 'url must not point to a private or reserved address' });
  });

  it.each(['ftp://example.com/', 'file:///etc/passwd', 'gopher://example.com/', 'javascript:alert(1)', 'not a url', '//example.com'])(
    'refuses the non-http URL %s',
    (url) => {
      expect(checkDestinationUrl(url, false)).toEqual({ ok: false, reason: 'url must be an http or https URL' });
    },
  );

  it('refuses credentials in the URL (userinfo tricks)', () => {
    expect(checkDestinationUrl('http://example.com@127.0.0.1/', false)).toEqual({
      ok: false,
      reason: 'url must not contain credentials',
    });
  });

  it('accepts public hosts and addresses', () => {
    expect(checkDestinationUrl('https://hooks.example.com/in?x=1', false).ok).toBe(true);
    expect(checkDestinationUrl('http://93.184.216.34/', false).ok).toBe(true);
    expect(checkDestinationUrl('https://[2606:4700::1111]/', false).ok).toBe(true);
  });

  it('lets private addresses through only when allowed (local development)', () => {
    expect(checkDestinationUrl('http://127.0.0.1:9999/sink', true).ok).toBe(true);
  });
});

describe('isForbiddenAddress', () => {
  it('treats anything that is not an IP literal as forbidden', () => {
    expect(isForbiddenAddress('example.com')).toBe(true);
  });
  it('allows a public IPv4 and IPv6 address', () => {
    expect(isForbiddenAddress('8.8.8.8')).toBe(false);
    expect(isForbiddenAddress('2001:4860:4860::8888')).toBe(false);
  });
});
