import { createHmac } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { CreateQueueCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { AssumeRoleCommand, STSClient } from '@aws-sdk/client-sts';
import { mockClient } from 'aws-sdk-client-mock';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootGatewayWithSink } from '../fixtures/gateway';
import { createAccount, type Call } from '../fixtures/http-client';
import { addEventTypes, openPortalSession } from '../fixtures/portal';
import { challengeReceived } from '../fixtures/setup';
import { eventually, type ReceivedRequest, type Sink } from '../fixtures/sink';
import { sqsClient } from '../../lambdas/adapters/aws-clients';
import { brandPalette, contrast } from '../../lambdas/domain/brand-palette';

/**
 * The consumer portal in a real browser (Debian's chromium, driven by playwright-core) against a
 * real local gateway: what a customer does with a link, end to end. Screenshots of each screen go
 * to test-output/portal/ (not committed).
 */
// Debian's chromium, else Playwright's own: whichever `npm test` found or installed (scripts/ensure-browser.mjs).
const CHROMIUM = existsSync('/usr/bin/chromium') ? '/usr/bin/chromium' : chromium.executablePath();
const SHOTS = new URL('../../test-output/portal/', import.meta.url);
const LOGO = 'https://cdn.acme.test/logo.svg';
const LOGO_SVG = '<svg xmlns="http://www.w3.org/2000/svg" width="64" height="32"><rect width="64" height="32" fill="#ff0066"/></svg>';

let env: Awaited<ReturnType<typeof bootGatewayWithSink>>;
let call: Call;
let sink: Sink;
let key: string;
let browser: Browser;

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`No Chromium (/usr/bin/chromium or ${CHROMIUM}): \`node scripts/ensure-browser.mjs\` installs one (npm test runs it first)`);
  await mkdir(SHOTS, { recursive: true });
  env = await bootGatewayWithSink();
  ({ call, sink } = env);
  key = (await createAccount(call, { name: 'Acme' })).key;
  const brand = await call('POST', '/v1/brand-settings', {
    key,
    body: { company_name: 'Acme Billing', logo_url: LOGO, primary_color: '#ff0066', accent_color: '#00aa55', docs_title: 'Acme webhooks' },
  });
  expect(brand.status).toBe(200);
  await addEventTypes(call, key, 'invoice.paid', 'invoice.created');
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
  });
});
afterAll(async () => {
  await browser?.close();
  await env?.stop();
});

/** A fresh browser context (its own sessionStorage) with the brand's logo host answered locally. */
async function openPortal(url: string): Promise<{ page: Page; problems: string[] }> {
  const context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
  await context.route(`${LOGO}*`, (route) => route.fulfill({ status: 200, contentType: 'image/svg+xml', body: LOGO_SVG }));
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error' && !/status of 40[14]/.test(message.text())) problems.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(error.message));
  await page.goto(url);
  return { page, problems };
}

const shot = (page: Page, name: string) => page.screenshot({ path: new URL(`${name}.png`, SHOTS).pathname, fullPage: true });

/** `#rrggbb` as getComputedStyle answers it. */
const rgbOf = (hex: string) => `rgb(${[1, 3, 5].map((i) => Number.parseInt(hex.slice(i, i + 2), 16)).join(', ')})`;

/**
 * Every element with text of its own in the first screenful (disabled controls aside, as WCAG does),
 * with the contrast of its colour on the background it is painted over (translucent layers blended),
 * computed in the page from getComputedStyle; and the current tab's underline on the page.
 */
const CONTRAST_PROBE = `(() => {
  const parse = (c) => { const m = /rgba?\\(([^)]+)\\)/.exec(c); if (!m) return null; const p = m[1].split(/[\\s,\\/]+/).filter(Boolean).map(Number); return { rgb: p.slice(0, 3), a: p.length > 3 ? p[3] : 1 }; };
  const lum = (rgb) => { const [r, g, b] = rgb.map((c) => { c /= 255; return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; }); return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
  const ratio = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((m, n) => n - m); return (x + 0.05) / (y + 0.05); };
  const blend = (top, under) => top.rgb.map((c, i) => c * top.a + under[i] * (1 - top.a));
  const backgroundOf = (el) => {
    const layers = [];
    for (let e = el; e; e = e.parentElement) { const c = parse(getComputedStyle(e).backgroundColor); if (c && c.a > 0) { layers.push(c); if (c.a >= 1) break; } }
    let rgb = [255, 255, 255];
    for (const layer of layers.reverse()) rgb = blend(layer, rgb);
    return rgb;
  };
  const round = (n) => Math.floor(n * 100) / 100;
  const texts = [];
  for (const el of document.querySelectorAll('#app *')) {
    const own = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim() !== '');
    const style = getComputedStyle(el);
    const box = el.getBoundingClientRect();
    if (!own || el.closest('[disabled]') || box.width === 0 || box.top >= innerHeight || style.visibility === 'hidden') continue;
    const bg = backgroundOf(el);
    texts.push({ tag: el.tagName.toLowerCase(), text: el.textContent.trim().slice(0, 40), ratio: round(ratio(blend(parse(style.color), bg), bg)) });
  }
  const tab = document.querySelector('nav a.current');
  const underline = round(ratio(parse(getComputedStyle(tab).borderBottomColor).rgb, backgroundOf(tab)));
  return { texts, underline };
})()`;

/** The first screenful reads at 4.5:1 or more: every text, link and button, and the accent's underline. */
async function expectReadable(page: Page, where: string): Promise<Array<{ tag: string; text: string; ratio: number }>> {
  const { texts, underline } = (await page.evaluate(CONTRAST_PROBE)) as { texts: Array<{ tag: string; text: string; ratio: number }>; underline: number };
  expect(texts.filter((t) => t.ratio < 4.5), `${where}: text under 4.5:1`).toEqual([]);
  expect(underline, `${where}: the current tab's underline`).toBeGreaterThanOrEqual(4.5);
  // The probe saw what it is for: buttons, links and plain text.
  expect(['button', 'a', 'h1'].filter((tag) => !texts.some((t) => t.tag === tag)), `${where}: kinds of element not found`).toEqual([]);
  return texts;
}

