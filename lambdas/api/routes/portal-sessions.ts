import { endPortalLinks, openPortalSession } from '../../portal-sessions';
import { createPortalSessionBody, examplePortalSession, portalSessionResponse, revokePortalSessionsBody } from '../../portal-sessions/shapes';
import { CUSTOMER_MESSAGE } from '../../api-kit/schemas';
import { PORTAL_PATH, publicBaseUrl } from '../public-url';
import { json, jsonBody, noContent } from '../route-doc';
import { defineRoute, type Route } from '../router';
import { parseJsonBody } from '../../api-kit/validation';

export const portalSessionRoutes: Route[] = [
  defineRoute({
    method: 'POST',
    path: '/v1/portal-sessions',
    auth: 'api_key',
    doc: {
      operationId: 'createPortalSession',
      summary: 'Create a consumer portal link for one customer',
      description:
        'The link opens a page where that customer manages its endpoints (destinations with its `customer`), their event types and secrets, and sees its deliveries. It works for that customer only, until `expires_at`, until the API key that created it is revoked, or until you end the customer’s links (`POST /v1/portal-sessions/revoke`), whichever comes first; it cannot create links or change account settings. The secret after `#` is shown once; only its hash is stored. With a verified custom domain the link is on that domain.',
      tag: 'Portal sessions',
      body: jsonBody(createPortalSessionBody, { customer: 'cus_42', expires_in_seconds: 3600 }),
      responses: {
        201: json('The link, shown once.', portalSessionResponse, examplePortalSession),
      },
      errors: {
        400: [
          'customer is required',
          CUSTOMER_MESSAGE,
          'expires_in_seconds must be at least 1',
          'expires_in_seconds must be at most 86400',
          'unknown field: scope',
        ],
      },
    },
    handle: async ({ request, principal, now }) => {
      const body = parseJsonBody(request, createPortalSessionBody);
      const { secret, validUntil, origin } = await openPortalSession(principal, body, publicBaseUrl(request), now);
      return { status: 201, data: { url: `${origin}${PORTAL_PATH}#${secret}`, expires_at: validUntil } };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/portal-sessions/revoke',
    auth: 'api_key',
    doc: {
      operationId: 'revokePortalSessions',
      summary: 'End every open portal link of one customer',
      description:
        'Every link made so far for that customer answers 401 from the next request on, whichever API key made it; links made afterwards work. Answers 204 whether or not the customer had links.',
      tag: 'Portal sessions',
      body: jsonBody(revokePortalSessionsBody, { customer: 'cus_42' }),
      responses: { 204: noContent('Its links are ended.') },
      errors: { 400: ['customer is required', CUSTOMER_MESSAGE, 'unknown field: scope'] },
    },
    handle: async ({ request, principal }) => {
      const body = parseJsonBody(request, revokePortalSessionsBody);
      await endPortalLinks(principal.accountId, body.customer);
      return { status: 204 };
    },
  }),
];
