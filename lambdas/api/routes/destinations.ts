import { invalid, notFound } from '../../domain/errors';
import { ACCOUNT_ACTOR } from '../../destinations/changes';
import { changeDestination, createDestination, END_HELD_PAGE, endHeld, findManagedDestination, listManagedDestinations, removeDestination, showDestination, withHealth } from '../../destinations';
import {
  CAP_ERRORS,
  changedTarget,
  createDestinationBody,
  destinationErrors,
  destinationResponse,
  destinationWithSecretResponse,
  endHeldResponse,
  exampleDestination,
  exampleDestinationWithSecret,
  listDestinationsQuery,
  presentDestination,
  presentDestinationWithSecret,
  requestedTarget,
  updateDestinationBody,
  VERIFICATION_ERRORS,
  verifyDestinationBody,
} from '../../destinations/shapes';
import { resendChallenge, verifyByHand } from '../../destinations/verification';
import { CLOSED_BREAKER } from '../../domain/breaker';
import { settled } from '../outcomes';
import { json, jsonBody, list, noContent } from '../route-doc';
import { defineRoute, type Route } from '../router';
import { CUSTOMER_MESSAGE } from '../../api-kit/schemas';
import { parsePathId, parseWith } from '../../api-kit/validation';
import { parseKeylessBody } from '../../aws-connections/shapes';

export const destinationRoutes: Route[] = [
  defineRoute({
    method: 'POST',
    path: '/v1/destinations',
    auth: 'api_key',
    doc: {
      operationId: 'createDestination',
      summary: 'Create a destination',
      description:
        'Deliveries are signed with `Webhook-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">` keyed with the UTF-8 bytes of `signing_secret` (or the Standard Webhooks headers with `signature_scheme: standard_webhooks`, or Standard Webhooks’ asymmetric `v1a` Ed25519 signature with `webhook-key-id` with `signature_scheme: ed25519`, verified with the keys at the account’s `jwks_url`).',
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
      const body = parseKeylessBody(request, createDestinationBody);
      const { destination } = settled(await createDestination(principal.accountId, { ...body, aws_target: requestedTarget(body) }, ACCOUNT_ACTOR, now));
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
      const listed = await listManagedDestinations(principal.accountId, ACCOUNT_ACTOR, customer);
      return { status: 200, data: listed.map(({ destination, breaker }) => presentDestination(destination, breaker)) };
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
      const shown = await showDestination(principal.accountId, id, ACCOUNT_ACTOR);
      if (!shown) throw notFound();
      return { status: 200, data: presentDestinationWithSecret(shown.destination, shown.breaker) };
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
      const body = parseKeylessBody(request, updateDestinationBody);
      const current = await findManagedDestination(principal.accountId, id, ACCOUNT_ACTOR);
      if (!current) throw notFound();
      const target = changedTarget(current.aws_target, body.config);
      if (typeof target === 'string') throw invalid(target);
      const { destination } = settled(await changeDestination(current, { ...body, aws_target: target }, ACCOUNT_ACTOR, now));
      const shown = await withHealth(destination);
      return { status: 200, data: presentDestination(shown.destination, shown.breaker) };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/destinations/:id/verify',
    auth: 'api_key',
    doc: {
      operationId: 'verifyDestination',
      summary: 'Verify a destination’s endpoint with the challenge it received',
      description:
        'For a receiver that cannot echo the challenge: post the `challenge` of the `hookgate.endpoint.verification` event it received (read from its logs). Hookgate never returns the challenge itself, so only whoever sees the endpoint’s traffic can. The destination becomes `active` and the deliveries it held go, in due order.',
      tag: 'Destinations',
      body: jsonBody(verifyDestinationBody, { challenge: 'q3J8Zr0bQn1x7bYw0kq6d3m5Vb1TgH2y9Qe4sLr8uXo' }),
      responses: { 200: json('The destination, now verified (no signing secret).', destinationResponse, { ...exampleDestination, verify_ownership: true, verified_at: exampleDestination.updated_at }) },
      errors: { 400: [VERIFICATION_ERRORS.mismatch, VERIFICATION_ERRORS.notPending, 'challenge is required'] },
    },
    handle: async ({ request, params, principal, now }) => {
      const id = parsePathId(params.id);
      const { challenge } = parseKeylessBody(request, verifyDestinationBody);
      const current = await findManagedDestination(principal.accountId, id, ACCOUNT_ACTOR);
      if (!current) throw notFound();
      const { destination } = settled(await verifyByHand(current, challenge, ACCOUNT_ACTOR, now));
      const shown = await withHealth(destination);
      return { status: 200, data: presentDestination(shown.destination, shown.breaker) };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/destinations/:id/verification/resend',
    auth: 'api_key',
    doc: {
      operationId: 'resendDestinationVerification',
      summary: 'Send a destination’s endpoint a new challenge',
      description:
        'While it is `pending_verification`: a new challenge replaces the last (which no longer verifies) and is POSTed at once, with a fresh round of resends should the endpoint not echo it. For an endpoint that was down through every resend, or whose challenge was lost.',
      tag: 'Destinations',
      responses: { 202: json('The destination, still pending (no signing secret).', destinationResponse, { ...exampleDestination, verify_ownership: true, status: 'pending_verification' }) },
      errors: { 400: [VERIFICATION_ERRORS.notPending] },
    },
    handle: async ({ params, principal, now }) => {
      const current = await findManagedDestination(principal.accountId, parsePathId(params.id), ACCOUNT_ACTOR);
      if (!current) throw notFound();
      const { destination } = settled(await resendChallenge(current, ACCOUNT_ACTOR, now));
      const shown = await withHealth(destination);
      return { status: 202, data: presentDestination(shown.destination, shown.breaker) };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/destinations/:id/end-held',
    auth: 'api_key',
    doc: {
      operationId: 'endHeldDeliveries',
      summary: 'End the deliveries a destination holds',
      description: `Retention never ends a delivery that still waits: one held by a destination that is paused, waiting for its endpoint’s proof, behind its open breaker or its cap waits as long as that lasts, and its event with it. This ends them: each ends \`dead_letter\` with \`end_reason: held_ended\`, no try spent, and is announced as a \`hookgate.delivery.dead_lettered\` event; an event whose deliveries have all ended settles (and, past its window, goes on the sweeper’s next pass). At most ${END_HELD_PAGE} a call, oldest first: while \`held\` is above 0, call again. A delivery a release let go meanwhile is left to its try.`,
      tag: 'Destinations',
      responses: { 200: json('What this call ended, and what the destination still holds.', endHeldResponse, { ended: 3, held: 0 }) },
    },
    handle: async ({ params, principal, now }) => {
      const current = await findManagedDestination(principal.accountId, parsePathId(params.id), ACCOUNT_ACTOR);
      if (!current) throw notFound();
      const { ended, held } = settled(await endHeld(current, ACCOUNT_ACTOR, now));
      return { status: 200, data: { ended, held } };
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
