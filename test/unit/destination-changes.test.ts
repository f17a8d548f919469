import { describe, expect, it } from 'vitest';
import {
  ACCOUNT_ACTOR,
  CUSTOMER_CONNECTION_MESSAGE,
  mayManage,
  newDestinationSettings,
  planDestinationChange,
  type DestinationActor,
  type DestinationInput,
  type DestinationSettings,
} from '../../lambdas/destinations/changes';
import { endpointCapRefusal } from '../../lambdas/domain/endpoint-caps';
import { Refusal } from '../../lambdas/domain/errors';
import { maxInFlight } from '../../lambdas/domain/max-in-flight';

const NOW = new Date('2026-01-01T00:00:00.000Z');
const DAY_LATER = '2026-01-02T00:00:00.000Z';
const GENERATED = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
const CUSTOMER: DestinationActor = { kind: 'customer', customer: 'cus_a' };
const BEARER = { type: 'bearer' as const, token: 'account-token' };
const HEADER = { type: 'header' as const, name: 'X-Api-Key', value: 'account-key' };
const QUEUE = { type: 'aws_sqs' as const, queue_url: 'https://sqs.eu-west-1.amazonaws.com/123456789012/orders' };
const OTHER_QUEUE = { type: 'aws_sqs' as const, queue_url: 'https://sqs.eu-west-1.amazonaws.com/123456789012/orders-2' };
const BUCKET = { type: 'aws_s3' as const, bucket: 'events-archive', key_template: 'hooks/{event_id}', region: null };
const CONNECTION_ROLE = 'arn:aws:iam::123456789012:role/HookgateDelivery-0123456789ab';
const CHALLENGE = 'challenge-1';
const OWNERSHIP = { challenge: CHALLENGE, required: false };
const REQUIRED = { challenge: CHALLENGE, required: true };
/** A new http endpoint that waits for its proof. */
const VERIFYING = { verify_ownership: true, verification_challenge: CHALLENGE, verified_at: null };
const SCHEME_MESSAGE = 'signing_secret must be whsec_ followed by base64 of 24 to 64 bytes for standard_webhooks';

const destination = (overrides: Partial<DestinationSettings> = {}): DestinationSettings => ({
  name: 'orders',
  url: 'https://old.example.com/hooks',
  aws_target: null,
  role_arn: null,
  listen_session: null,
  connection_id: null,
  external_id: null,
  active: true,
  auth: null,
  timeout_ms: 15_000,
  signature_scheme: 'hookgate',
  signing_secret: 'old-secret',
  previous_signing_secret: null,
  previous_secret_expires_at: null,
  disabled_reason: null,
  customer: 'cus_a',
  retry_schedule: null,
  auto_disable_after_hours: 120,
  rate_limit_per_second: null,
  max_in_flight: 10,
  verify_ownership: false,
  verification_challenge: null,
  verified_at: null,
  ...overrides,
});

/** Every setting the account may choose, each different from its default. */
const OWN_SETTINGS = {
  name: 'orders',
  url: 'https://a.example.com/h',
  customer: 'cus_b',
  auth: BEARER,
  active: false,
  timeout_ms: 500,
  signing_secret: 'mine-mine',
  retry_schedule: [0, 5],
  auto_disable_after_hours: 0,
  rate_limit_per_second: 3,
  max_in_flight: 50,
};

