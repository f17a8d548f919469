import { readFile } from 'node:fs/promises';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { brandPalette, contrast, DARK_TEXT, MIN_CONTRAST, PAGE_BACKGROUNDS, readableShade } from '../../lambdas/domain/brand-palette';
import { routeMatches } from '../../lambdas/domain/routing';
import {
  customerView,
  isCustomerId,
  isEventTypeName,
  planSubscription,
  portalLinkBase,
  resendVerdict,
  sessionVerdict,
  subscribedTypes,
} from '../../lambdas/domain/portal';
import { PORTAL_SCRIPT } from '../../lambdas/portal/assets.generated';
import { PORTAL_ASSETS_FILE, renderPortalAssets } from '../../scripts/build-portal';
import { failureWords, healthWords, heldWords, relativeTime, statusWords, verifyWords } from '../../portal/words';
import { deliveryState } from '../fixtures/records';

describe('customer and event type ids', () => {
  it.each([
    ['cus_42', true],
    ['user@example.com', true],
    ['org:7/team', false],
    ['', false],
    ['-leading', false],
    ['has space', false],
    ['x'.repeat(128), true],
    ['x'.repeat(129), false],
  ])('customer %j → %s', (value, ok) => expect(isCustomerId(value)).toBe(ok));

  it.each([
    ['invoice.paid', true],
    ['v2/order:created', true],
    ['invoice.*', false],
    ['a b', false],
    ['', false],
  ])('event type %j → %s', (value, ok) => expect(isEventTypeName(value)).toBe(ok));
});

describe('sessions', () => {
  const LATER = '2026-01-01T00:00:01.000Z';
  it.each([
    // validUntil, keyActive, issued, current → verdict at midnight
    [LATER, true, 0, 0, 'live'],
    ['2026-01-01T00:00:00.000Z', true, 0, 0, 'expired'],
    ['2025-12-31T23:59:59.000Z', true, 0, 0, 'expired'],
    [LATER, false, 0, 0, 'key_revoked'],
    [LATER, true, 0, 1, 'links_revoked'],
    [LATER, true, 2, 3, 'links_revoked'],
    // A link made after a revoke is in the current generation.
    [LATER, true, 1, 1, 'live'],
    // Expiry is reported first, then the key: any one of them refuses the link.
    ['2025-12-31T23:59:59.000Z', false, 0, 1, 'expired'],
    [LATER, false, 0, 1, 'key_revoked'],
  ] as const)('valid until %s, key active %s, generation %i of %i → %s', (validUntil, keyActive, issuedGeneration, currentGeneration, verdict) =>
    expect(sessionVerdict({ validUntil, keyActive, issuedGeneration, currentGeneration }, new Date('2026-01-01T00:00:00.000Z'))).toBe(verdict),
  );

  it.each([
    [[], 'https://gw.example.com'],
    [[{ domain: 'a.acme.com', status: 'pending_verification', verified_at: null }], 'https://gw.example.com'],
    [
      [
        { domain: 'late.acme.com', status: 'verified', verified_at: '2026-02-01T00:00:00Z' },
        { domain: 'early.acme.com', status: 'verified', verified_at: '2026-01-01T00:00:00Z' },
        { domain: 'gone.acme.com', status: 'failed', verified_at: null },
      ],
      'https://early.acme.com',
    ],
  ])('link base over %j → %s', (domains, base) => expect(portalLinkBase(domains, 'https://gw.example.com')).toBe(base));
});

describe('what a customer sees of an event', () => {
  it.each([
    [{ a: deliveryState({ status: 'delivered', attempts: 1 }), b: deliveryState({ status: 'dead_letter', attempts: 5 }) }, ['a'], 'delivered', 1, ['a']],
    [{ a: deliveryState({ status: 'retry_scheduled', attempts: 2 }), b: deliveryState({ status: 'delivered', attempts: 1 }) }, ['a', 'b'], 'retry_scheduled', 3, ['a', 'b']],
    [{ b: deliveryState({ status: 'delivered' }) }, ['a'], 'accepted', 0, []],
  ])('deliveries %j for endpoints %j → %s', (deliveries, mine, status, attempts, keys) => {
    const view = customerView(deliveries, mine);
    expect([view.status, view.attempts, Object.keys(view.deliveries)]).toEqual([status, attempts, keys]);
  });

  it.each([
    [undefined, 'not_found'],
    [deliveryState({ status: 'queued' }), 'not_settled'],
    [deliveryState({ status: 'delivering' }), 'not_settled'],
    [deliveryState({ status: 'retry_scheduled' }), 'not_settled'],
    [deliveryState({ status: 'delivered' }), 'resend'],
    [deliveryState({ status: 'dead_letter' }), 'resend'],
  ])('resend of %j → %s', (delivery, verdict) => expect(resendVerdict(delivery)).toBe(verdict));
});

