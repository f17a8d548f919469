import { describe, expect, it } from 'vitest';
import { destinationUrlRefusal } from '../../lambdas/destinations/url';
import type { Resolver } from '../../lambdas/adapters/dns';

const answering = (...addresses: string[]): Resolver => async () =>
  addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));

describe('destination URLs at create and update time', () => {
  it.each([
    ['a name resolving to loopback', answering('127.0.0.1')],
    ['a name resolving to the metadata address', answering('169.254.169.254')],
    ['a name resolving to a private IPv6 address', answering('fd00::5')],
    ['a name with one public and one private address', answering('93.184.216.34', '10.0.0.7')],
    ['a name resolving to IPv4-mapped loopback', answering('::ffff:127.0.0.1')],
  ])('refuses %s', async (_label, resolver) => {
    expect(await destinationUrlRefusal('https://hooks.customer.test/in', false, resolver)).toMatchObject({
      kind: 'invalid',
      message: 'url must not point to a private or reserved address',
    });
  });

  it('accepts a name with public addresses only, and one that does not resolve yet', async () => {
    expect(await destinationUrlRefusal('https://hooks.customer.test/', false, answering('93.184.216.34'))).toBeUndefined();
    const failing: Resolver = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
    };
    expect(await destinationUrlRefusal('https://not-yet.customer.test/', false, failing)).toBeUndefined();
  });

  it('does not resolve at all when private destinations are allowed or the host is a literal', async () => {
    let calls = 0;
    const counting: Resolver = async () => {
      calls++;
      return [];
    };
    await destinationUrlRefusal('http://internal.test/', true, counting);
    await destinationUrlRefusal('http://93.184.216.34/', false, counting);
    expect(calls).toBe(0);
  });
});