describe('a new destination', () => {
  const DEFAULTS = {
    aws_target: null,
    role_arn: null,
    listen_session: null,
    connection_id: null,
    external_id: null,
    active: true,
    auth: null,
    timeout_ms: 15_000,
    signature_scheme: 'hookgate',
    signing_secret: GENERATED,
    previous_signing_secret: null,
    previous_secret_expires_at: null,
    disabled_reason: null,
    retry_schedule: null,
    auto_disable_after_hours: 120,
    rate_limit_per_second: null,
    max_in_flight: 10,
    verify_ownership: false,
    verification_challenge: null,
    verified_at: null,
  };

  it.each<[string, Parameters<typeof newDestinationSettings>[0], DestinationActor, DestinationSettings]>([
    [
      'from the account, with defaults',
      { name: 'orders', url: 'https://a.example.com/h' },
      ACCOUNT_ACTOR,
      { ...DEFAULTS, name: 'orders', url: 'https://a.example.com/h', customer: null } as DestinationSettings,
    ],
    [
      'from the account, for a customer, with its own settings',
      OWN_SETTINGS,
      ACCOUNT_ACTOR,
      { ...DEFAULTS, ...OWN_SETTINGS } as DestinationSettings,
    ],
    [
      'from a customer: its own, named after the host',
      { url: 'https://a.example.com:8443/h' },
      CUSTOMER,
      { ...DEFAULTS, ...VERIFYING, name: 'a.example.com:8443', url: 'https://a.example.com:8443/h', customer: 'cus_a' } as DestinationSettings,
    ],
    [
      'from a customer that tries what only the account may set',
      { url: 'https://a.example.com/h', name: 'mine', customer: 'cus_b', auth: BEARER, signing_secret: 'chosen-secret', timeout_ms: 100, max_in_flight: 500 },
      CUSTOMER,
      { ...DEFAULTS, ...VERIFYING, name: 'mine', url: 'https://a.example.com/h', customer: 'cus_a' } as DestinationSettings,
    ],
    [
      'an AWS destination: its url shows its target, its name defaults to its type',
      { url: '', aws_target: QUEUE },
      ACCOUNT_ACTOR,
      { ...DEFAULTS, aws_target: QUEUE, name: 'aws_sqs', url: QUEUE.queue_url, customer: null } as DestinationSettings,
    ],
    [
      'an S3 destination shows as s3://bucket/template',
      { name: 'archive', url: '', aws_target: BUCKET },
      ACCOUNT_ACTOR,
      { ...DEFAULTS, aws_target: BUCKET, name: 'archive', url: 's3://events-archive/hooks/{event_id}', customer: null } as DestinationSettings,
    ],
    [
      'a cli destination (hookgate listen): its url names its session',
      { name: 'hookgate listen', url: '', listen_session: 'session-1', customer: 'cus_a' },
      ACCOUNT_ACTOR,
      { ...DEFAULTS, listen_session: 'session-1', name: 'hookgate listen', url: 'listen:session-1', customer: 'cus_a' } as DestinationSettings,
    ],
    [
      'a customer cannot make one',
      { url: 'https://a.example.com/h', listen_session: 'session-1' },
      CUSTOMER,
      { ...DEFAULTS, ...VERIFYING, name: 'a.example.com', url: 'https://a.example.com/h', customer: 'cus_a' } as DestinationSettings,
    ],
    [
      'a customer’s AWS endpoint, through its connection (role and external id copied from it)',
      { url: '', aws_target: QUEUE, connection_id: 'conn-1', role_arn: CONNECTION_ROLE, external_id: 'hookgate-x' },
      CUSTOMER,
      { ...DEFAULTS, aws_target: QUEUE, name: 'aws_sqs', url: QUEUE.queue_url, connection_id: 'conn-1', role_arn: CONNECTION_ROLE, external_id: 'hookgate-x', customer: 'cus_a' } as DestinationSettings,
    ],
    [
      'from the account, asking for proof',
      { name: 'orders', url: 'https://a.example.com/h', verify_ownership: true },
      ACCOUNT_ACTOR,
      { ...DEFAULTS, ...VERIFYING, name: 'orders', url: 'https://a.example.com/h', customer: null } as DestinationSettings,
    ],
  ])('%s', (_label, input, actor, expected) => expect(newDestinationSettings(input, actor, GENERATED, OWNERSHIP)).toEqual(expected));

  it.each<[string, Parameters<typeof newDestinationSettings>[0], DestinationActor, typeof OWNERSHIP, boolean | string]>([
    ['the account’s own, by default', { url: 'https://a.example.com/h' }, ACCOUNT_ACTOR, OWNERSHIP, false],
    ['the account’s own where the deployment requires proof', { url: 'https://a.example.com/h' }, ACCOUNT_ACTOR, REQUIRED, true],
    ['the account declines proof where it is required', { url: 'https://a.example.com/h', verify_ownership: false }, ACCOUNT_ACTOR, REQUIRED, 'verify_ownership cannot be false: this deployment requires every endpoint to prove its ownership'],
    ['a customer cannot decline it', { url: 'https://a.example.com/h', verify_ownership: false }, CUSTOMER, OWNERSHIP, true],
    ['an AWS destination asking for it', { url: '', aws_target: QUEUE, verify_ownership: true }, ACCOUNT_ACTOR, OWNERSHIP, 'verify_ownership is only for http destinations'],
    ['an AWS destination where it is required: nothing to prove', { url: '', aws_target: QUEUE }, ACCOUNT_ACTOR, REQUIRED, false],
    ['a cli destination where it is required: nothing to prove', { name: 'hookgate listen', url: '', listen_session: 'session-1' }, ACCOUNT_ACTOR, REQUIRED, false],
  ])('proof of ownership: %s', (_label, input, actor, ownership, expected) => {
    const result = newDestinationSettings(input, actor, GENERATED, ownership);
    expect(result instanceof Refusal ? result.message : result.verify_ownership).toBe(expected);
  });

  it.each<[string, Parameters<typeof newDestinationSettings>[0], DestinationActor, string | null]>([
    ['a customer’s AWS endpoint without a connection', { url: '', aws_target: QUEUE }, CUSTOMER, CUSTOMER_CONNECTION_MESSAGE],
    ['a customer’s AWS endpoint with a bare role', { url: '', aws_target: QUEUE, role_arn: CONNECTION_ROLE }, CUSTOMER, CUSTOMER_CONNECTION_MESSAGE],
    ['the account’s AWS destination without a connection (its own role)', { url: '', aws_target: QUEUE }, ACCOUNT_ACTOR, null],
    ['a customer’s http endpoint', { url: 'https://a.example.com/h' }, CUSTOMER, null],
  ])('%s', (_label, input, actor, message) => {
    const result = newDestinationSettings(input, actor, GENERATED, OWNERSHIP);
    expect(result instanceof Refusal ? result.message : null).toBe(message);
  });

  it.each([
    ['a secret that is no whsec_ key', { signing_secret: 'plain-secret' }, SCHEME_MESSAGE],
    ['the generated secret', {}, null],
  ])('standard_webhooks with %s', (_label, extra, message) => {
    const result = newDestinationSettings({ name: 'n', url: 'https://a.example.com/', signature_scheme: 'standard_webhooks', ...extra }, ACCOUNT_ACTOR, GENERATED, OWNERSHIP);
    expect(result instanceof Refusal ? result.message : null).toBe(message);
  });
});

