import { invalid, notFound } from '../../domain/errors';
import { parseKeylessBody } from '../../aws-connections/shapes';
import {
  changeDestination,
  createDestination,
  findManagedDestination,
  listEndpoints,
  removeDestination,
  rotateSigningSecret,
  showEndpoint,
  shownRequestHeaders,
} from '../../destinations';
import type { DestinationRecord } from '../../destinations/record';
import {
  CAP_ERRORS,
  changedTarget,
  requestedTarget,
  createPortalEndpointBody,
  endpointErrors,
  exampleDestination,
  exampleEndpoint,
  exampleEndpointWithSecret,
  portalEndpointResponse,
  portalEndpointWithSecretResponse,
  presentEndpoint,
  presentEndpointWithSecret,
  updatePortalEndpointBody,
  VERIFICATION_ERRORS,
  verifyDestinationBody,
  type PortalEndpointWithSecretResponse,
} from '../../destinations/shapes';
import { resendChallenge, verifyByHand } from '../../destinations/verification';
import { resendToEndpoint, sendTestEvent } from '../../replays/portal-delivery';
import { showBrandSettings } from '../../brand';
import { jwksUrl } from '../../accounts/shapes';
import { publicBaseUrl } from '../public-url';
import { examplePortalBrand, presentPortalBrand } from '../../brand/shapes';
import { findCustomerEvent, listCustomerEvents, showEvent } from '../../events';
import { listEventTypes } from '../../event-types';
import { eventTypeResponse, presentEventType } from '../../event-types/shapes';
import { exampleAttempt, exampleOutboundDetail, presentAttempt, presentEventDetail } from '../../events/shapes';
import { ids } from '../../api-kit/examples';
import { settled } from '../outcomes';
import { portalActor, type PortalPrincipal } from '../portal-auth';
import {
  portalEventListItemResponse,
  portalEventQuery,
  portalEventWithAttemptsResponse,
  portalResendBody,
  portalSendResponse,
  portalSessionInfoResponse,
  type PortalEventResponse,
} from '../portal-schemas';
import { json, jsonBody, list, noContent, page } from '../route-doc';
import { defineRoute, type Route } from '../router';
import { eventCursor, parseJsonBody, parsePathId, parseWith } from '../../api-kit/validation';

/**
 * The consumer portal's API: every route takes the portal link's secret only (`Bearer ps_…`), and
 * every read is scoped to the session's account and customer. Another customer's endpoint or event
 * is a 404, exactly as an unknown id is.
 */

const DEFAULT_PAGE = 25;
const cursor = eventCursor('p1');

/** The customer's endpoint, or a 404 for anything else (unknown, another customer's, the account's own). */
async function endpointOf(portal: PortalPrincipal, id: string): Promise<DestinationRecord> {
  const destination = await findManagedDestination(portal.accountId, id, portalActor(portal));
  if (!destination) throw notFound();
  return destination;
}


async function endpointDetail(d: DestinationRecord): Promise<PortalEndpointWithSecretResponse> {
  const { destination, breaker, eventTypes } = await showEndpoint(d);
  return presentEndpointWithSecret(destination, breaker, eventTypes);
}

const examplePortalEvent = {
  id: exampleOutboundDetail.id,
  event_type: exampleOutboundDetail.event_type,
  body: exampleOutboundDetail.body,
  body_encoding: exampleOutboundDetail.body_encoding,
  body_size: exampleOutboundDetail.body_size,
  body_url: null,
  content_type: exampleOutboundDetail.content_type,
  payload_erased: false,
  status: exampleOutboundDetail.status,
  attempts_count: exampleOutboundDetail.attempts_count,
  created_at: exampleOutboundDetail.created_at,
  replay_of: null,
  deliveries: exampleOutboundDetail.deliveries.map((delivery) => ({
    ...delivery,
    request_headers: {
      'content-type': 'application/json',
      'user-agent': 'hookgate/0.4.0',
      'x-webhook-id': exampleOutboundDetail.id,
      'x-hookgate-event-id': exampleOutboundDetail.id,
      traceparent: '<the event’s trace, a new span for each try>',
      'x-event-type': 'invoice.paid',
      'webhook-signature': '<computed for each try>',
    },
  })),
} satisfies PortalEventResponse;


