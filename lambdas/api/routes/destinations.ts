import * as z from 'zod';
import { notFound } from '../../domain/errors';
import { unsendableHeaderMessage } from '../../domain/header-values';
import { ACCOUNT_ACTOR, accountCapMessage, customerCapMessage, DEFAULT_ENDPOINT_CAPS } from '../../domain/destination-changes';
import { SIGNATURE_SCHEMES } from '../../domain/signing-secret';
import { CLOSED_BREAKER } from '../../domain/breaker';
import { changeDestination, createDestination, findManagedDestination, removeDestination } from '../../pipeline/destinations';
import { findBreaker, listBreakers } from '../../store/breakers';
import { findDestination, listDestinations } from '../../store/destinations';
import { exampleDestination, exampleDestinationWithSecret } from '../examples';
import { settled } from '../outcomes';
import { presentDestination, presentDestinationWithSecret } from '../presenters';
import { json, jsonBody, list, noContent } from '../route-doc';
import { defineRoute, type Route } from '../router';
import { CUSTOMER_MESSAGE, customerField, destinationResponse, destinationWithSecretResponse, named } from '../schemas';
import { autoDisableInput, DELIVERY_SETTINGS_ERRORS, rateLimitInput, retryScheduleInput } from '../delivery-settings';
import { hasControlChars, isHeaderName, parseJsonBody, parsePathId, parseWith, sendableHeaderRule, textField } from '../validation';

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
  'x-hookgate-event-id',
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

/** Over an endpoint cap, as the OpenAPI document shows it (with the default caps). */
export const CAP_ERRORS = {
  customer: customerCapMessage('cus_42', DEFAULT_ENDPOINT_CAPS.perCustomer),
  account: accountCapMessage(DEFAULT_ENDPOINT_CAPS.perAccount),
};

export const destinationRoutes: Route[] = [
  defineRoute({
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
      errors: { 400: ['name is required', 'url is required', ...destinationErrors, CAP_ERRORS.customer, CAP_ERRORS.account] },
    },
    handle: async ({ request, principal, now }) => {
      const body = parseJsonBody(request, createDestinationBody);
      const { destination } = settled(await createDestination(principal.accountId, body, ACCOUNT_ACTOR, now));
      return { status: 201, data: presentDestinationWithSecret(destination, CLOSED_BREAKER) };
    },
  }),
  defineRoute({
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
  }),
  defineRoute({
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
  }),
  defineRoute({
    method: 'PATCH',
    path: '/v1/destinations/:id',
    auth: 'api_key',
    doc: {
      operationId: 'updateDestination',
      summary: 'Change a destination',
      description:
        '`auth: null` removes auth. A new `signing_secret` keeps the previous one valid for 24 hours (both signatures are sent). `active: true` on a destination that is off clears `disabled_reason` and starts its breaker afresh.',
      tag: 'Destinations',
      body: jsonBody(updateDestinationBody, { active: false }),
      responses: { 200: json('The updated destination (no signing secret).', destinationResponse, { ...exampleDestination, active: false }) },
      errors: { 400: ['name is required', ...destinationErrors, CAP_ERRORS.customer] },
    },
    handle: async ({ request, params, principal, now }) => {
      const id = parsePathId(params.id);
      const body = parseJsonBody(request, updateDestinationBody);
      const current = await findManagedDestination(principal.accountId, id, ACCOUNT_ACTOR);
      if (!current) throw notFound();
      const { destination } = settled(await changeDestination(current, body, ACCOUNT_ACTOR, now));
      return { status: 200, data: presentDestination(destination, await findBreaker(principal.accountId, id)) };
    },
  }),
  defineRoute({
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
      const current = await findManagedDestination(principal.accountId, parsePathId(params.id), ACCOUNT_ACTOR);
      if (!current) throw notFound();
      settled(await removeDestination(current, ACCOUNT_ACTOR));
      return { status: 204 };
    },
  }),
];
