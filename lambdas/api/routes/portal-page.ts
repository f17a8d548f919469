import { createHash } from 'node:crypto';
import { PORTAL_SCRIPT, PORTAL_STYLE } from '../../portal/assets.generated';
import { defineRoute, type Route } from '../router';
import { PORTAL_PATH } from '../public-url';

/**
 * The consumer portal's page, served by the api function from strings in its own bundle. The page
 * holds no data: its script reads the link's secret from the URL fragment and calls /v1/portal.
 *
 * The policy allows this origin's script and style sheet only (no inline script or style, no eval),
 * API calls to this origin only, and images over https (the account's logo). `frame-ancestors https:`
 * lets an account embed the page in its own https site; framing gives nothing to a page that does
 * not hold the link, whose secret is the whole credential.
 */
const PORTAL_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  'img-src https: data:',
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  'frame-ancestors https:',
].join('; ');

const version = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 12);

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title></title>
<link rel="stylesheet" href="${PORTAL_PATH}/app.css?v=${version(PORTAL_STYLE)}">
<script src="${PORTAL_PATH}/app.js?v=${version(PORTAL_SCRIPT)}" defer></script>
</head>
<body><div id="app"><div class="state loading" id="loading"><span class="mark" aria-hidden="true"></span><h1>Loading…</h1><p>Loading the portal.</p><noscript><p>This page needs JavaScript.</p></noscript></div></div></body>
</html>
`;

const COMMON_HEADERS = {
  'content-security-policy': PORTAL_CSP,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

export const portalPageRoutes: Route[] = [
  defineRoute({
    method: 'GET',
    path: PORTAL_PATH,
    auth: 'none',
    doc: {
      operationId: 'getPortalPage',
      summary: 'The consumer portal page',
      description: 'Open a portal session’s `url`: the page reads the secret from the fragment. Served with a strict Content-Security-Policy.',
      tag: 'Portal',
      responses: { 200: { kind: 'static', description: 'The page.', contentType: 'text/html' } },
    },
    handle: async (_ctx) => ({
      status: 200,
      raw: { contentType: 'text/html; charset=utf-8', body: PAGE, headers: { ...COMMON_HEADERS, 'cache-control': 'no-store' } },
    }),
  }),
  defineRoute({
    method: 'GET',
    path: `${PORTAL_PATH}/app.js`,
    auth: 'none',
    doc: {
      operationId: 'getPortalScript',
      summary: 'The consumer portal’s script',
      tag: 'Portal',
      responses: { 200: { kind: 'static', description: 'The script.', contentType: 'text/javascript' } },
    },
    handle: async (_ctx) => ({
      status: 200,
      raw: { contentType: 'text/javascript; charset=utf-8', body: PORTAL_SCRIPT, headers: { ...COMMON_HEADERS, 'cache-control': 'public, max-age=86400' } },
    }),
  }),
  defineRoute({
    method: 'GET',
    path: `${PORTAL_PATH}/app.css`,
    auth: 'none',
    doc: {
      operationId: 'getPortalStyle',
      summary: 'The consumer portal’s style sheet',
      tag: 'Portal',
      responses: { 200: { kind: 'static', description: 'The style sheet.', contentType: 'text/css' } },
    },
    handle: async (_ctx) => ({
      status: 200,
      raw: { contentType: 'text/css; charset=utf-8', body: PORTAL_STYLE, headers: { ...COMMON_HEADERS, 'cache-control': 'public, max-age=86400' } },
    }),
  }),
];