export const portalApiRoutes: Route[] = [
  defineRoute({
    method: 'GET',
    path: '/v1/portal/session',
    auth: 'portal_session',
    doc: {
      operationId: 'getPortalSession',
      summary: 'The portal session: its customer, expiry and the account’s brand',
      tag: 'Portal',
      responses: {
        200: json('The session.', portalSessionInfoResponse, {
          customer: 'cus_42',
          expires_at: '2026-06-01T13:00:00.000Z',
          brand: examplePortalBrand,
          jwks_url: `https://api.hookgate.example.com/.well-known/jwks/${ids.account}/customers/cus_42.json`,
        }),
      },
    },
    handle: async ({ portal, request }) => {
      const brand = presentPortalBrand(await showBrandSettings(portal.accountId));
      const jwks = jwksUrl(publicBaseUrl(request), portal.accountId, portal.customer);
      return { status: 200, data: { customer: portal.customer, expires_at: portal.validUntil, brand, jwks_url: jwks } };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/portal/event-types',
    auth: 'portal_session',
    doc: {
      operationId: 'listPortalEventTypes',
      summary: 'The event types an endpoint can receive',
      tag: 'Portal',
      responses: {
        200: list('The account’s catalog, by name.', eventTypeResponse, [
          { name: 'invoice.paid', description: 'An invoice was paid.', schema: null, created_at: exampleDestination.created_at, updated_at: exampleDestination.created_at },
        ]),
      },
    },
    handle: async ({ portal }) => ({ status: 200, data: (await listEventTypes(portal.accountId)).map(presentEventType) }),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/portal/endpoints',
    auth: 'portal_session',
    doc: {
      operationId: 'listPortalEndpoints',
      summary: 'The customer’s endpoints, with their health and event types',
      tag: 'Portal',
      responses: { 200: list('Newest first; no secrets.', portalEndpointResponse, [exampleEndpoint]) },
    },
    handle: async ({ portal }) => {
      const endpoints = await listEndpoints(portal.accountId, portal.customer);
      return { status: 200, data: endpoints.map((e) => presentEndpoint(e.destination, e.breaker, e.eventTypes)) };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/portal/endpoints',
    auth: 'portal_session',
    doc: {
      operationId: 'createPortalEndpoint',
      summary: 'Add an endpoint',
      description:
        'The same URL checks as any destination (no credentials, no private or reserved addresses). Its signing secret is generated. An AWS `type` takes `config` and the `connection_id` of one of the customer’s AWS connections.',
      tag: 'Portal',
      body: jsonBody(createPortalEndpointBody, { url: 'https://consumer.example.com/hooks', event_types: ['invoice.paid'] }),
      responses: { 201: json('The endpoint, with its signing secret.', portalEndpointWithSecretResponse, exampleEndpointWithSecret) },
      errors: { 400: ['url is required', ...endpointErrors, CAP_ERRORS.customer, CAP_ERRORS.account] },
    },
    handle: async ({ request, portal, now }) => {
      const body = parseKeylessBody(request, createPortalEndpointBody);
      const { destination } = settled(await createDestination(portal.accountId, { ...body, aws_target: requestedTarget(body) }, portalActor(portal), now));
      return { status: 201, data: await endpointDetail(destination) };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/portal/endpoints/:id',
    auth: 'portal_session',
    doc: {
      operationId: 'getPortalEndpoint',
      summary: 'Show an endpoint, with its signing secret',
      tag: 'Portal',
      responses: { 200: json('The endpoint.', portalEndpointWithSecretResponse, exampleEndpointWithSecret) },
    },
    handle: async ({ params, portal }) => ({ status: 200, data: await endpointDetail(await endpointOf(portal, parsePathId(params.id))) }),
  }),
  defineRoute({
    method: 'PATCH',
    path: '/v1/portal/endpoints/:id',
    auth: 'portal_session',
    doc: {
      operationId: 'updatePortalEndpoint',
      summary: 'Change, pause or resume an endpoint, or choose its event types',
      description:
        'A new `url` drops the auth header the account may have set on the endpoint (a credential for the old URL). `active: true` on an endpoint that is off (paused, or disabled by Hookgate) clears `disabled_reason` and starts its breaker afresh.',
      tag: 'Portal',
      body: jsonBody(updatePortalEndpointBody, { active: false }),
      responses: { 200: json('The endpoint.', portalEndpointWithSecretResponse, { ...exampleEndpointWithSecret, active: false }) },
      errors: { 400: endpointErrors },
    },
    handle: async ({ request, params, portal, now }) => {
      const current = await endpointOf(portal, parsePathId(params.id));
      const body = parseKeylessBody(request, updatePortalEndpointBody);
      const target = changedTarget(current.aws_target, body.config);
      if (typeof target === 'string') throw invalid(target);
      const { destination } = settled(await changeDestination(current, { ...body, aws_target: target }, portalActor(portal), now));
      return { status: 200, data: await endpointDetail(destination) };
    },
  }),
  defineRoute({
    method: 'DELETE',
    path: '/v1/portal/endpoints/:id',
    auth: 'portal_session',
    doc: {
      operationId: 'deletePortalEndpoint',
      summary: 'Delete an endpoint',
      description: 'Its routes go first; deliveries still waiting end `dead_letter` (`destination_deleted`).',
      tag: 'Portal',
      responses: { 204: noContent('Deleted.') },
    },
    handle: async ({ params, portal }) => {
      settled(await removeDestination(await endpointOf(portal, parsePathId(params.id)), portalActor(portal)));
      return { status: 204 };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/portal/endpoints/:id/rotate-secret',
    auth: 'portal_session',
    doc: {
      operationId: 'rotatePortalEndpointSecret',
      summary: 'Rotate an endpoint’s signing secret',
      description: 'A new generated secret signs from now on; the previous one keeps signing too (both signatures are sent) for 24 hours.',
      tag: 'Portal',
      responses: {
        200: json('The endpoint with its new secret.', portalEndpointWithSecretResponse, {
          ...exampleEndpointWithSecret,
          previous_secret_expires_at: '2026-06-02T12:00:00.000Z',
        }),
      },
    },
    handle: async ({ params, portal, now }) => {
      const current = await endpointOf(portal, parsePathId(params.id));
      const { destination } = settled(await rotateSigningSecret(current, portalActor(portal), now));
      return { status: 200, data: await endpointDetail(destination) };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/portal/endpoints/:id/verify',
    auth: 'portal_session',
    doc: {
      operationId: 'verifyPortalEndpoint',
      summary: 'Verify an endpoint with the challenge it received',
      description:
        'For a receiver that cannot echo the challenge: the `challenge` of the verification POST the endpoint received, read from its logs. The endpoint is verified and the events held meanwhile go to it.',
      tag: 'Portal',
      body: jsonBody(verifyDestinationBody, { challenge: 'q3J8Zr0bQn1x7bYw0kq6d3m5Vb1TgH2y9Qe4sLr8uXo' }),
      responses: { 200: json('The endpoint, now verified, with its secret.', portalEndpointWithSecretResponse, exampleEndpointWithSecret) },
      errors: { 400: [VERIFICATION_ERRORS.mismatch, VERIFICATION_ERRORS.notPending, 'challenge is required'] },
    },
    handle: async ({ request, params, portal, now }) => {
      const { challenge } = parseKeylessBody(request, verifyDestinationBody);
      const current = await endpointOf(portal, parsePathId(params.id));
      const { destination } = settled(await verifyByHand(current, challenge, portalActor(portal), now));
      return { status: 200, data: await endpointDetail(destination) };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/portal/endpoints/:id/verification/resend',
    auth: 'portal_session',
    doc: {
      operationId: 'resendPortalEndpointVerification',
      summary: 'Send an endpoint a new challenge',
      description: 'While it waits for verification: a new challenge replaces the last and is POSTed to it at once.',
      tag: 'Portal',
      responses: { 202: json('The endpoint, still waiting, with its secret.', portalEndpointWithSecretResponse, { ...exampleEndpointWithSecret, status: 'pending_verification' }) },
      errors: { 400: [VERIFICATION_ERRORS.notPending] },
    },
    handle: async ({ params, portal, now }) => {
      const current = await endpointOf(portal, parsePathId(params.id));
      const { destination } = settled(await resendChallenge(current, portalActor(portal), now));
      return { status: 202, data: await endpointDetail(destination) };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/portal/endpoints/:id/test',
    auth: 'portal_session',
    doc: {
      operationId: 'sendPortalTestEvent',
      summary: 'Send a test event to an endpoint',
      description: 'A new outbound event of type `webhook.test` whose only delivery is this endpoint’s, whatever its event types; signed, retried and logged like any other.',
      tag: 'Portal',
      responses: { 202: json('Queued.', portalSendResponse, { event_id: ids.outboundEvent, status: 'queued' }) },
    },
    handle: async ({ params, portal, now }) => {
      const endpoint = await endpointOf(portal, parsePathId(params.id));
      const event = await sendTestEvent(portal.accountId, endpoint, now);
      return { status: 202, data: { event_id: event.id, status: 'queued' } };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/portal/events',
    auth: 'portal_session',
    doc: {
      operationId: 'listPortalEvents',
      summary: 'The event log of the customer’s endpoints',
      description: 'Outbound events sent to the customer’s endpoints, newest first. `status` filters on the customer’s own deliveries.',
      tag: 'Portal',
      query: portalEventQuery,
      responses: {
        200: page('A page; `next_cursor` sits beside `data`.', portalEventListItemResponse, [
          { id: ids.outboundEvent, event_type: 'invoice.paid', status: 'delivered', attempts_count: 1, created_at: exampleDestination.created_at, endpoint_ids: [ids.destination] },
        ]),
      },
      errors: { 400: ['invalid cursor', 'limit must be at most 100'] },
    },
    handle: async ({ request, portal }) => {
      const query = parseWith(portalEventQuery, request.query);
      const found = await listCustomerEvents(portal.accountId, portal.customer, {
        limit: query.limit ?? DEFAULT_PAGE,
        after: query.cursor ? cursor.decode(query.cursor) : undefined,
        status: query.status,
        event_type: query.event_type,
      });
      const data = found.items.map(({ entry, event, view }) => ({
        id: event.id,
        event_type: event.event_type,
        status: view.status,
        attempts_count: view.attempts,
        created_at: event.created_at,
        endpoint_ids: entry.destination_ids,
      }));
      return { status: 200, data, extra: { next_cursor: found.nextAfter ? cursor.encode(found.nextAfter) : null } };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/portal/events/:id',
    auth: 'portal_session',
    doc: {
      operationId: 'getPortalEvent',
      summary: 'Show an event: its payload and every attempt to the customer’s endpoints',
      tag: 'Portal',
      responses: {
        200: json('The event and its attempts.', portalEventWithAttemptsResponse, {
          event: examplePortalEvent,
          attempts: [{ ...exampleAttempt, event_id: ids.outboundEvent }],
        }),
      },
    },
    handle: async ({ params, portal }) => {
      const id = parsePathId(params.id);
      const shown = await showEvent(portal.accountId, id, { customer: portal.customer });
      if (!shown) throw notFound();
      const full = presentEventDetail(shown.event, shown.body, { bytes: shown.bytes }, new Date());
      const headers = await shownRequestHeaders(shown.event, shown.body.content_type, full.deliveries.map((d) => d.destination_id), portalActor(portal));
      const event: PortalEventResponse = {
        id: full.id,
        event_type: full.event_type,
        body: full.body,
        body_encoding: full.body_encoding,
        body_size: full.body_size,
        body_url: full.body_url,
        content_type: full.content_type,
        payload_erased: full.payload_erased,
        status: full.status,
        attempts_count: full.attempts_count,
        created_at: full.created_at,
        replay_of: full.replay_of,
        deliveries: full.deliveries.map((delivery) => ({ ...delivery, request_headers: headers.get(delivery.destination_id) ?? null })),
      };
      const attempts = shown.attempts.map(presentAttempt);
      return { status: 200, data: { event, attempts } };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/portal/events/:id/resend',
    auth: 'portal_session',
    doc: {
      operationId: 'resendPortalEvent',
      summary: 'Send an event again to one of the customer’s endpoints',
      description:
        'A new event with the same payload (`replay_of` names the original) whose only delivery is that endpoint’s. The original and its other deliveries are left as they are. Only a settled delivery (`delivered` or `dead_letter`) can be resent.',
      tag: 'Portal',
      body: jsonBody(portalResendBody, { endpoint_id: ids.destination }),
      responses: { 202: json('Queued.', portalSendResponse, { event_id: ids.replay, status: 'queued' }) },
      errors: { 400: ['endpoint_id is required', 'invalid endpoint_id', 'the delivery to this endpoint is still in progress'] },
    },
    handle: async ({ request, params, portal, now }) => {
      const id = parsePathId(params.id);
      const { endpoint_id } = parseJsonBody(request, portalResendBody);
      const entry = await findCustomerEvent(portal.accountId, portal.customer, id);
      if (!entry || !entry.destination_ids.includes(endpoint_id)) throw notFound();
      await endpointOf(portal, endpoint_id);
      const outcome = await resendToEndpoint(portal.accountId, id, endpoint_id, now);
      if (outcome.kind === 'not_found') throw notFound();
      if (outcome.kind === 'refused') throw outcome.reason;
      return { status: 202, data: { event_id: outcome.event.id, status: 'queued' } };
    },
  }),
];
