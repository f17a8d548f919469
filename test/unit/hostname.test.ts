import { describe, expect, it } from 'vitest';
import { BRAND_DEFAULTS, effectiveBrand, isHexColour, isHttpsUrl } from '../../lambdas/domain/brand';
import {
  MAX_VERIFIABLE_HOSTNAME_LENGTH,
  normalizeHostname,
  verificationRecordName,
} from '../../lambdas/domain/hostname';

const label63 = 'a'.repeat(63);
// 4 labels of 63 + 3 dots = 255 > 253; trim to exactly 253.
const name253 = `${label63}.${label63}.${label63}.${'b'.repeat(61)}`;

describe('normalizeHostname', () => {
  it.each([
    ['hooks.example.com', 'hooks.example.com'],
    ['Hooks.Example.COM', 'hooks.example.com'],
    ['hooks.example.com.', 'hooks.example.com'],
    ['example.io', 'example.io'],
    ['a.b', 'a.b'],
    ['my-hooks.example-site.co.uk', 'my-hooks.example-site.co.uk'],
    ['1password.com', '1password.com'],
    ['123.example.com', '123.example.com'],
    ['xn--bcher-kva.example', 'xn--bcher-kva.example'],
    ['hooks.xn--p1ai', 'hooks.xn--p1ai'],
    ['ab--cd.example.com', 'ab--cd.example.com'],
    [`${label63}.com`, `${label63}.com`],
    [name253, name253],
  ])('accepts %s as %s', (input, expected) => {
    expect(normalizeHostname(input)).toEqual({ ok: true, hostname: expected });
  });

  it.each([
    ['', 'empty'],
    ['.', 'only the root'],
    ['com', 'a single label'],
    ['localhost', 'localhost'],
    ['api.localhost', 'a localhost subdomain'],
    ['api.localhost.', 'a localhost subdomain with a trailing dot'],
    ['127.0.0.1', 'an IPv4 address'],
    ['10.1', 'a short IPv4 form'],
    ['0x7f.0x1', 'a hex IPv4 form'],
    ['foo.123', 'a numeric top-level label'],
    ['[::1]', 'an IPv6 literal'],
    ['::1', 'a bare IPv6 address'],
    ['-hooks.example.com', 'a label starting with a hyphen'],
    ['hooks-.example.com', 'a label ending with a hyphen'],
    ['hooks..example.com', 'an empty label'],
    ['.example.com', 'a leading dot'],
    ['hooks.example.com..', 'two trailing dots'],
    ['*.example.com', 'a wildcard'],
    ['_dmarc.example.com', 'an underscore'],
    ['hooks example.com', 'a space'],
    ['hooks.example.com/path', 'a path'],
    ['https://hooks.example.com', 'a URL'],
    ['hooks.example.com:443', 'a port'],
    ['user@example.com', 'an email address'],
    ['bücher.example', 'non-ASCII text (send the punycode form)'],
    ['xn--zz.example', 'an invalid punycode label'],
    [`${'a'.repeat(64)}.com`, 'a 64-character label'],
    [`${name253}c`, 'a 254-character name'],
  ])('refuses %j (%s)', (input) => {
    expect(normalizeHostname(input)).toEqual({ ok: false });
  });

  it('puts the verification record under _hookgate-challenge, which must still fit in 253 characters', () => {
    expect(verificationRecordName('hooks.example.com')).toBe('_hookgate-challenge.hooks.example.com');
    expect(MAX_VERIFIABLE_HOSTNAME_LENGTH).toBe(233);
    expect(verificationRecordName('a'.repeat(MAX_VERIFIABLE_HOSTNAME_LENGTH))).toHaveLength(253);
  });
});

describe('brand rules', () => {
  it.each([
    ['#4f46e5', true],
    ['#ABCDEF', true],
    ['#fff', false],
    ['4f46e5', false],
    ['#4f46e5ff', false],
    ['#gggggg', false],
    ['red', false],
  ])('colour %s → %s', (value, ok) => expect(isHexColour(value)).toBe(ok));

  it.each([
    ['https://cdn.example.com/logo.png', true],
    ['https://cdn.example.com:8443/a/b.svg?v=1', true],
    ['http://cdn.example.com/logo.png', false],
    ['https://user:pw@cdn.example.com/logo.png', false],
    ['data:image/png;base64,AAAA', false],
    ['javascript:alert(1)', false],
    ['/logo.png', false],
    ['cdn.example.com/logo.png', false],
  ])('logo URL %s → %s', (value, ok) => expect(isHttpsUrl(value)).toBe(ok));

  it('reads unset and cleared fields as their defaults', () => {
    expect(effectiveBrand({})).toEqual(BRAND_DEFAULTS);
    expect(effectiveBrand({ company_name: 'Acme', primary_color: null, accent_color: undefined })).toEqual({
      ...BRAND_DEFAULTS,
      company_name: 'Acme',
    });
  });
});
