import * as z from 'zod';
import { liveKeys, type KeyIdentity, type SigningKeySet } from '../domain/signing-keys';
import { at, ids } from '../api-kit/examples';
import { customerField, named } from '../api-kit/schemas';

/** Whose keys a rotation replaces: a customer's, or (no body, or null) the account's own. */
export const rotateSigningKeysBody = named(
  'RotateSigningKeysRequest',
  z.strictObject({
    customer: customerField
      .nullable()
      .optional()
      .describe('The customer whose endpoints’ keys rotate (each customer has its own key pair). Omitted or null: the keys of the account’s own destinations (those of no customer).'),
  }),
);

/** One owner's Ed25519 keys as the API shows them: public halves only; the private key is never answered. */
const signingKeyResponse = named(
  'SigningKey',
  z.strictObject({
    kid: z.string().describe('Sent as `webhook-key-id`; the JWK’s `kid`.'),
    x: z.string().describe('The public key: base64url of 32 bytes (the JWK’s `x`).'),
    created_at: z.iso.datetime(),
    retires_at: z.iso.datetime().nullable().describe('Null for the current key; when a rotated-out key stops signing and leaves the JWKS.'),
  }),
);

export const signingKeysResponse = named(
  'SigningKeys',
  z.strictObject({
    customer: z.string().nullable().describe('Whose keys: the customer whose endpoints they sign, or null for the account’s own destinations.'),
    jwks_url: z.url().describe('The public JWKS these keys are served in: what that customer’s (or the account’s own) receivers verify with.'),
    keys: z.array(signingKeyResponse).describe('Current key first.'),
  }),
);
type SigningKeysResponse = z.output<typeof signingKeysResponse>;

/** The public JWKS document (RFC 7517, keys as RFC 8037 has them). */
export const jwksDocument = named(
  'Jwks',
  z.strictObject({
    keys: z.array(
      z.strictObject({
        kty: z.literal('OKP'),
        crv: z.literal('Ed25519'),
        x: z.string().describe('base64url of the 32-byte public key.'),
        kid: z.string(),
        use: z.literal('sig'),
        alg: z.literal('EdDSA'),
      }),
    ),
  }),
);

export const presentSigningKeys = (set: SigningKeySet<KeyIdentity>, customer: string | null, jwksUrl: string, now: Date): SigningKeysResponse => ({
  customer,
  jwks_url: jwksUrl,
  keys: liveKeys(set, now).map((key) => ({
    kid: key.kid,
    x: key.public_key,
    created_at: key.created_at,
    retires_at: key.kid === set.previous?.kid ? set.previous.retires_at : null,
  })),
});

export const exampleSigningKeys = {
  customer: 'cus_42',
  jwks_url: `https://api.hookgate.example.com/.well-known/jwks/${ids.account}/customers/cus_42.json`,
  keys: [
    { kid: 'key_Zk3pQ8rT2vX9yB4n', x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo', created_at: '2026-06-02T09:00:00.000Z', retires_at: null },
    { kid: 'key_W7mB2cD5eF8gH1jK', x: 'GbH8pWtqRdYz3wXeN6Ms0kLv1uJ9aC4bF7gT2hQ5rZo', created_at: at, retires_at: '2026-06-03T09:00:00.000Z' },
  ],
} satisfies SigningKeysResponse;

export const exampleJwks = {
  keys: exampleSigningKeys.keys.map(({ kid, x }) => ({ kty: 'OKP' as const, crv: 'Ed25519' as const, x, kid, use: 'sig' as const, alg: 'EdDSA' as const })),
} satisfies z.output<typeof jwksDocument>;
