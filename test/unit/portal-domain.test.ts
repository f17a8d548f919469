import { readFile } from 'node:fs/promises';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
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