describe('event type choice as routes', () => {
  const portal = (id: string, type: string) => ({ id, event_type_pattern: type, managed_by: 'portal' as const });
  const account = (id: string, type: string | null) => ({ id, event_type_pattern: type, managed_by: null });
  it.each([
    [[], ['b', 'a'], ['a', 'b'], []],
    [[portal('r1', 'a')], ['a'], [], []],
    [[portal('r1', 'a'), portal('r2', 'b')], ['b', 'c'], ['c'], ['r1']],
    // The account's own route stays whatever the customer picks, and is not added again.
    [[account('r1', 'a'), portal('r2', 'b')], [], [], ['r2']],
    [[account('r1', 'a')], ['a'], [], []],
  ])('routes %j, wanted %j → add %j, remove %j', (current, wanted, add, remove) => {
    expect(planSubscription(current, wanted)).toEqual({ add, remove });
  });

  it('shows every pattern of the routes, `*` for every type', () => {
    expect(subscribedTypes([account('r1', null), portal('r2', 'b'), portal('r3', 'a'), portal('r4', 'a')])).toEqual(['*', 'a', 'b']);
  });

  it.each([
    [{ source_id: null, event_type: 'a' }, true],
    [{ source_id: 'src', event_type: 'a' }, false],
  ])('a portal route matches outbound events only: %j → %s', (event, matches) => {
    expect(routeMatches({ source_id: null, event_type_pattern: 'a', active: true, managed_by: 'portal' }, event)).toBe(matches);
    expect(routeMatches({ source_id: null, event_type_pattern: 'a', active: true, managed_by: null }, event)).toBe(true);
  });
});

describe('colours from the brand', () => {
  it.each([
    // WCAG's own reference points, and the two brands of issue 38: pink under white text, yellow as a link.
    ['#000000', '#ffffff', 21],
    ['#777777', '#ffffff', 4.48],
    ['#ff0066', '#ffffff', 3.86],
    ['#ffdd00', '#ffffff', 1.35],
  ])('contrast of %s on %s is %f:1', (a, b, ratio) => expect(contrast(a, b)).toBeCloseTo(ratio, 2));

  it.each([
    // primary, accent → bar (as given), button, its text, link, accent
    [null, null, '#4f46e5', '#4f46e5', '#ffffff', '#4f46e5', '#4f46e5'],
    // Pink: white reads on a slightly darker pink; links darker still; the accent follows the primary, not a green.
    ['#ff0066', null, '#ff0066', '#e6005c', '#ffffff', '#db0058', '#db0058'],
    // Yellow: dark text on the yellow itself (white would need it near olive); links a dark shade of it.
    ['#ffdd00', null, '#ffdd00', '#ffdd00', DARK_TEXT, '#806f00', '#806f00'],
    // A set accent is kept as its own hue, made dark enough to read.
    ['#b45309', '#f59e0b', '#b45309', '#b45309', '#ffffff', '#b45309', '#986207'],
    ['#FF0066', '#00AA55', '#ff0066', '#e6005c', '#ffffff', '#db0058', '#008141'],
    // Not a colour (never stored, but the page must not break): the default.
    ['pink', undefined, '#4f46e5', '#4f46e5', '#ffffff', '#4f46e5', '#4f46e5'],
  ])('primary %s, accent %s → bar %s, button %s with %s, link %s, accent %s', (primary, accent, bar, button, onButton, link, accentOut) => {
    expect(brandPalette({ primary_color: primary, accent_color: accent })).toEqual({ bar, button, onButton, link, accent: accentOut });
  });

  it.each(['#ff0066', '#ffdd00', '#4f46e5', '#ffffff', '#000000', '#00ff00', '#0000ff', '#808080', '#f59e0b', '#22c55e'])('every text pair of %s reads at 4.5:1', (primary) => {
    const p = brandPalette({ primary_color: primary });
    expect(contrast(p.button, p.onButton)).toBeGreaterThanOrEqual(MIN_CONTRAST);
    for (const bg of PAGE_BACKGROUNDS) {
      expect(contrast(p.link, bg)).toBeGreaterThanOrEqual(MIN_CONTRAST);
      expect(contrast(p.accent, bg)).toBeGreaterThanOrEqual(MIN_CONTRAST);
    }
  });

  it('keeps a colour that already reads, and shades one that does not toward the colour given', () => {
    expect(readableShade('#1f2937', ['#ffffff'])).toBe('#1f2937');
    expect(readableShade('#ffffff', ['#000000'], '#ffffff')).toBe('#ffffff');
    expect(contrast(readableShade('#222222', ['#000000'], '#ffffff'), '#000000')).toBeGreaterThanOrEqual(MIN_CONTRAST);
  });
});

