import * as z from 'zod';
import { PORTAL_SESSION_SECONDS } from '../domain/portal';
import { customerField, named } from '../api-kit/schemas';

/** A portal link's API shapes: making one for a customer, and ending every link of a customer. */

export const createPortalSessionBody = named(
  'CreatePortalSessionRequest',
  z.strictObject({
    customer: customerField.describe('Your own id for the customer; the portal shows only destinations with this `customer`.'),
    expires_in_seconds: z
      .int()
      .min(PORTAL_SESSION_SECONDS.min)
      .max(PORTAL_SESSION_SECONDS.max)
      .optional()
      .describe(`How long the link works: ${PORTAL_SESSION_SECONDS.min} to ${PORTAL_SESSION_SECONDS.max} seconds; default ${PORTAL_SESSION_SECONDS.default}.`),
  }),
);

export const revokePortalSessionsBody = named(
  'RevokePortalSessionsRequest',
  z.strictObject({ customer: customerField.describe('The customer whose links end: every link made for it so far.') }),
);

export const portalSessionResponse = named(
  'PortalSession',
  z.strictObject({
    url: z
      .url()
      .describe('Opens the portal. The part after `#` is the session’s secret: shown once, stored as a SHA-256 hash, never sent to a server by the browser.'),
    expires_at: z.iso.datetime(),
  }),
  'A link to the consumer portal for one customer, on your verified custom domain when you have one.',
);
export type PortalSessionResponse = z.output<typeof portalSessionResponse>;

export const examplePortalSession = {
  url: 'https://hooks.acme.com/portal#ps_Yq3kN0vQ1m9bF4cX7tP2sLwE8rD5uJ6hG0aZ1yK3nM4',
  expires_at: '2026-06-01T13:00:00.000Z',
} satisfies PortalSessionResponse;
