import * as z from 'zod/mini';
import { breakerEntity } from '../store/breakers';
import { defineEntity } from '../store/entity';
import { accountPartition, routingPrefix } from '../store/keys';
import { markRoutingChanged } from '../accounts/record';
import { queryAll } from '../store/table';
import { SIGNATURE_SCHEMES } from '../domain/vocabulary';
import { ORDERING_MODES } from '../domain/ordering';
import type { AwsTarget } from '../domain/aws-targets';

/**
 * A destination as stored: the one declaration its settings (./changes.ts), API shapes (./shapes.ts)
 * and the delivery path read their fields from. Validated on every read.
 */

const destinationAuth = z.discriminatedUnion('type', [
  z.object({ type: z.literal('bearer'), token: z.string() }),
  z.object({ type: z.literal('header'), name: z.string(), value: z.string() }),
]);

const awsTarget = z.discriminatedUnion('type', [
  z.object({ type: z.literal('aws_sqs'), queue_url: z.string() }),
  z.object({ type: z.literal('aws_sns'), topic_arn: z.string() }),
  z.object({ type: z.literal('aws_eventbridge'), event_bus_arn: z.string(), detail_type: z.nullable(z.string()), source: z.string() }),
  z.object({ type: z.literal('aws_kinesis'), stream_arn: z.string(), partition_key: z.string() }),
  z.object({ type: z.literal('aws_lambda'), function_arn: z.string() }),
  z.object({ type: z.literal('aws_s3'), bucket: z.string(), key_template: z.string(), region: z.nullable(z.string()) }),
]);
// The domain declares the shape; the schema must read back exactly that.
awsTarget satisfies z.ZodMiniType<AwsTarget>;

export const destinationRecord = z.object({
  id: z.string(),
  account_id: z.string(),
  name: z.string(),
  /** An http destination's endpoint; an AWS destination's target, as `targetAddress` writes it (what lists show). */
  url: z.string(),
  /** Where an AWS destination delivers (lambdas/domain/aws-targets.ts); null: an http destination. */
  aws_target: z._default(z.nullable(awsTarget), null),
  /** A role in the target's account that Hookgate assumes (with the account's external id) to deliver; null: its own role. */
  role_arn: z._default(z.nullable(z.string()), null),
  /** A `cli` destination's `hookgate listen` session (lambdas/listen/); null: another type. */
  listen_session: z._default(z.nullable(z.string()), null),
  /** The AWS connection it delivers through (lambdas/aws-connections/), whose role and external id are copied here for the delivery path; null: none. */
  connection_id: z._default(z.nullable(z.string()), null),
  /** The connection's external id; null: the account's (`hookgate-<account id>`), for a bare `role_arn`. */
  external_id: z._default(z.nullable(z.string()), null),
  active: z.boolean(),
  auth: z.nullable(destinationAuth),
  timeout_ms: z.int(),
  signature_scheme: z.enum(SIGNATURE_SCHEMES),
  signing_secret: z.string(),
  previous_signing_secret: z.nullable(z.string()),
  previous_secret_expires_at: z.nullable(z.string()),
  /** Why Hookgate switched the destination off (a 410 Gone); null when active or paused through the API. */
  disabled_reason: z._default(z.nullable(z.string()), null),
  /** The account's own id for the customer this endpoint belongs to (the consumer portal's scope). */
  customer: z._default(z.nullable(z.string()), null),
  /** Seconds before each try (lambdas/domain/backoff.ts); absent or null: the deployment's schedule. */
  retry_schedule: z.optional(z.nullable(z.array(z.number()))),
  /** Hours of nothing but failures before Hookgate disables it (lambdas/domain/auto-disable.ts); absent: the default. */
  auto_disable_after_hours: z.optional(z.number()),
  /** Sends per second across every deliver function (lambdas/domain/rate-limit.ts); absent or null: no limit. */
  rate_limit_per_second: z.optional(z.nullable(z.int())),
  /** Tries in flight at once across every deliver function (lambdas/domain/max-in-flight.ts); absent on older records: the default. */
  max_in_flight: z.optional(z.int()),
  /** `per_key`: each ordering key's deliveries are tried one after the other (lambdas/domain/ordering.ts); absent: `none`. */
  ordering: z.optional(z.enum(ORDERING_MODES)),
  /** Its endpoint must prove it is its owner's before anything else is sent to it (lambdas/domain/endpoint-verification.ts); absent on older records: no. */
  verify_ownership: z._default(z.boolean(), false),
  /** The challenge last sent, while it waits for proof; null otherwise. Never shown by the API: only the endpoint receives it. */
  verification_challenge: z._default(z.nullable(z.string()), null),
  /** When its endpoint proved ownership of its current URL; null: not (yet). */
  verified_at: z._default(z.nullable(z.string()), null),
  created_at: z.string(),
  updated_at: z.string(),
});
export type DestinationRecord = z.infer<typeof destinationRecord>;

