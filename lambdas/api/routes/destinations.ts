import { z } from 'zod';
import { badRequest, notFound } from '../../domain/errors';
import { isStandardWebhooksSecret, SECRET_ROTATION_OVERLAP_MS } from '../../domain/signing-secret';
import { resolveHost } from '../../adapters/dns';
import { config } from '../../shared/config';
import { newId, newSigningSecret } from '../../shared/secrets';
import { findDestination, insertDestination, listDestinations, updateDestination } from '../../store/destinations';
import { SIGNATURE_SCHEMES, type DestinationRecord } from '../../store/records';
import { assertPublicDestination } from '../destination-url';
import { presentDestination } from '../presenters';
import type { Route } from '../router';
import { hasControlChars, parseJsonBody, parsePathId, textField } from '../validation';

export const DEFAULT_TIMEOUT_MS = 15_000;

const HEADER_TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
// Headers the gateway sets itself or that would break the HTTP exchange.
const RESERVED_HEADERS = new Set([
  'host',
  'content-length',
  'content-type',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'user-agent',
  'webhook-signature',
  'webhook-id',
  'webhook-timestamp',
  'x-webhook-id',
  'x-event-type',
]);

const headerName = z
  .string()
  .min(1)
  .max(256)
  .refine((v) => HEADER_TOKEN.test(v), { error: () => 'auth.name must be a valid HTTP header name' })
  .refine((v) => !RESERVED_HEADERS.has(v.toLowerCase()), { error: () => 'auth.name is a header the gateway sets itself' });

const headerValue = (field: string) =>
  z
    .string()
    .min(1)
    .max(4096)
    .refine((v) => !/[\r\n\0]/.test(v), { error: () => `${field} must not contain line breaks or null bytes` });

const authInput = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('bearer'), token: headerValue('auth.token') }),
  z.strictObject({ type: z.literal('header'), name: headerName, value: headerValue('auth.value') }),
]);

const signingSecret = z
  .string()
  .min(8)
  .max(512)
  .refine((v) => !hasControlChars(v), { error: () => 'signing_secret must not contain control characters' });

const destinationFields = {
  name: textField('name'),
  url: z.string().min(1).max(2048),
  signing_secret: signingSecret.optional(),
  auth: authInput.nullable().optional(),
  timeout_ms: z.int().min(100).max(30_000).optional(),
  active: z.boolean().optional(),
  signature_scheme: z.enum(SIGNATURE_SCHEMES).optional(),
};

const createDestinationBody = z.strictObject(destinationFields);
const updateDestinationBody = z.strictObject({
  ...destinationFields,
  name: destinationFields.name.optional(),
  url: destinationFields.url.optional(),
});

const assertAllowedUrl = (url: string) => assertPublicDestination(url, config().allowPrivateDestinations, resolveHost);

function assertSecretFitsScheme(d: Pick<DestinationRecord, 'signature_scheme' | 'signing_secret'>): void {
  if (d.signature_scheme === 'standard_webhooks' && !isStandardWebhooksSecret(d.signing_secret)) {
    throw badRequest('signing_secret must be whsec_ followed by base64 of 24 to 64 bytes for standard_webhooks');
  }
}

export const destinationRoutes: Route[] = [
  {
    method: 'POST',
    path: '/v1/destinations',
    auth: 'api_key',
    handle: async ({ request, principal, now }) => {
      const body = parseJsonBody(request, createDestinationBody);
      await assertAllowedUrl(body.url);
      const at = now.toISOString();
      const record: DestinationRecord = {
        id: newId(),
        account_id: principal.accountId,
        name: body.name,
        url: body.url,
        active: body.active ?? true,
        auth: body.auth ?? null,
        timeout_ms: body.timeout_ms ?? DEFAULT_TIMEOUT_MS,
        signature_scheme: body.signature_scheme ?? 'hookgate',
        signing_secret: body.signing_secret ?? newSigningSecret(),
        previous_signing_secret: null,
        previous_secret_expires_at: null,
        created_at: at,
        updated_at: at,
      };
      assertSecretFitsScheme(record);
      await insertDestination(record);
      return { status: 201, data: presentDestination(record, { withSecret: true }) };
    },
  },
  {
    method: 'GET',
    path: '/v1/destinations',
    auth: 'api_key',
    handle: async ({ principal }) => ({
      status: 200,
      data: (await listDestinations(principal.accountId)).map((d) => presentDestination(d, { withSecret: false })),
    }),
  },
  {
    method: 'GET',
    path: '/v1/destinations/:id',
    auth: 'api_key',
    handle: async ({ params, principal }) => {
      const destination = await findDestination(principal.accountId, parsePathId(params.id));
      if (!destination) throw notFound();
      return { status: 200, data: presentDestination(destination, { withSecret: true }) };
    },
  },
  {
    method: 'PATCH',
    path: '/v1/destinations/:id',
    auth: 'api_key',
    handle: async ({ request, params, principal, now }) => {
      const id = parsePathId(params.id);
      const body = parseJsonBody(request, updateDestinationBody);
      const current = await findDestination(principal.accountId, id);
      if (!current) throw notFound();
      if (body.url !== undefined) await assertAllowedUrl(body.url);
      const changes: Partial<DestinationRecord> = { updated_at: now.toISOString() };
      if (body.name !== undefined) changes.name = body.name;
      if (body.url !== undefined) changes.url = body.url;
      if (body.auth !== undefined) changes.auth = body.auth;
      if (body.timeout_ms !== undefined) changes.timeout_ms = body.timeout_ms;
      if (body.active !== undefined) changes.active = body.active;
      if (body.signature_scheme !== undefined) changes.signature_scheme = body.signature_scheme;
      if (body.signing_secret !== undefined && body.signing_secret !== current.signing_secret) {
        // The old secret keeps verifying for a day, so consumers can roll their config without downtime.
        changes.signing_secret = body.signing_secret;
        changes.previous_signing_secret = current.signing_secret;
        changes.previous_secret_expires_at = new Date(now.getTime() + SECRET_ROTATION_OVERLAP_MS).toISOString();
      }
      assertSecretFitsScheme({ ...current, ...changes });
      const updated = await updateDestination(principal.accountId, id, changes);
      if (!updated) throw notFound();
      return { status: 200, data: presentDestination(updated, { withSecret: false }) };
    },
  },
];