describe('the concurrency cap in force', () => {
  it.each<[string, { max_in_flight?: number | null }, number]>([
    ['stored before the setting', {}, 10],
    ['null', { max_in_flight: null }, 10],
    ['its own', { max_in_flight: 1 }, 1],
    ['the most', { max_in_flight: 1000 }, 1000],
  ])('%s', (_label, destination, expected) => expect(maxInFlight(destination)).toBe(expected));
});

describe('a change', () => {
  const off = { active: false };
  const autoDisabled = { active: false, disabled_reason: 'every delivery failed for 120 hours (since 2025-12-27T00:00:00.000Z)' };
  /** A customer's new URL waits for its endpoint's proof. */
  const PROVES = { verify_ownership: true, verification_challenge: CHALLENGE, verified_at: null };
  const rotated = { signing_secret: 'new-secret', previous_signing_secret: 'old-secret', previous_secret_expires_at: DAY_LATER };

  it.each<[string, Partial<DestinationSettings>, DestinationInput, DestinationActor, Partial<DestinationSettings>, boolean, string | null]>([
    // label, current, request, actor → changes, breaker reset, customer joined
    ['pause', {}, { active: false }, ACCOUNT_ACTOR, { active: false }, false, null],
    ['pause from the portal', {}, { active: false }, CUSTOMER, { active: false }, false, null],
    ['re-enable after a pause', off, { active: true }, ACCOUNT_ACTOR, { active: true, disabled_reason: null }, true, null],
    ['re-enable after auto-disable', autoDisabled, { active: true }, ACCOUNT_ACTOR, { active: true, disabled_reason: null }, true, null],
    ['re-enable from the portal', autoDisabled, { active: true }, CUSTOMER, { active: true, disabled_reason: null }, true, null],
    ['active: true on an active one', {}, { active: true }, CUSTOMER, { active: true }, false, null],
    ['still off', off, { active: false, name: 'x' }, ACCOUNT_ACTOR, { active: false, name: 'x' }, false, null],
    ['a customer moves it: bearer auth dropped', { auth: BEARER }, { url: 'https://new.example.com/' }, CUSTOMER, { url: 'https://new.example.com/', auth: null, ...PROVES }, false, null],
    ['a customer moves it: header auth dropped', { auth: HEADER }, { url: 'https://new.example.com/' }, CUSTOMER, { url: 'https://new.example.com/', auth: null, ...PROVES }, false, null],
    ['a customer sends the same URL: auth kept', { auth: BEARER }, { url: 'https://old.example.com/hooks' }, CUSTOMER, { url: 'https://old.example.com/hooks' }, false, null],
    ['a customer renames it: auth kept', { auth: BEARER }, { name: 'renamed' }, CUSTOMER, { name: 'renamed' }, false, null],
    ['a customer moves one without auth', {}, { url: 'https://new.example.com/' }, CUSTOMER, { url: 'https://new.example.com/', ...PROVES }, false, null],
    ['the account moves it: its auth kept', { auth: BEARER }, { url: 'https://new.example.com/' }, ACCOUNT_ACTOR, { url: 'https://new.example.com/' }, false, null],
    ['the account moves it with new auth', { auth: BEARER }, { url: 'https://new.example.com/', auth: HEADER }, ACCOUNT_ACTOR, { url: 'https://new.example.com/', auth: HEADER }, false, null],
    ['the account removes auth', { auth: BEARER }, { auth: null }, ACCOUNT_ACTOR, { auth: null }, false, null],
    ['a customer tries the account’s fields', { auth: BEARER }, { auth: null, customer: 'cus_b', timeout_ms: 100, signing_secret: 'mine-mine', max_in_flight: 500 }, CUSTOMER, {}, false, null],
    ['the account gives it to a customer', { customer: null }, { customer: 'cus_b' }, ACCOUNT_ACTOR, { customer: 'cus_b' }, false, 'cus_b'],
    ['the account moves it to another customer', {}, { customer: 'cus_b' }, ACCOUNT_ACTOR, { customer: 'cus_b' }, false, 'cus_b'],
    ['the account keeps its customer', {}, { customer: 'cus_a' }, ACCOUNT_ACTOR, { customer: 'cus_a' }, false, null],
    ['the account takes it back', {}, { customer: null }, ACCOUNT_ACTOR, { customer: null }, false, null],
    ['the account orders it per key', {}, { ordering: 'per_key' }, ACCOUNT_ACTOR, { ordering: 'per_key' }, false, null],
    ['a customer tries to order it', {}, { ordering: 'per_key' }, CUSTOMER, {}, false, null],
    ['a new secret', {}, { signing_secret: 'new-secret' }, ACCOUNT_ACTOR, rotated, false, null],
    ['the same secret', {}, { signing_secret: 'old-secret' }, ACCOUNT_ACTOR, {}, false, null],
    [
      'delivery settings',
      {},
      { timeout_ms: 100, retry_schedule: [0], auto_disable_after_hours: 1, rate_limit_per_second: 2, max_in_flight: 1 },
      ACCOUNT_ACTOR,
      { timeout_ms: 100, retry_schedule: [0], auto_disable_after_hours: 1, rate_limit_per_second: 2, max_in_flight: 1 },
      false,
      null,
    ],
    ['a new queue for an SQS destination: its url follows', { aws_target: QUEUE, url: QUEUE.queue_url }, { aws_target: OTHER_QUEUE }, ACCOUNT_ACTOR, { aws_target: OTHER_QUEUE, url: OTHER_QUEUE.queue_url }, false, null],
    [
      'a customer retargets its AWS endpoint within its connection',
      { aws_target: QUEUE, url: QUEUE.queue_url, connection_id: 'conn-1' },
      { aws_target: OTHER_QUEUE },
      CUSTOMER,
      { aws_target: OTHER_QUEUE, url: OTHER_QUEUE.queue_url },
      false,
      null,
    ],
    ['a customer renames an AWS endpoint the account made without a connection', { aws_target: QUEUE, url: QUEUE.queue_url }, { name: 'mine' }, CUSTOMER, { name: 'mine' }, false, null],
  ])('%s', (_label, current, request, actor, changes, resetBreaker, joinsCustomer) => {
    // A URL its customer gives it proves itself; nothing else here touches proof of ownership.
    const verification = 'verification_challenge' in changes ? 'start' : null;
    expect(planDestinationChange(destination(current), request, actor, NOW, OWNERSHIP)).toEqual({ changes, resetBreaker, joinsCustomer, verification });
  });

  const pending = { verify_ownership: true, verification_challenge: 'old-challenge', verified_at: null };
  const verified = { verify_ownership: true, verification_challenge: null, verified_at: '2025-12-31T00:00:00.000Z' };
  const restart = { verification_challenge: CHALLENGE, verified_at: null };
  it.each<[string, Partial<DestinationSettings>, DestinationInput, DestinationActor, typeof OWNERSHIP, Partial<DestinationSettings>, 'start' | 'release' | null]>([
    // label, current, request, actor, ownership → changes, verification step
    ['a verified endpoint moved: it proves the new URL', verified, { url: 'https://new.example.com/' }, ACCOUNT_ACTOR, OWNERSHIP, { url: 'https://new.example.com/', ...restart }, 'start'],
    ['a pending endpoint moved: a new challenge', pending, { url: 'https://new.example.com/' }, ACCOUNT_ACTOR, OWNERSHIP, { url: 'https://new.example.com/', ...restart }, 'start'],
    ['a verified endpoint renamed: still verified', verified, { name: 'x' }, ACCOUNT_ACTOR, OWNERSHIP, { name: 'x' }, null],
    ['the same URL sent again: still verified', verified, { url: 'https://old.example.com/hooks' }, ACCOUNT_ACTOR, OWNERSHIP, { url: 'https://old.example.com/hooks' }, null],
    ['the account asks for proof', {}, { verify_ownership: true }, ACCOUNT_ACTOR, OWNERSHIP, { verify_ownership: true, ...restart }, 'start'],
    ['the account stops waiting for proof: held deliveries go', pending, { verify_ownership: false }, ACCOUNT_ACTOR, OWNERSHIP, { verify_ownership: false, verification_challenge: null }, 'release'],
    ['a customer moves an endpoint the account made without proof', {}, { url: 'https://new.example.com/' }, CUSTOMER, OWNERSHIP, { url: 'https://new.example.com/', verify_ownership: true, ...restart }, 'start'],
    ['the account moves its own where proof is required', {}, { url: 'https://new.example.com/' }, ACCOUNT_ACTOR, REQUIRED, { url: 'https://new.example.com/', verify_ownership: true, ...restart }, 'start'],
    ['a customer cannot stop the wait', pending, { verify_ownership: false } as DestinationInput, CUSTOMER, OWNERSHIP, {}, null],
  ])('proof of ownership: %s', (_label, current, request, actor, ownership, changes, verification) => {
    const plan = planDestinationChange(destination(current), request, actor, NOW, ownership);
    expect(plan instanceof Refusal ? plan.message : { changes: plan.changes, verification: plan.verification }).toEqual({ changes, verification });
  });

  it.each<[string, Partial<DestinationSettings>, DestinationInput, string]>([
    ['proof for an AWS destination', { aws_target: QUEUE }, { verify_ownership: true }, 'verify_ownership is only for http destinations'],
    ['no proof where it is required', {}, { verify_ownership: false }, 'verify_ownership cannot be false: this deployment requires every endpoint to prove its ownership'],
  ])('refused: %s', (_label, current, request, message) => {
    const result = planDestinationChange(destination(current), request, ACCOUNT_ACTOR, NOW, REQUIRED);
    expect(result instanceof Refusal ? result.message : null).toBe(message);
  });

  it.each<[string, Partial<DestinationSettings>, DestinationInput, string | null]>([
    ['standard_webhooks over a plain secret', {}, { signature_scheme: 'standard_webhooks' }, SCHEME_MESSAGE],
    ['standard_webhooks with a new whsec_ secret', {}, { signature_scheme: 'standard_webhooks', signing_secret: GENERATED }, null],
    ['a plain secret on a standard_webhooks destination', { signature_scheme: 'standard_webhooks', signing_secret: GENERATED }, { signing_secret: 'plain-secret' }, SCHEME_MESSAGE],
    ['a URL for an AWS destination', { aws_target: QUEUE }, { url: 'https://a.example.com/' }, 'url is only for http destinations; aws_sqs takes config'],
    ['a URL for a cli destination', { listen_session: 'session-1' }, { url: 'https://a.example.com/' }, 'url is only for http destinations; a cli destination delivers to its hookgate listen'],
    ['another type for an AWS destination', { aws_target: QUEUE }, { aws_target: BUCKET }, 'type cannot change: create a destination of the new type'],
    ['an AWS target for an http destination', {}, { aws_target: QUEUE }, 'type cannot change: create a destination of the new type'],
  ])('%s', (_label, current, request, message) => {
    const result = planDestinationChange(destination(current), request, ACCOUNT_ACTOR, NOW, OWNERSHIP);
    expect(result instanceof Refusal ? result.message : null).toBe(message);
  });

  it.each<[string, Partial<DestinationSettings>, DestinationInput]>([
    ['retargets an AWS endpoint that has no connection', { aws_target: QUEUE }, { aws_target: OTHER_QUEUE }],
    ['drops its endpoint’s connection', { aws_target: QUEUE, connection_id: 'conn-1' }, { connection_id: null }],
  ])('a customer never %s', (_label, current, request) => {
    const result = planDestinationChange(destination({ ...current, customer: 'cus_a' }), request, CUSTOMER, NOW, OWNERSHIP);
    expect(result instanceof Refusal ? result.message : null).toBe(CUSTOMER_CONNECTION_MESSAGE);
  });
});