/** In the routing range: the deliver path reads it by key, ingest when a route names it. */
export const destinationKey = (accountId: string, destinationId: string) => ({
  pk: accountPartition(accountId),
  sk: `${routingPrefix.destinations}${destinationId}`,
});
const destinationEntity = defineEntity({
  name: 'destination',
  schema: destinationRecord,
  key: destinationKey,
  keyOf: (record: DestinationRecord) => destinationKey(record.account_id, record.id),
  collection: { partition: accountPartition, prefix: routingPrefix.destinations },
});

export async function insertDestination(record: DestinationRecord): Promise<void> {
  const created = await destinationEntity.create(record);
  if (!created) throw new Error(`destination id collision: ${record.id}`);
  await markRoutingChanged(record.account_id, { kind: 'destination', id: record.id });
}

export const findDestination = (accountId: string, destinationId: string) => destinationEntity.find(accountId, destinationId);

export const listDestinations = (accountId: string) => destinationEntity.list(accountId);

const ownerOnly = z.object({ customer: destinationRecord.shape.customer });

/**
 * The customer of each of the account's destinations (null: the account's own), to count them: the
 * query of the destination list, consistent (a destination just created counts), fetching one attribute.
 */
export async function destinationOwners(accountId: string): Promise<Array<string | null>> {
  const items = await queryAll({
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: { ':pk': accountPartition(accountId), ':prefix': routingPrefix.destinations },
    ExpressionAttributeNames: { '#customer': 'customer' },
    ProjectionExpression: '#customer',
    ConsistentRead: true,
  });
  return items.map((item) => ownerOnly.parse(item).customer);
}

export async function updateDestination(accountId: string, destinationId: string, changes: Partial<DestinationRecord>) {
  const updated = await destinationEntity.update([accountId, destinationId], changes);
  await markRoutingChanged(accountId, { kind: 'destination', id: destinationId });
  return updated;
}

/**
 * Its endpoint proved ownership: written only while `challenge` is still the one waited for, so a
 * proof of a URL since replaced verifies nothing. False when it no longer was.
 */
export async function markVerified(accountId: string, destinationId: string, challenge: string, at: Date): Promise<boolean> {
  const updated = await destinationEntity.update([accountId, destinationId], { verification_challenge: null, verified_at: at.toISOString(), updated_at: at.toISOString() }, [], {
    verification_challenge: challenge,
  });
  if (!updated) return false;
  await markRoutingChanged(accountId, { kind: 'destination', id: destinationId });
  return true;
}

/** Hookgate switches a destination off by itself (its endpoint answered 410 Gone). */
export const disableDestination = (accountId: string, destinationId: string, reason: string, at: Date) =>
  updateDestination(accountId, destinationId, { active: false, disabled_reason: reason, updated_at: at.toISOString() });

/**
 * Deletes a destination and its breaker (the caller removes its routes first, so no new event plans
 * a delivery to it); deliveries already planned end `destination_deleted`.
 */
export async function deleteDestination(accountId: string, destinationId: string): Promise<void> {
  await destinationEntity.remove(accountId, destinationId);
  await breakerEntity.remove(accountId, destinationId);
  await markRoutingChanged(accountId, { kind: 'destination', id: destinationId });
}
