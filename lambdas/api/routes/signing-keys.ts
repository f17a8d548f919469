import { jwksOf } from '../../domain/signing-keys';
import { jwksUrl } from '../../accounts/shapes';
import { servedOnHost } from '../../custom-domains/host-binding';
import { notFound } from '../../domain/errors';
import { findSigningKeys, rotateSigningKeys } from '../../signing-keys';
import { exampleJwks, exampleSigningKeys, jwksDocument, presentSigningKeys, rotateSigningKeysBody, signingKeysResponse } from '../../signing-keys/shapes';
import { isCustomerId } from '../../domain/portal';
import { CUSTOMER_MESSAGE } from '../../api-kit/schemas';
import { publicBaseUrl } from '../public-url';
import { json, jsonBody } from '../route-doc';
import type { ApiRequest, RawBody } from '../http';
import { defineRoute, type Route } from '../router';
import { parseJsonBody } from '../../api-kit/validation';

/** Receivers may cache the JWKS this long; a rotation's overlap (24 h) is far longer, and verifiers refetch on an unknown `kid`. */
const JWKS_CACHE_CONTROL = 'public, max-age=300';
const ACCOUNT_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export const signingKeyRoutes: Route[] = [
  defineRoute({
    method: 'POST',
    path: '/v1/signing-keys/rotate',
    auth: 'api_key',
    doc: {
      operationId: 'rotateSigningKeys',
      summary: 'Make a new Ed25519 signing key current, for one customer or the account’s own destinations',
      description:
        'Each customer’s `ed25519` endpoints are signed with that customer’s own key pair, the account’s own destinations (no `customer`) with the account’s: a delivery captured at one customer’s receiver does not verify at another’s. This rotates one of them (`customer`, or none for the account’s own). For 24 hours its `ed25519` destinations get both signatures (space-separated in `webhook-signature`, their keys named in the same order in `webhook-key-id`) and its JWKS lists both keys; then the old key retires from both. A rotation within those 24 hours retires the older key at once. A customer with no keys yet gets its first. The private keys are never shown.',
      tag: 'Accounts',
      body: jsonBody(rotateSigningKeysBody, { customer: 'cus_42' }),
      responses: { 200: json('Its live keys, current first, and the JWKS they are served in.', signingKeysResponse, exampleSigningKeys) },
      errors: { 400: [CUSTOMER_MESSAGE, 'unknown field: kid'] },
    },
    handle: async ({ principal, request, now }) => {
      const customer = parseJsonBody(request, rotateSigningKeysBody).customer ?? null;
      const set = await rotateSigningKeys(principal.accountId, customer, now);
      return { status: 200, data: presentSigningKeys(set, customer, jwksUrl(publicBaseUrl(request), principal.accountId, customer), now) };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/.well-known/jwks/:account_id.json',
    auth: 'none',
    doc: {
      operationId: 'getJwks',
      summary: 'The public signing keys (JWKS) of an account’s own destinations',
      description:
        'Open: `/.well-known/jwks/{account_id}.json`, `{"keys": [{"kty": "OKP", "crv": "Ed25519", "x", "kid", "use": "sig", "alg": "EdDSA"}]}` with `Cache-Control: public, max-age=300`: the keys the account’s own `ed25519` destinations (those of no `customer`) are signed with (none before the first such destination). A customer’s endpoints are signed with its own keys, at `/.well-known/jwks/{account_id}/customers/{customer}.json`. On a verified custom domain, only its owner’s. Not wrapped in the `{data}` envelope.',
      tag: 'Accounts',
      responses: { 200: jwksAnswer('The JWKS (RFC 7517) of the live Ed25519 keys of the account’s own destinations.') },
      errors: { 404: ['Not found'] },
    },
    handle: ({ params, request, now }) => serveJwks(request, params.account_id ?? '', null, now),
  }),
  defineRoute({
    method: 'GET',
    path: '/.well-known/jwks/:account_id/customers/:customer.json',
    auth: 'none',
    doc: {
      operationId: 'getCustomerJwks',
      summary: 'The public signing keys (JWKS) of one customer’s endpoints',
      description:
        'Open, as the account’s own JWKS is: the keys that customer’s `ed25519` endpoints are signed with, made when its first such endpoint is saved (none before), and that sign no one else’s. The customer id is URL-encoded. Its portal shows this URL. On a verified custom domain, only its owner’s customers’. Not wrapped in the `{data}` envelope.',
      tag: 'Accounts',
      responses: { 200: jwksAnswer('The JWKS (RFC 7517) of the customer’s live Ed25519 keys.') },
      errors: { 404: ['Not found'] },
    },
    handle: ({ params, request, now }) => {
      const customer = params.customer ?? '';
      if (!isCustomerId(customer)) throw notFound();
      return serveJwks(request, params.account_id ?? '', customer, now);
    },
  }),
];

function jwksAnswer(description: string) {
  return {
    kind: 'raw_json' as const,
    description,
    data: jwksDocument,
    example: exampleJwks,
    headers: { 'Cache-Control': { description: 'Receivers may cache it this long.', value: JWKS_CACHE_CONTROL } },
  };
}

async function serveJwks(request: ApiRequest, accountId: string, customer: string | null, now: Date): Promise<{ status: 200; raw: RawBody }> {
  if (!ACCOUNT_ID.test(accountId)) throw notFound();
  if (!(await servedOnHost(request.host, { kind: 'account', accountId }, now))) throw notFound();
  const jwks = jwksOf(await findSigningKeys(accountId, customer, false), now);
  return {
    status: 200,
    raw: {
      contentType: 'application/json; charset=utf-8',
      body: JSON.stringify(jwks),
      headers: { 'cache-control': JWKS_CACHE_CONTROL },
    },
  };
}