describe('who may manage a destination', () => {
  it.each<[DestinationActor, string | null, boolean]>([
    [ACCOUNT_ACTOR, null, true],
    [ACCOUNT_ACTOR, 'cus_a', true],
    [CUSTOMER, 'cus_a', true],
    [CUSTOMER, 'cus_b', false],
    [CUSTOMER, null, false],
  ])('%j, destination of %j → %s', (actor, customer, may) => expect(mayManage(actor, { customer })).toBe(may));
});

describe('endpoint caps', () => {
  const caps = { perCustomer: 2, perAccount: 4 };
  it.each<[string, (string | null)[], { customer: string | null; newDestination: boolean }, string | null]>([
    ['an account with room', ['cus_a', null], { customer: null, newDestination: true }, null],
    ['a full account', ['cus_a', null, null, 'cus_b'], { customer: null, newDestination: true }, 'the account has reached its limit of 4 endpoints'],
    ['a full account, for a customer with room', ['cus_a', null, null, 'cus_b'], { customer: 'cus_c', newDestination: true }, 'the account has reached its limit of 4 endpoints'],
    ['over a lowered account cap', [null, null, null, null, null], { customer: null, newDestination: true }, 'the account has reached its limit of 4 endpoints'],
    ['a customer with room', ['cus_a', 'cus_b'], { customer: 'cus_a', newDestination: true }, null],
    ['a full customer', ['cus_a', 'cus_a'], { customer: 'cus_a', newDestination: true }, 'customer cus_a has reached its limit of 2 endpoints'],
    ['another customer beside a full one', ['cus_a', 'cus_a'], { customer: 'cus_b', newDestination: true }, null],
    ['the account’s own beside a full customer', ['cus_a', 'cus_a'], { customer: null, newDestination: true }, null],
    // Moving a destination adds none to the account: only the customer's cap counts.
    ['a move to a customer in a full account', ['cus_a', null, null, null], { customer: 'cus_b', newDestination: false }, null],
    ['a move to a full customer', ['cus_b', 'cus_b', null], { customer: 'cus_b', newDestination: false }, 'customer cus_b has reached its limit of 2 endpoints'],
  ])('%s', (_label, owners, arrival, message) => expect(endpointCapRefusal(owners, arrival, caps)?.message ?? null).toBe(message));
});
