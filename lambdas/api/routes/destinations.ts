import * as z from 'zod';
import { invalid, notFound } from '../../domain/errors';
import { unsendableHeaderMessage } from '../../domain/header-values';
import { isStandardWebhooksSecret, SECRET_ROTATION_OVERLAP_MS } from '../../domain/signing-secret';
import { resolveHost } from '../../adapters/dns';
import { config } from '../../shared/config';
import { newId, newSigningSecret } from '../../shared/secrets';
import { CLOSED_BREAKER } from '../../domain/breaker';
import { findBreaker, listBreakers, resetBreaker } from '../../store/breakers';
import { findDestination, insertDestination, listDestinations, updateDestination } from '../../store/destinations';
import { SIGNATURE_SCHEMES, type DestinationRecord } from '../../store/records';
import { assertPublicDestination } from '../destination-url';
import { exampleDestination, exampleDestinationWithSecret } from '../examples';
import { presentDestination, presentDestinationWithSecret } from '../presenters';
import { json, jsonBody, list, noContent } from '../route-doc';
import { deleteEndpoint } from '../../pipeline/portal-endpoints';
import type { Route } from '../router';
import { CUSTOMER_MESSAGE, customerField, destinationResponse, destinationWithSecretResponse, named } from '../schemas';
import { autoDisableInput, DELIVERY_SETTINGS_ERRORS, rateLimitInput, retryScheduleInput } from '../delivery-settings';
import { DEFAULT_AUTO_DISABLE_HOURS } from '../../domain/auto-disable';
import { hasControlChars, isHeaderName, parseJsonBody, parsePathId, parseWith, sendableHeaderRule, textField } from '../validation';

export const DEFAULT_TIMEOUT_MS = 15_000;

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
  .refine((v) => isHeaderName(v), { error: () => 'auth.name must be a valid HTTP header name' })
  .refine((v) => !RESERVED_HEADERS.has(v.toLowerCase()), { error: () => 'auth.name is a header the gateway sets itself' });

const headerValue = (field: string) =>
  z
    .string()
    .min(1)
    .max(4096)
    .refine(...sendableHeaderRule(field));

const authInput = named(
  'DestinationAuth',
  z.discriminatedUnion('type', [
    z.strictObject({ type: z.literal('bearer'), token: headerValue('auth.token') }),
    z.strictObject({ type: z.literal('header'), name: headerName, value: headerValue('auth.value') }),
  ]),
  'Sent with every delivery: `Authorization: Bearer <token>`, or a custom header. Write-only.',
);

const signingSecret = z
  .string()
  .min(8)
  .max(512)
  .refine((v) => !hasControlChars(v), { error: () => 'signing_secret must not contain control characters' });

const destinationFields = {
  name: textField('name'),
  url: z
    .string()
    .min(1)
    .max(2048)
    .describe('An http(s) URL without credentials; private, loopback and reserved addresses are refused.'),
  signing_secret: signingSecret
    .optional()
    .describe('Default: generated `whsec_` + base64 of 32 random bytes. Rotating it keeps the previous one valid for 24 hours.'),
  auth: authInput.nullable().optional(),
  timeout_ms: z.int().min(100).max(30_000).optional().describe('Default 15000.'),
  active: z.boolean().optional().describe('Default true.'),
  signature_scheme: z
    .enum(SIGNATURE_SCHEMES)
    .optional()
    .describe('Default `hookgate`; `standard_webhooks` needs a `whsec_` secret of 24..64 bytes.'),
  customer: customerField.nullable().optional().describe('Your own id for the customer it belongs to (the consumer portal’s scope). Default null.'),
  retry_schedule: retryScheduleInput,
  auto_disable_after_hours: autoDisableInput,
  rate_limit_per_second: rateLimitInput,
};

const listDestinationsQuery = z.object({ customer: customerField.optional().describe('Only the destinations of this customer.') });

const createDestinationBody = named('CreateDestinationRequest', z.strictObject(destinationFields));
const updateDestinationBody = named(
  'UpdateDestinationRequest',
  z.strictObject({
    ...destinationFields,
    name: destinationFields.name.optional(),
    url: destinationFields.url.optional(),
  }),
);

const destinationErrors = [
  CUSTOMER_MESSAGE,
  ...DELIVERY_SETTINGS_ERRORS,
  'url must be an http or https URL',
  'url must not contain credentials',
  'url must not point to a private or reserved address',
  'url must be at most 2048 characters',
  'timeout_ms must be at least 100',
  'timeout_ms must be at most 30000',
  'auth.type must be one of: bearer, header',
  'auth.token is required',
  'auth.name must be a valid HTTP header name',
  'auth.name is a header the gateway sets itself',
  unsendableHeaderMessage('auth.value'),
  'signing_secret must be at least 8 characters',
  'signing_secret must be whsec_ followed by base64 of 24 to 64 bytes for standard_webhooks',
  'signature_scheme must be one of: hookgate, standard_webhooks',
  'unknown field: nmae',
];

export const assertAllowedUrl = (url: string) => assertPublicDestination(url, config().allowPrivateDestinations, resolveHost);