describe('the portal’s words', () => {
  it.each([
    ['healthy', true, 'healthy', 'good'],
    ['failing', true, 'failing, retrying', 'bad'],
    ['open', true, 'failing, retrying later', 'bad'],
    ['disabled', false, 'paused after failures', 'bad', 'endpoint answered 410 Gone'],
    // Switched off by its owner or the account: no reason recorded, nothing failed.
    ['disabled', false, 'paused', 'idle'],
    ['healthy', false, 'paused', 'idle'],
    ['open', false, 'paused', 'idle'],
  ] as const)('health %s, active %s → %j (%s)', (state, active, text, tone, reason: string | null = null) => {
    const words = healthWords(state, active, false, reason);
    expect([words.text, words.tone]).toEqual([text, tone]);
    expect(words.text).not.toMatch(/\bopen\b|breaker|closed/);
  });

  it.each([
    [true, 'waiting for verification', 'warn'],
    [false, 'paused', 'idle'],
  ] as const)('an endpoint waiting for verification, active %s → %j (%s)', (active, text, tone) => {
    const words = healthWords('healthy', active, true);
    expect([words.text, words.tone]).toEqual([text, tone]);
  });

  it.each([
    [0, 'nothing waiting'],
    [1, '1 delivery waiting'],
    [1200, '1200 deliveries waiting'],
  ])('held %i → %j', (held, words) => expect(heldWords(held)).toBe(words));

  it.each([
    ['dead_letter', 'failed'],
    ['retry_scheduled', 'retrying'],
    ['delivering', 'sending'],
    ['accepted', 'not sent'],
    ['delivered', 'delivered'],
    ['queued', 'queued'],
    ['http_error', 'error response'],
    ['network_error', 'could not connect'],
    ['success', 'success'],
    ['some_new_status', 'some new status'],
  ])('status %s → %j', (status, words) => expect(statusWords(status)).toBe(words));

  const NOW = Date.parse('2026-11-28T12:00:00Z');
  it.each([
    ['2026-11-28T12:00:00Z', 0, 'second'],
    ['2026-11-28T11:59:58Z', -2, 'second'],
    ['2026-11-28T11:58:30Z', -1, 'minute'],
    ['2026-11-28T09:00:00Z', -3, 'hour'],
    ['2026-11-27T11:00:00Z', -1, 'day'],
    ['2026-11-14T12:00:00Z', -2, 'week'],
    ['2026-08-28T12:00:00Z', -3, 'month'],
    ['2024-11-28T12:00:00Z', -2, 'year'],
    ['2026-11-28T12:05:00Z', 5, 'minute'],
  ])('%s at noon → %i %s', (then, value, unit) => expect(relativeTime(Date.parse(then), NOW)).toEqual({ value, unit }));

  it.each([
    [{ kind: 'network' }, 'The page could not reach the server. Check your connection, then try again.'],
    [{ kind: 'http', status: 400, error: 'url must be an https URL' }, 'Check the form: url must be an https URL.'],
    [{ kind: 'http', status: 400, error: 'customer cus_42 has reached its limit of 20 endpoints' }, 'Customer cus_42 has reached its limit of 20 endpoints.'],
    [{ kind: 'http', status: 409, error: 'the AWS connection is used by destinations: d1; delete them first.' }, 'The AWS connection is used by destinations: d1; delete them first.'],
    [{ kind: 'http', status: 400, error: 'Error: getaddrinfo ENOTFOUND sts.amazonaws.com' }, 'Something went wrong on our side. Try again in a minute; if it keeps happening, contact us.'],
    [{ kind: 'http', status: 502, error: 'bad gateway' }, 'Something went wrong on our side. Try again in a minute; if it keeps happening, contact us.'],
    [{ kind: 'http', status: 400 }, 'Something went wrong on our side. Try again in a minute; if it keeps happening, contact us.'],
    [{ kind: 'http', status: 429, error: 'rate limited' }, 'Too many requests at once. Wait a few seconds, then try again.'],
  ] as const)('failure %j → %j', (failure, words) => expect(failureWords(failure)).toBe(words));

  it.each([
    ['Error: getaddrinfo ENOTFOUND sts.eu-west-1.amazonaws.com', 'We could not reach AWS'],
    ['AccessDenied: User: arn:aws:iam::1:user/x is not authorized to perform: sts:AssumeRole on resource: arn:aws:iam::123456789012:role/r', 'AWS refused to let us use the role. Check that the stack from the template is deployed in AWS account 123456789012'],
    ['NoSuchEntity: the role does not exist', 'The role does not exist yet in AWS account 123456789012'],
    ['TimeoutError: socket hang up', 'We could not reach AWS'],
    ['Weird: something else', 'The role could not be used.'],
    [null, 'The role could not be used.'],
  ])('a failed check %j → %j…', (error, start) => {
    const words = verifyWords(error, '123456789012');
    expect(words.startsWith(start)).toBe(true);
    expect(words).not.toMatch(/Error:|ENOTFOUND|getaddrinfo|arn:aws:iam::1:/);
  });
});

describe('the portal page bundle', () => {
  it('is what npm run portal builds from portal/ (run it after changing the page)', async () => {
    expect(await readFile(PORTAL_ASSETS_FILE, 'utf8')).toBe(await renderPortalAssets());
  });

  it('stays small: the script is under 100 KB gzipped', () => {
    expect(gzipSync(PORTAL_SCRIPT).length).toBeLessThan(100 * 1024);
  });

  it('never writes HTML from strings: no innerHTML, outerHTML, insertAdjacentHTML or document.write', async () => {
    const source = await readFile(new URL('../../portal/app.ts', import.meta.url), 'utf8');
    expect(source).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write/);
  });
});