/** The `v1` signatures of a delivery's `Webhook-Signature` header, and whether `secret` made one of them. */
function signedWith(request: ReceivedRequest, secret: string): boolean {
  const header = String(request.headers['webhook-signature'] ?? '');
  const parts = header.split(',').map((p) => p.split('='));
  const t = parts.find(([k]) => k === 't')?.[1];
  const expected = createHmac('sha256', secret).update(`${t}.${request.body.toString('utf8')}`).digest('hex');
  return parts.some(([k, v]) => k === 'v1' && v === expected);
}

async function sendTestAndSeeDelivered(page: Page): Promise<ReceivedRequest> {
  const before = sink.received.length;
  await page.click('#send-test');
  await page.waitForURL(/#\/events\/[0-9a-f-]{36}$/);
  await page.locator('#attempts .attempt', { hasText: 'success' }).first().waitFor();
  // The attempt is recorded just before the outcome, and the page reads the event again every second.
  await expect.poll(() => page.locator('p .badge').first().textContent(), { timeout: 10_000 }).toBe('delivered');
  await sink.waitFor(before + 1);
  const delivery = sink.received.at(-1) as ReceivedRequest;
  expect(delivery.headers['x-event-type']).toBe('webhook.test');
  return delivery;
}

describe('consumer portal in a browser', () => {
  let endpointId = '';
  let firstEventId = '';

  it('opens a link in the brand: name, logo and colour, nothing branded Hookgate, a strict CSP', async () => {
    const { url } = await openPortalSession(call, key, 'cus_1');
    const page = await call('GET', '/portal');
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");

    const { page: browserPage, problems } = await openPortal(url);
    await browserPage.locator('#company').waitFor();
    expect(await browserPage.textContent('#company')).toBe('Acme Billing');
    expect(await browserPage.textContent('#docs-title')).toBe('Acme webhooks');
    expect(await browserPage.title()).toBe('Acme webhooks · Acme Billing');
    // Evaluated in the page (strings, since this file is type-checked without the DOM's types).
    expect(await browserPage.evaluate("[document.getElementById('logo').naturalWidth, document.getElementById('logo').getAttribute('src')]")).toEqual([64, LOGO]);
    expect(await browserPage.evaluate("getComputedStyle(document.getElementById('brand')).borderBottomColor")).toBe('rgb(255, 0, 102)');
    // The secret left the address bar for sessionStorage.
    expect(browserPage.url()).not.toContain('ps_');
    expect(await browserPage.textContent('body')).not.toMatch(/hookgate/i);
    await browserPage.locator('#no-endpoints', { hasText: 'No endpoints yet.' }).waitFor();
    await shot(browserPage, '1-endpoints-empty');
    await expectReadable(browserPage, 'first screen');

    // Add an endpoint pointing at the local sink: the form is behind a button; with no event type
    // ticked, the page says first that it would receive nothing, and adds it once told to go on.
    expect(await browserPage.isVisible('#add-endpoint')).toBe(false);
    await browserPage.click('#open-add-endpoint');
    await browserPage.fill('#add-endpoint input[name=url]', `${sink.url}/cus1`);
    await browserPage.fill('#add-endpoint input[name=name]', 'Billing sink');
    await browserPage.click('#add-endpoint button[type=submit]');
    await browserPage.locator('#no-types[role=alert]', { hasText: 'receives no events' }).waitFor();
    expect(browserPage.url()).toMatch(/#\/endpoints$/);
    await browserPage.click('#no-types button');
    await browserPage.waitForURL(/#\/endpoints\/[0-9a-f-]{36}$/);
    endpointId = browserPage.url().split('/').at(-1) as string;
    await browserPage.locator('h1', { hasText: 'Billing sink' }).waitFor();

    // It waits for verification: the page says so in the customer's words, with the answer to give.
    await browserPage.locator('#verification', { hasText: 'Waiting for verification' }).waitFor();
    expect(await browserPage.textContent('#health')).toContain('waiting for verification');
    await shot(browserPage, '2-endpoint-waiting-for-verification');
    // This receiver echoes nothing: its customer pastes the challenge from the endpoint's log.
    await browserPage.fill('#verify-by-hand input[name=challenge]', await challengeReceived(sink, '/cus1'));
    await browserPage.click('#verify-by-hand button[type=submit]');
    await browserPage.locator('#notice', { hasText: 'Endpoint verified.' }).waitFor();
    expect(await browserPage.locator('#verification').count()).toBe(0);
    expect(await browserPage.textContent('#health')).toContain('healthy');

    // Subscribe it to a type: a published event of that type reaches it, one of another type does not.
    await browserPage.check('#types input[value="invoice.paid"]');
    await browserPage.click('#types button[type=submit]');
    await browserPage.locator('#notice', { hasText: 'Event types saved.' }).waitFor();
    expect(await browserPage.isChecked('#types input[value="invoice.paid"]')).toBe(true);
    // The account's concurrency cap (the default here), shown and not editable.
    expect(await browserPage.textContent('#max-in-flight')).toBe('up to 10 at a time');
    expect(await browserPage.locator('[name=max_in_flight]').count()).toBe(0);
    await shot(browserPage, '2-endpoint');
    await call('POST', '/v1/outbound-events', { key, body: { event_type: 'invoice.created', payload: '{"skip":true}', customer: 'cus_1' } });
    const published = await call('POST', '/v1/outbound-events', {
      key,
      body: { event_type: 'invoice.paid', payload: JSON.stringify({ note: '<img src=x onerror="window.__pwned=1">' }), customer: 'cus_1' },
    });
    firstEventId = published.json.data.id;
    const events = () => sink.received.filter((r) => r.path === '/cus1' && r.headers['x-event-type'] !== 'hookgate.endpoint.verification');
    const paid = await eventually(async () => events(), (received) => received.length >= 1);
    expect(paid.map((r) => r.headers['x-event-type'])).toEqual(['invoice.paid']);

    // Send a test event and watch its attempt appear; the delivery verifies with the revealed secret.
    await browserPage.click('#reveal');
    const firstSecret = (await browserPage.textContent('#secret')) as string;
    expect(firstSecret).toMatch(/^whsec_/);
    const firstTest = await sendTestAndSeeDelivered(browserPage);
    expect(signedWith(firstTest, firstSecret)).toBe(true);
    await shot(browserPage, '3-event-detail');

    // Rotate the secret: the next delivery verifies with the new one (and, for 24 h, the old one too).
    // It asks first, in the page (no browser dialog): cancelled, nothing changes; confirmed, the secret is new.
    await browserPage.goto(`${new URL(url).origin}/portal#/endpoints/${endpointId}`);
    const dialogs: string[] = [];
    browserPage.on('dialog', (dialog) => void (dialogs.push(dialog.message()), dialog.dismiss()));
    await browserPage.click('#rotate');
    await browserPage.locator('#confirm-rotate', { hasText: 'Rotate the signing secret?' }).waitFor();
    await browserPage.click('#confirm-rotate .confirm-no');
    expect(await browserPage.locator('#confirm-rotate').count()).toBe(0);
    expect(await browserPage.textContent('#secret')).toBe('whsec_••••••••');
    await browserPage.click('#rotate');
    await browserPage.click('#confirm-rotate .confirm-yes');
    await browserPage.locator('#notice', { hasText: 'Secret rotated' }).waitFor();
    expect(dialogs).toEqual([]);
    const secondSecret = (await browserPage.textContent('#secret')) as string;
    expect(secondSecret).toMatch(/^whsec_/);
    expect(secondSecret).not.toBe(firstSecret);
    const secondTest = await sendTestAndSeeDelivered(browserPage);
    expect(signedWith(secondTest, secondSecret)).toBe(true);
    expect(signedWith(secondTest, firstSecret)).toBe(true);

    // The log: newest first, filterable by type and status.
    await browserPage.click('nav a[href="#/events"]');
    await expect.poll(() => browserPage.locator('.event-row').count()).toBe(3);
    expect(await browserPage.locator('.event-row td:nth-child(2)').allTextContents()).toEqual(['webhook.test', 'webhook.test', 'invoice.paid']);
    await browserPage.selectOption('#filters select[name=event_type]', 'invoice.paid');
    await browserPage.click('#filters button[type=submit]');
    await expect.poll(() => browserPage.locator('.event-row').count()).toBe(1);
    await browserPage.selectOption('#filters select[name=event_type]', '');
    await browserPage.selectOption('#filters select[name=status]', 'dead_letter');
    await browserPage.click('#filters button[type=submit]');
    await browserPage.locator('.empty', { hasText: 'No events.' }).waitFor();
    await browserPage.selectOption('#filters select[name=status]', '');
    await browserPage.click('#filters button[type=submit]');
    await expect.poll(() => browserPage.locator('.event-row').count()).toBe(3);
    await shot(browserPage, '4-event-log');

    // A hostile payload is shown as text, never run or parsed as HTML; then resent to this endpoint.
    await browserPage.locator(`a[href="#/events/${firstEventId}"]`).click();
    await browserPage.locator('#payload').waitFor();
    expect(await browserPage.textContent('#payload')).toContain('<img src=x onerror=\\"window.__pwned=1\\">');
    expect(await browserPage.locator('#payload img').count()).toBe(0);
    expect(await browserPage.evaluate('typeof window.__pwned')).toBe('undefined');
    const beforeResend = sink.received.length;
    await browserPage.click('#deliveries .resend');
    await browserPage.waitForURL((u) => !u.hash.endsWith(firstEventId));
    await browserPage.locator('#attempts .attempt', { hasText: 'success' }).first().waitFor();
    await sink.waitFor(beforeResend + 1);
    expect(sink.received.at(-1)?.headers['x-event-type']).toBe('invoice.paid');

    // Docs: signature snippets and the catalog.
    await browserPage.click('nav a[href="#/docs"]');
    await browserPage.locator('#catalog').waitFor();
    expect(await browserPage.locator('details summary').allTextContents()).toEqual(
      expect.arrayContaining(['Node.js', 'Python', 'Go', 'Node.js (npm install standardwebhooks)']),
    );
    expect(await browserPage.locator('#catalog dt').allTextContents()).toEqual(['invoice.created', 'invoice.paid']);
    expect(await browserPage.textContent('body')).not.toMatch(/hookgate/i);
    await shot(browserPage, '5-docs');
    expect(problems).toEqual([]);
    await browserPage.context().close();
  });

  it('another customer’s link shows none of the first customer’s data', async () => {
    const { url } = await openPortalSession(call, key, 'cus_2');
    const { page } = await openPortal(url);
    await page.locator('#no-endpoints', { hasText: 'No endpoints yet.' }).waitFor();
    await page.click('nav a[href="#/events"]');
    await page.locator('.empty', { hasText: 'No events.' }).waitFor();
    // Not found in place of the screen, under its own tab, with the way back to the list.
    for (const [tab, hash, what] of [['#/endpoints', `#/endpoints/${endpointId}`, 'endpoint'], ['#/events', `#/events/${firstEventId}`, 'event']]) {
      await page.evaluate(`location.hash = ${JSON.stringify(hash)}`);
      await page.locator('#not-found h1', { hasText: `Not found: no such ${what}` }).waitFor();
      expect(await page.locator('#view > *').count()).toBe(1);
      expect(await page.getAttribute('nav a.current', 'href')).toBe(tab);
      expect(await page.getAttribute('#not-found a', 'href')).toBe(tab);
    }
    const text = (await page.textContent('body')) as string;
    expect(text).not.toContain(sink.url);
    expect(text).not.toContain('Billing sink');
    await shot(page, '6-other-customer');
    await page.context().close();
  });

  it('an Ed25519 endpoint is named so, and the docs show first how to verify it, with the public key set’s URL', async () => {
    const created = await call('POST', '/v1/destinations', { key, body: { name: 'Signed receiver', url: `${sink.url}/ed`, customer: 'cus_ed', signature_scheme: 'ed25519' } });
    expect(created.status).toBe(201);
    const { jwks_url: accountJwks } = (await call('GET', '/v1/account', { key })).json.data as { jwks_url: string };
    // The customer's own key set, not the account's: its key pair signs no one else's endpoints.
    const jwksUrl = accountJwks.replace(/\.json$/, '/customers/cus_ed.json');
    const { url } = await openPortalSession(call, key, 'cus_ed');
    const { page, problems } = await openPortal(url);
    await page.evaluate(`location.hash = '#/endpoints/${created.json.data.id as string}'`);
    await page.locator('#health dd', { hasText: 'Ed25519 (public key)' }).waitFor();
    await page.click('nav a[href="#/docs"]');
    await page.locator('#catalog').waitFor();
    expect(await page.textContent('#own-scheme')).toBe('Your endpoints are signed with Ed25519 (public key).');
    expect(await page.locator('#view h2').first().textContent()).toBe('Ed25519 signatures');
    expect(await page.textContent('#ed25519-docs')).toContain('webhook-key-id');
    expect(await page.textContent('#jwks-url')).toBe(jwksUrl);
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('a later link in the same tab never replaces the open session; the page names its customer; revoke ends it', async () => {
    const own = await call('POST', '/v1/destinations', { key, body: { name: 'First customer sink', url: `${sink.url}/first`, customer: 'cus_first' } });
    expect(own.status).toBe(201);
    const first = await openPortalSession(call, key, 'cus_first');
    const second = await openPortalSession(call, key, 'cus_second');
    const { page, problems } = await openPortal(first.url);
    const stored = () => page.evaluate("sessionStorage.getItem('portal-session')");
    /** The tab still works for the first customer only: its name in the header, its endpoint, its secret stored. */
    const stillFirst = async () => {
      await page.locator('#endpoints', { hasText: 'First customer sink' }).waitFor();
      expect(await page.textContent('#customer')).toBe('cus_first');
      expect(await stored()).toBe(first.secret);
      expect(page.url()).not.toContain('ps_');
    };
    await page.locator('#customer', { hasText: 'cus_first' }).waitFor();
    await stillFirst();
    expect(await page.locator('#notice.warn').count()).toBe(0);

    // The second link's fragment in the same tab (a hashchange): ignored, and the page says so.
    await page.evaluate(`location.hash = ${JSON.stringify(second.secret)}`);
    await page.locator('#notice.warn', { hasText: 'This tab stays with cus_first' }).waitFor();
    await stillFirst();
    await shot(page, '8-second-link-ignored');
    await page.setViewportSize({ width: 390, height: 844 });
    await shot(page, '8-second-link-ignored-phone');
    await page.setViewportSize({ width: 1100, height: 900 });

    // A fresh load of the tab with the second link (pasted into the address bar): the same.
    await page.goto('about:blank');
    await page.goto(second.url);
    await page.locator('#notice.warn', { hasText: 'This tab stays with cus_first' }).waitFor();
    await stillFirst();

    // The account ends the customer's links: the open page is refused at its next request, and a new
    // link opened in this tab is then a first load again.
    expect((await call('POST', '/v1/portal-sessions/revoke', { key, body: { customer: 'cus_first' } })).status).toBe(204);
    await page.click('nav a[href="#/events"]');
    await page.locator('#refused h1', { hasText: 'This link has expired or is not valid' }).waitFor();
    expect(await stored()).toBeNull();
    await shot(page, '9-revoked');
    const next = await openPortalSession(call, key, 'cus_first');
    await page.evaluate(`location.hash = ${JSON.stringify(next.secret)}`);
    await page.locator('#customer', { hasText: 'cus_first' }).waitFor();
    await page.locator('#endpoints', { hasText: 'First customer sink' }).waitFor();
    expect(await stored()).toBe(next.secret);
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('an expired link is refused', async () => {
    const { url, secret } = await openPortalSession(call, key, 'cus_1', 1);
    // Opened once the API refuses the link, however late this machine gets past its second.
    await eventually(() => call('GET', '/v1/portal/session', { headers: { authorization: `Bearer ${secret}` } }), (res) => res.status === 401, 10_000);
    const { page } = await openPortal(url);
    await page.locator('#refused h1', { hasText: 'This link has expired or is not valid' }).waitFor();
    expect(await page.locator('#endpoints, #brand').count()).toBe(0);
    await shot(page, '7-expired');
    await page.context().close();
  });
});

describe('the portal reads at a glance, at 1280 and 390 px', () => {
  const WIDTHS = [1280, 390] as const;
  const LONG_PATH = '/ok/receivers/webhooks/production/acme-billing-integration/v2/invoices?team=finance-and-operations';
  let statesKey = '';
  let eventId = '';
  let copyId = '';

  beforeAll(async () => {
    // An amber accent: the brand colour that made healthy, delivered and failing look alike.
    statesKey = (await createAccount(call, { name: 'Amber' })).key;
    const brand = await call('POST', '/v1/brand-settings', {
      key: statesKey,
      body: { company_name: 'Amber Pay', logo_url: LOGO, primary_color: '#b45309', accent_color: '#f59e0b', docs_title: 'Amber webhooks' },
    });
    expect(brand.status).toBe(200);
    await addEventTypes(call, statesKey, 'invoice.paid');
    sink.respondWith((request, res) => res.writeHead(request.path.startsWith('/fail') ? 500 : 200).end(request.path.startsWith('/fail') ? 'down' : 'ok'));
    // Made through the API (the portal cannot choose the scheme), then subscribed as the customer would.
    const { secret } = await openPortalSession(call, statesKey, 'cus_states');
    for (const [name, path] of [['Production receiver', LONG_PATH], ['Broken receiver', '/fail']]) {
      const made = await call('POST', '/v1/destinations', {
        key: statesKey,
        body: { name, url: `${sink.url}${path}`, customer: 'cus_states', signature_scheme: 'standard_webhooks', max_in_flight: 25 },
      });
      expect(made.status).toBe(201);
      const subscribed = await call('PATCH', `/v1/portal/endpoints/${made.json.data.id}`, { key: secret, body: { event_types: ['invoice.paid'] } });
      expect(subscribed.status).toBe(200);
      // The cap is the account's: the customer's session cannot change it.
      const capped = await call('PATCH', `/v1/portal/endpoints/${made.json.data.id}`, { key: secret, body: { max_in_flight: 1000 } });
      expect([capped.status, capped.json.error]).toEqual([400, 'unknown field: max_in_flight']);
    }
    const published = await call('POST', '/v1/outbound-events', {
      key: statesKey,
      body: { event_type: 'invoice.paid', payload: JSON.stringify({ invoice: 'in_1', memo: 'x'.repeat(300), lines: [{ sku: 'sku_1', amount: 4200 }] }), customer: 'cus_states' },
    });
    eventId = published.json.data.id;
    // A try that reached the sink is recorded a moment later: wait until both outcomes are, so the
    // screens read a state that no longer moves (delivered; retrying or failed).
    await eventually(
      async () => (await call('GET', `/v1/outbound-events/${eventId}`, { key: statesKey })).json.data.event.deliveries as Array<{ status: string }>,
      (deliveries) => deliveries.length === 2 && deliveries.every((d) => ['delivered', 'retry_scheduled', 'dead_letter'].includes(d.status)) && deliveries.some((d) => d.status === 'delivered'),
      30_000,
    );
  });
  afterAll(() => sink.respondWith((_request, res) => res.writeHead(200).end('ok')));

  /** A fresh context at `width`; the logo host answers 404 when `brokenLogo`. */
  async function openAt(width: number, url: string, brokenLogo = false) {
    const context = await browser.newContext({ viewport: { width, height: width > 600 ? 900 : 844 } });
    await context.route(`${LOGO}*`, (route) =>
      brokenLogo ? route.fulfill({ status: 404, body: '' }) : route.fulfill({ status: 200, contentType: 'image/svg+xml', body: LOGO_SVG }),
    );
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    await page.goto(url);
    return { page, problems };
  }

  /** Every screen: no sideways scroll on a phone, and a screenshot at both widths. */
  async function screen(page: Page, width: number, name: string) {
    if (width < 600) expect(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth'), `${name} scrolls sideways`).toBe(true);
    await shot(page, `states-${name}-${width}`);
  }

  const background = (page: Page, selector: string) => page.evaluate(`getComputedStyle(document.querySelector(${JSON.stringify(selector)})).backgroundColor`);

  for (const width of WIDTHS) {
    it(`every screen and state at ${width} px`, async () => {
      // Loading: the first answers held back, the page says it is loading rather than staying blank.
      const { url } = await openPortalSession(call, statesKey, 'cus_states');
      const origin = new URL(url).origin;
      const { page, problems } = await openAt(width, 'about:blank', true);
      let release: () => void = () => {};
      const held = new Promise<void>((resolve) => (release = resolve));
      await page.route('**/v1/portal/session', async (route) => {
        await held;
        await route.continue();
      });
      // Before its script arrives the page itself says it is loading (a slow network is no blank page).
      let releaseScript: () => void = () => {};
      const scriptHeld = new Promise<void>((resolve) => (releaseScript = resolve));
      await page.route('**/portal/app.js*', async (route) => {
        await scriptHeld;
        await route.continue();
      });
      await page.goto(url, { waitUntil: 'commit' });
      await page.locator('#loading', { hasText: 'Loading' }).waitFor();
      expect(await page.evaluate("getComputedStyle(document.querySelector('#loading .mark')).animationName")).toBe('pulse');
      await screen(page, width, 'loading-page');
      releaseScript();
      await page.locator('#loading', { hasText: 'Opening your webhooks' }).waitFor();
      await screen(page, width, 'loading');
      release();

      // Endpoints: status colours that do not depend on the amber brand; the broken logo leaves the name.
      // The broken receiver is failing, or open once its breaker trips: red either way.
      await page.locator('#endpoints tr', { hasText: 'Broken receiver' }).locator('.badge.s-failing, .badge.s-open').waitFor();
      // In the customer's words: never a circuit breaker's "open".
      expect(await page.locator('#endpoints tr', { hasText: 'Broken receiver' }).locator('.badge').textContent()).toMatch(/^failing, retrying( later)?$/);
      await page.locator('#endpoints tr', { hasText: 'Production receiver' }).locator('.badge.s-healthy').waitFor();
      const healthy = await background(page, '#endpoints .badge.s-healthy');
      const failing = await background(page, '#endpoints .badge.bad');
      expect(healthy).not.toBe(failing);
      expect(healthy).toBe('rgb(220, 252, 231)');
      expect(failing).toBe('rgb(254, 226, 226)');
      // The amber accent, darkened until it reads on the page.
      expect(await page.evaluate("getComputedStyle(document.querySelector('nav a.current')).borderBottomColor")).toBe(rgbOf(brandPalette({ primary_color: '#b45309', accent_color: '#f59e0b' }).accent));
      expect(await page.locator('#logo').count()).toBe(0);
      expect(await page.textContent('#company')).toBe('Amber Pay');
      await screen(page, width, 'endpoints');

      // The add form, behind its button, in view once opened; the warning before adding one with no event types.
      await page.click('#open-add-endpoint');
      await page.fill('#add-endpoint input[name=url]', 'https://example.com/hooks');
      await page.click('#add-endpoint button[type=submit]');
      await page.locator('#no-types').waitFor();
      expect(await page.evaluate("document.getElementById('no-types').getBoundingClientRect().bottom <= innerHeight")).toBe(true);
      await screen(page, width, 'add-endpoint-warning');
      await page.click('#add-endpoint .quiet');
      expect(await page.isVisible('#add-endpoint')).toBe(false);

      // An endpoint: copy buttons for its id and secret; rotate asks first.
      await page.locator('#endpoints a', { hasText: 'Production receiver' }).click();
      await page.locator('#endpoint-id').waitFor();
      expect(await page.locator('button.copy[aria-label="Copy signing secret"]').count()).toBe(1);
      expect(await page.locator('button.copy[aria-label="Copy endpoint id"]').count()).toBe(1);
      expect(await page.textContent('#max-in-flight')).toBe('up to 25 at a time');
      // One filled button a card: the others outlined or plain; Delete quiet, in red.
      expect(await page.evaluate("[...document.querySelectorAll('#view section, #view form.card')].map((card) => [...card.querySelectorAll('button')].filter((b) => !b.className).length)")).toEqual([1, 1, 1, 1]);
      expect(await page.getAttribute('#delete', 'class')).toBe('danger-quiet');
      // "Event types" once (the list's own legend), and no card inside another.
      expect(await page.locator('#view h2, #view legend', { hasText: 'Event types' }).count()).toBe(1);
      expect(await page.locator('#view section section, #view .card .card, #view section .card, #view .card section').count()).toBe(0);
      await screen(page, width, 'endpoint');
      await page.click('#rotate');
      await page.locator('#confirm-rotate').waitFor();
      expect(await page.textContent('#secret')).toBe('whsec_••••••••');
      await screen(page, width, 'endpoint-rotate-confirm');
      await page.click('#confirm-rotate .confirm-no');

      // The event log, then the event: its id with a copy button, column headings, a copy linked to its original.
      await page.click('nav a[href="#/events"]');
      await page.locator('.event-row').first().waitFor();
      // Event id, endpoint and when, relative, with the exact time in the customer's locale on hover.
      expect(await page.locator('#events thead th').allTextContents()).toEqual(['Event', 'Type', 'Endpoint', 'Status', 'Attempts', 'Sent']);
      const row = page.locator('.event-row', { hasText: eventId });
      expect(((await row.locator('td').nth(2).textContent()) as string).split(', ').sort()).toEqual(['Broken receiver', 'Production receiver']);
      expect(await row.locator('time').textContent()).toMatch(/ago$|^now$/);
      expect(await row.locator('time').getAttribute('title')).toMatch(/^[A-Z][a-z]{2} \d{1,2}, \d{4}, \d{1,2}:\d{2}:\d{2}\s[AP]M$/);
      expect(await row.locator('a.id').textContent()).toBe(eventId);
      // Its status in words: the broken receiver's delivery is retrying, or has failed; never "dead letter" or "retry scheduled".
      // The log does not poll, and a retry caught mid-try reads "sending": read the log again until the try is over.
      await expect
        .poll(
          async () => {
            const status = await row.locator('.badge').textContent();
            if (status === 'sending') {
              await page.reload();
              await row.locator('.badge').waitFor();
            }
            return status;
          },
          { timeout: 30_000 },
        )
        .toMatch(/^(retrying|failed)$/);
      await screen(page, width, 'event-log');
      await page.locator(`a[href="#/events/${eventId}"]`).click();
      await page.locator('#event-id', { hasText: eventId }).waitFor();
      expect(await page.locator('button.copy[aria-label="Copy event id"]').count()).toBe(1);
      expect(await page.locator('#deliveries thead th').allTextContents()).toEqual(['Endpoint', 'Status', 'Attempts', 'Waiting', '']);
      // A settled delivery waits for nothing.
      expect(await page.locator('#deliveries tbody tr td').nth(3).textContent()).toBe('—');
      // The headers each try carried: the ids a receiver de-duplicates on, the per-try signature described.
      const sent = await page.locator('#request-headers pre').first().textContent();
      expect(sent).toContain(`x-webhook-id: ${eventId}`);
      expect(sent).toContain(`x-hookgate-event-id: ${eventId}`);
      expect(sent).toContain('webhook-signature: <computed for each try>');
      await page.locator('#attempts .attempt').nth(1).waitFor();
      await screen(page, width, 'event');
      if (!copyId) {
        await page.locator('#deliveries tr', { hasText: 'Production receiver' }).locator('.resend').click();
        await page.waitForURL((u) => !u.hash.endsWith(eventId));
        copyId = page.url().split('/').at(-1) as string;
      } else await page.evaluate(`location.hash = '#/events/${copyId}'`);
      await page.locator('#original', { hasText: eventId }).waitFor();
      await page.locator('#attempts .attempt').first().waitFor();
      await screen(page, width, 'event-copy');
      await page.click('#original');
      await page.locator('#event-id', { hasText: eventId }).waitFor();

      // Docs: the endpoints' own scheme (Standard Webhooks) first; code scrolls sideways inside its box, never cut at a height.
      await page.click('nav a[href="#/docs"]');
      await page.locator('#catalog').waitFor();
      expect(await page.locator('.codeblock pre').count()).toBe(await page.locator('.codeblock button.copy').count());
      expect(await page.textContent('#own-scheme')).toContain('Standard Webhooks');
      expect(await page.locator('#view h2').first().textContent()).toBe('Standard Webhooks');
      expect(await page.evaluate("[...document.querySelectorAll('pre.code')].every((pre) => getComputedStyle(pre).whiteSpace === 'pre' && pre.clientWidth <= pre.parentElement.clientWidth && pre.scrollHeight <= pre.clientHeight + 1)")).toBe(true);
      await screen(page, width, 'docs');
      // The next screen opens at its top, not where the long docs page was scrolled to.
      await page.evaluate('window.scrollTo(0, document.body.scrollHeight)');
      expect(await page.evaluate('window.scrollY')).toBeGreaterThan(0);
      await page.click('nav a[href="#/endpoints"]');
      await page.locator('#endpoints').waitFor();
      expect(await page.evaluate('window.scrollY')).toBe(0);

      // Not found: in place of the screen, under its own tab, with the way back.
      await page.evaluate("location.hash = '#/events/00000000-0000-4000-8000-000000000000'");
      await page.locator('#not-found', { hasText: 'no such event' }).waitFor();
      expect(await page.getAttribute('nav a.current', 'href')).toBe('#/events');
      await screen(page, width, 'not-found');

      // The session ends mid-use: the brand stays, with what to do next.
      expect((await call('POST', '/v1/portal-sessions/revoke', { key: statesKey, body: { customer: 'cus_states' } })).status).toBe(204);
      await page.click('#not-found a');
      await page.locator('#refused', { hasText: 'Ask Amber Pay for a new link' }).waitFor();
      expect(await page.textContent('#company')).toBe('Amber Pay');
      await screen(page, width, 'expired-mid-use');
      expect(problems).toEqual([]);
      await page.context().close();

      // A customer with nothing yet: empty states with the way forward.
      const empty = await openAt(width, (await openPortalSession(call, statesKey, 'cus_empty')).url);
      await empty.page.locator('#no-endpoints').waitFor();
      await screen(empty.page, width, 'empty-endpoints');
      await empty.page.click('nav a[href="#/events"]');
      await empty.page.locator('#events .empty a[href="#/endpoints"]').waitFor();
      await screen(empty.page, width, 'empty-log');
      await empty.page.context().close();

      // A link that was never valid.
      const invalid = await openAt(width, `${origin}/portal#ps_not-a-real-link`);
      await invalid.page.locator('#refused', { hasText: 'This link has expired or is not valid' }).waitFor();
      await screen(invalid.page, width, 'invalid-link');
      await invalid.page.context().close();
    });
  }
});

describe('brand colours that would not read, at 1280 and 390 px', () => {
  // The docs' own pink (white on it reads at 3.86:1) and a yellow (as a link on white, 1.35:1), each
  // set alone, and the default: the accent follows the primary, and every text the first screens show reads at 4.5:1.
  for (const primary of ['#ff0066', '#ffdd00', '#4f46e5']) {
    for (const width of [1280, 390] as const) {
      it(`${primary === '#4f46e5' ? 'the default colour' : `${primary} alone`}, ${width} px`, async () => {
        const brandKey = (await createAccount(call, { name: `Brand ${primary}` })).key;
        const colour = primary === '#4f46e5' ? {} : { primary_color: primary };
        expect((await call('POST', '/v1/brand-settings', { key: brandKey, body: { company_name: 'Bright Co', ...colour } })).status).toBe(200);
        await addEventTypes(call, brandKey, 'invoice.paid');
        const made = await call('POST', '/v1/destinations', { key: brandKey, body: { name: 'Receiver', url: `${sink.url}/brand`, customer: 'cus_brand' } });
        expect(made.status).toBe(201);
        const context = await browser.newContext({ viewport: { width, height: width > 600 ? 900 : 844 } });
        const page = await context.newPage();
        try {
          await page.goto((await openPortalSession(call, brandKey, 'cus_brand')).url);
          await page.locator('#endpoints a', { hasText: 'Receiver' }).waitFor();
          const palette = brandPalette({ primary_color: primary });
          expect(await page.evaluate("getComputedStyle(document.getElementById('brand')).borderBottomColor")).toBe(rgbOf(primary));
          const underline = await page.evaluate("getComputedStyle(document.querySelector('nav a.current')).borderBottomColor");
          expect(underline).toBe(rgbOf(palette.accent));
          // Never the health colours: a healthy badge does not look like the brand.
          expect([rgbOf('#14532d'), rgbOf('#dcfce7'), rgbOf('#22c55e')]).not.toContain(underline);
          const texts = await expectReadable(page, `${primary} endpoints`);
          // What the probe measured is what the palette meant: the filled button's text on its fill.
          expect(texts.find((t) => t.tag === 'button' && t.text === 'Add an endpoint')?.ratio).toBeCloseTo(contrast(palette.button, palette.onButton), 1);
          await shot(page, `brand-${primary.slice(1)}-endpoints-${width}`);
          await page.locator('#endpoints a', { hasText: 'Receiver' }).click();
          await page.locator('#send-test').waitFor();
          await expectReadable(page, `${primary} endpoint`);
          await shot(page, `brand-${primary.slice(1)}-endpoint-${width}`);
        } finally {
          await context.close();
        }
      });
    }
  }
});

describe('AWS endpoints in the portal, at 1280 and 390 px', () => {
  for (const width of [1280, 390] as const) {
    it(`a customer connects its AWS account, verifies it and adds an SQS endpoint that receives its events (${width} px)`, async () => {
      const customer = `cus_aws_${width}`;
      const { QueueUrl: queueUrl } = await sqsClient().send(new CreateQueueCommand({ QueueName: `portal-e2e-${width}` }));
      const queueAccount = new URL(queueUrl!).pathname.split('/')[1]!;
      // STS has no emulator: the role the customer's template creates is assumed here.
      const sts = mockClient(STSClient);
      const assumed = { Credentials: { AccessKeyId: 'ASSUMED', SecretAccessKey: 'x', SessionToken: 't', Expiration: new Date(Date.now() + 3_600_000) } };
      sts.on(AssumeRoleCommand).resolves(assumed);
      const context = await browser.newContext({ viewport: { width, height: width > 600 ? 900 : 844 }, acceptDownloads: true });
      await context.route(`${LOGO}*`, (route) => route.fulfill({ status: 200, contentType: 'image/svg+xml', body: LOGO_SVG }));
      const page = await context.newPage();
      const problems: string[] = [];
      page.on('pageerror', (error) => problems.push(error.message));
      const phoneFits = async (name: string) => {
        if (width < 600) expect(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth'), `${name} scrolls sideways`).toBe(true);
        await shot(page, `aws-${name}-${width}`);
      };
      try {
        await page.goto((await openPortalSession(call, key, customer)).url);
        await page.click('nav a[href="#/aws"]');
        await page.locator('#no-connections').waitFor();
        await phoneFits('empty');

        await page.click('#open-add-connection');
        await page.fill('#add-connection input[name=aws_account_id]', queueAccount);
        await page.click('#add-connection button[type=submit]');
        await page.waitForURL(/#\/aws\/[0-9a-f-]{36}$/);
        const connectionId = page.url().split('/').at(-1) as string;
        await page.locator('#external-id').waitFor();
        const externalId = (await page.textContent('#external-id')) as string;
        expect(externalId).toMatch(/^hookgate-[A-Za-z0-9_-]{43}$/);
        expect(JSON.parse((await page.textContent('#trust-policy')) as string).Statement[0].Condition).toMatchObject({ StringEquals: { 'sts:ExternalId': externalId } });
        expect(await page.textContent('#connection-status')).toContain('not verified');
        await phoneFits('connection');

        // The template downloads as a file, fetched with the session (no secret in any URL).
        const [download] = await Promise.all([page.waitForEvent('download'), page.click('#download-template')]);
        const template = JSON.parse(await readFile((await download.path()) as string, 'utf8'));
        expect(download.suggestedFilename()).toMatch(/^HookgateDelivery-[0-9a-f]{12}\.json$/);
        expect(template.Resources.HookgateDeliveryRole.Properties.AssumeRolePolicyDocument.Statement[0].Condition).toMatchObject({ StringEquals: { 'sts:ExternalId': externalId } });

        // The role is not there yet (STS unreachable from here, say): the page says so in words, as an alert, never STS's raw error.
        sts.on(AssumeRoleCommand).rejectsOnce(Object.assign(new Error('getaddrinfo ENOTFOUND sts.eu-west-1.amazonaws.com'), { name: 'Error' })).resolves(assumed);
        await page.click('#verify');
        await page.locator('[role=alert]', { hasText: 'We could not reach AWS to check the role.' }).waitFor();
        expect(await page.textContent('body')).not.toMatch(/ENOTFOUND|getaddrinfo|Error:/);
        await phoneFits('verify-failed');
        await page.click('#verify');
        await page.locator('#notice', { hasText: 'Verified: the role can be assumed.' }).waitFor();
        await page.locator('#connection-status .badge.s-verified').waitFor();
        await phoneFits('verified');

        // Copy buttons beside the role ARN, the external id, the command and the trust policy; the command wraps in its box.
        for (const label of ['role ARN', 'external id', 'AWS CLI command', 'trust policy']) expect(await page.locator(`button.copy[aria-label="Copy ${label}"]`).count()).toBe(1);
        expect(await page.evaluate("(() => { const pre = document.querySelector('pre.command'); return pre.scrollWidth <= pre.clientWidth; })()")).toBe(true);

        // An SQS endpoint through it, from the connection's "Add an endpoint": the form opens in view,
        // on an AWS kind with this connection chosen; the kind's own fields, no URL.
        await page.click('#add-aws-endpoint');
        await page.locator('#add-endpoint input[name=queue_url]').waitFor();
        expect(await page.inputValue('#add-endpoint select[name=type]')).toBe('aws_sqs');
        expect(await page.inputValue('#add-endpoint select[name=connection_id]')).toBe(connectionId);
        expect(await page.evaluate("(() => { const box = document.getElementById('add-endpoint-card').getBoundingClientRect(); return box.top >= 0 && box.top < innerHeight; })()")).toBe(true);
        expect(await page.isVisible('#add-endpoint input[name=url]')).toBe(false);
        await page.fill('#add-endpoint input[name=queue_url]', queueUrl!);
        await page.check('#add-endpoint input[value="invoice.paid"]');
        await phoneFits('add-sqs-endpoint');
        await page.click('#add-endpoint button[type=submit]');
        await page.waitForURL(/#\/endpoints\/[0-9a-f-]{36}$/);
        await page.locator('p.url', { hasText: 'Amazon SQS queue' }).waitFor();
        expect(await page.inputValue('#settings input[name=queue_url]')).toBe(queueUrl);
        expect(await page.inputValue('#settings select[name=connection_id]')).toBe(connectionId);
        await phoneFits('sqs-endpoint');

        const sent = await call('POST', '/v1/outbound-events', { key, body: { event_type: 'invoice.paid', payload: `{"for":"${customer}"}`, customer } });
        expect(sent.status).toBe(201);
        const received = await eventually(
          () => sqsClient().send(new ReceiveMessageCommand({ QueueUrl: queueUrl, WaitTimeSeconds: 0, MessageAttributeNames: ['All'] })),
          (out) => (out.Messages?.length ?? 0) > 0,
        );
        expect(received.Messages?.[0]?.Body).toBe(`{"for":"${customer}"}`);
        expect(received.Messages?.[0]?.MessageAttributes?.['x-hookgate-event-id']?.StringValue).toBe(sent.json.data.id);
        expect(sts.commandCalls(AssumeRoleCommand).every((c) => c.args[0].input.ExternalId === externalId)).toBe(true);

        // The connection cannot go while the endpoint uses it; the page says why.
        await page.click('nav a[href="#/aws"]');
        await page.locator('#connections a', { hasText: queueAccount }).click();
        await page.click('#delete');
        await page.click('#confirm-delete .confirm-yes');
        await page.locator('[role=alert]', { hasText: 'The AWS connection is used by destinations' }).waitFor();

        // An AWS endpoint the account set up with its own role: the customer keeps it as it is and renames it.
        const given = await call('POST', '/v1/destinations', {
          key,
          body: { name: 'Given queue', type: 'aws_sqs', config: { queue_url: queueUrl }, role_arn: `arn:aws:iam::${queueAccount}:role/account-made`, customer },
        });
        expect(given.status, given.text).toBe(201);
        await page.evaluate(`location.hash = '#/endpoints/${given.json.data.id}'`);
        await page.locator('h1', { hasText: 'Given queue' }).waitFor();
        expect(await page.textContent('#settings select[name=connection_id] option:checked')).toBe('As it was set up for you (unchanged)');
        await page.fill('#settings input[name=name]', 'Renamed queue');
        await page.click('#settings button[type=submit]');
        await page.locator('#notice', { hasText: 'Saved.' }).waitFor();
        expect((await call('GET', `/v1/destinations/${given.json.data.id}`, { key })).json.data).toMatchObject({ name: 'Renamed queue', role_arn: `arn:aws:iam::${queueAccount}:role/account-made`, connection_id: null });
        expect(problems).toEqual([]);
      } finally {
        sts.restore();
        await context.close();
      }
    });
  }
});

describe('what an endpoint holds back, at 1280 and 390 px', () => {
  let heldKey = '';
  let pausedId = '';
  beforeAll(async () => {
    heldKey = (await createAccount(call, { name: 'Held' })).key;
    await addEventTypes(call, heldKey, 'invoice.paid');
    const made = await call('POST', '/v1/destinations', { key: heldKey, body: { name: 'Paused receiver', url: `${sink.url}/paused-portal`, customer: 'cus_held', active: false } });
    expect(made.status).toBe(201);
    pausedId = made.json.data.id as string;
    const { secret } = await openPortalSession(call, heldKey, 'cus_held');
    expect((await call('PATCH', `/v1/portal/endpoints/${pausedId}`, { key: secret, body: { event_types: ['invoice.paid'] } })).status).toBe(200);
    for (const n of [1, 2]) await call('POST', '/v1/outbound-events', { key: heldKey, body: { event_type: 'invoice.paid', payload: { n }, customer: 'cus_held' } });
    await eventually(async () => (await call('GET', `/v1/destinations/${pausedId}`, { key: heldKey })).json.data.health.held as number, (held) => held === 2, 20_000);
  });

  for (const width of [1280, 390] as const) {
    it(`a paused endpoint says how many deliveries wait, and since when the oldest waits (${width} px)`, async () => {
      const context = await browser.newContext({ viewport: { width, height: width > 600 ? 900 : 844 } });
      const page = await context.newPage();
      try {
        await page.goto((await openPortalSession(call, heldKey, 'cus_held')).url);
        await page.locator('#endpoints a', { hasText: 'Paused receiver' }).click();
        await page.locator('#held').waitFor();
        // Paused by the account, not by the gateway after failures: the badge says so.
        expect(await page.locator('#health .badge').first().textContent()).toBe('paused');
        expect(await page.textContent('#held')).toMatch(/^2 deliveries waiting, the oldest due (now|\d+ seconds? ago|1 minute ago)$/);
        expect(await page.getAttribute('#held time', 'datetime')).toMatch(/^\d{4}-\d{2}-\d{2}T/);
        if (width < 600) expect(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
        await shot(page, `endpoint-held-${width}`);
      } finally {
        await context.close();
      }
    });
  }
});