function assertSecretFitsScheme(d: Pick<DestinationRecord, 'signature_scheme' | 'signing_secret'>): void {
  if (d.signature_scheme === 'standard_webhooks' && !isStandardWebhooksSecret(d.signing_secret)) {
    throw invalid('signing_secret must be whsec_ followed by base64 of 24 to 64 bytes for standard_webhooks');
  }
}

export const destinationRoutes: Route[] = [
  {
    method: 'POST',
    path: '/v1/destinations',
    auth: 'api_key',
    doc: {
      operationId: 'createDestination',
      summary: 'Create a destination',
      description:
        'Deliveries are signed with `Webhook-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">` keyed with the UTF-8 bytes of `signing_secret` (or the Standard Webhooks headers with `signature_scheme: standard_webhooks`).',
      tag: 'Destinations',
      body: jsonBody(createDestinationBody, {
        name: 'orders',
        url: 'https://consumer.example.com/hooks',
        auth: { type: 'bearer', token: 's3cr3t' },
      }),
      responses: { 201: json('The destination, with its signing secret.', destinationWithSecretResponse, exampleDestinationWithSecret) },
      errors: { 400: ['name is required', 'url is required', ...destinationErrors] },
    },
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
        disabled_reason: null,
        customer: body.customer ?? null,
        retry_schedule: body.retry_schedule ?? null,
        auto_disable_after_hours: body.auto_disable_after_hours ?? DEFAULT_AUTO_DISABLE_HOURS,
        rate_limit_per_second: body.rate_limit_per_second ?? null,
        created_at: at,
        updated_at: at,
      };
      assertSecretFitsScheme(record);
      await insertDestination(record);
      return { status: 201, data: presentDestinationWithSecret(record, CLOSED_BREAKER) };
    },
  },
  {
    method: 'GET',
    path: '/v1/destinations',
    auth: 'api_key',
    doc: {
      operationId: 'listDestinations',
      summary: 'List destinations',
      tag: 'Destinations',
      query: listDestinationsQuery,
      responses: { 200: list('The account’s destinations, newest first (no signing secrets).', destinationResponse, [exampleDestination]) },
      errors: { 400: [CUSTOMER_MESSAGE] },
    },
    handle: async ({ request, principal }) => {
      const { customer } = parseWith(listDestinationsQuery, request.query);
      const [destinations, breakers] = await Promise.all([listDestinations(principal.accountId), listBreakers(principal.accountId)]);
      const listed = customer === undefined ? destinations : destinations.filter((d) => d.customer === customer);
      return { status: 200, data: listed.map((d) => presentDestination(d, breakers.get(d.id) ?? CLOSED_BREAKER)) };
    },
  },
  {
    method: 'GET',
    path: '/v1/destinations/:id',
    auth: 'api_key',
    doc: {
      operationId: 'getDestination',
      summary: 'Show a destination, with its signing secret',
      tag: 'Destinations',
      responses: { 200: json('The destination.', destinationWithSecretResponse, exampleDestinationWithSecret) },
    },
    handle: async ({ params, principal }) => {
      const id = parsePathId(params.id);
      const [destination, breaker] = await Promise.all([findDestination(principal.accountId, id), findBreaker(principal.accountId, id)]);
      if (!destination) throw notFound();
      return { status: 200, data: presentDestinationWithSecret(destination, breaker) };
    },
  },
  {
    method: 'PATCH',
    path: '/v1/destinations/:id',
    auth: 'api_key',
    doc: {
      operationId: 'updateDestination',
      summary: 'Change a destination',
      description: '`auth: null` removes auth. A new `signing_secret` keeps the previous one valid for 24 hours (both signatures are sent).',
      tag: 'Destinations',
      body: jsonBody(updateDestinationBody, { active: false }),
      responses: { 200: json('The updated destination (no signing secret).', destinationResponse, { ...exampleDestination, active: false }) },
      errors: { 400: ['name is required', ...destinationErrors] },
    },
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
      if (body.customer !== undefined) changes.customer = body.customer;
      if (body.retry_schedule !== undefined) changes.retry_schedule = body.retry_schedule;
      if (body.auto_disable_after_hours !== undefined) changes.auto_disable_after_hours = body.auto_disable_after_hours;
      if (body.rate_limit_per_second !== undefined) changes.rate_limit_per_second = body.rate_limit_per_second;
      // Switched back on: whatever disabled it is over, and its endpoint starts with a clean record.
      const reenabled = body.active === true && !current.active;
      if (reenabled) changes.disabled_reason = null;
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
      if (reenabled) await resetBreaker(principal.accountId, id);
      return { status: 200, data: presentDestination(updated, await findBreaker(principal.accountId, id)) };
    },
  },
  {
    method: 'DELETE',
    path: '/v1/destinations/:id',
    auth: 'api_key',
    doc: {
      operationId: 'deleteDestination',
      summary: 'Delete a destination',
      description:
        'Its routes go first, so no new event is planned for it; deliveries still waiting for it end `dead_letter` with `end_reason: destination_deleted` and no further try. Events and their attempts stay.',
      tag: 'Destinations',
      responses: { 204: noContent('Deleted.') },
    },
    handle: async ({ params, principal }) => {
      const id = parsePathId(params.id);
      if (!(await findDestination(principal.accountId, id))) throw notFound();
      await deleteEndpoint(principal.accountId, id);
      return { status: 204 };
    },
  },
];
