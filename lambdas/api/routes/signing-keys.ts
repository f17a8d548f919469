import { jwksOf } from '../../domain/signing-keys';
import { jwksUrl } from '../../accounts/shapes';
import { servedOnHost } from '../../custom-domains/host-binding';
import { notFound } from '../../domain/errors';
import { findSigningKeys, rotateSigningKeys } from '../../signing-keys';
import { exampleJwks, exampleSigningKeys, jwksDocument, presentSigningKeys, signingKeysResponse } from '../../signing-keys/shapes';
import { publicBaseUrl } from '../public-url';
import { json } from '../route-doc';
import { defineRoute, type Route } from '../router';

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
      summary: 'Make a new Ed25519 signing key current',
      description:
        'For 24 hours `ed25519` destinations get both signatures (space-separated in `webhook-signature`, their keys named in the same order in `webhook-key-id`) and the JWKS lists both keys; then the old key retires from both. A rotation within those 24 hours retires the older key at once. The private keys are never shown.',
      tag: 'Accounts',
      responses: { 200: json('The account’s live keys, current first.', signingKeysResponse, exampleSigningKeys) },
    },
    handle: async ({ principal, request, now }) => {
      const set = await rotateSigningKeys(principal.accountId, now);
      return { status: 200, data: presentSigningKeys(set, jwksUrl(publicBaseUrl(request), principal.accountId), now) };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/.well-known/jwks/:account_id.json',
    auth: 'none',
    doc: {
      operationId: 'getJwks',
      summary: 'An account’s public signing keys (JWKS)',
      description:
        'Open: `/.well-known/jwks/{account_id}.json`, `{"keys": [{"kty": "OKP", "crv": "Ed25519", "x", "kid", "use": "sig", "alg": "EdDSA"}]}` with `Cache-Control: public, max-age=300`: the keys `ed25519` destinations are signed with (none before the account’s first such destination). On a verified custom domain, only its owner’s. Not wrapped in the `{data}` envelope.',
      tag: 'Accounts',
      responses: {
        200: {
          kind: 'raw_json',
          description: 'The JWKS (RFC 7517) of the account’s live Ed25519 keys.',
          data: jwksDocument,
          example: exampleJwks,
          headers: { 'Cache-Control': { description: 'Receivers may cache it this long.', value: JWKS_CACHE_CONTROL } },
        },
      },
      errors: { 404: ['Not found'] },
    },
    handle: async ({ params, request, now }) => {
      const accountId = params.account_id ?? '';
      if (!ACCOUNT_ID.test(accountId)) throw notFound();
      if (!(await servedOnHost(request.host, { kind: 'account', accountId }, now))) throw notFound();
      const jwks = jwksOf(await findSigningKeys(accountId, false), now);
      return {
        status: 200,
        raw: {
          contentType: 'application/json; charset=utf-8',
          body: JSON.stringify(jwks),
          headers: { 'cache-control': JWKS_CACHE_CONTROL },
        },
      };
    },
  }),
];
