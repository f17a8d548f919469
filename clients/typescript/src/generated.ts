// Generated from docs/openapi.json by `npm run openapi` (clients/typescript/codegen/generate-types.ts). Do not edit.

/** The API version the client was generated from (the document's `info.version`). */
export const API_VERSION = '1.0.0';

export type Account = {
  id: string;
  name: string | null;
  plan: 'free' | 'pro' | 'enterprise';
  retention_days: number;
  created_at: string;
};

export type AccountCreated = {
  account: Account;
  api_key: NewApiKey;
};

export type AccountDetail = {
  id: string;
  name: string | null;
  plan: 'free' | 'pro' | 'enterprise';
  retention_days: number;
  created_at: string;
  /** The public JWKS (no API key needed) of the Ed25519 keys the account’s own `ed25519` destinations (those of no `customer`) are signed with. Each customer’s endpoints are signed with that customer’s own keys: `/.well-known/jwks/{account_id}/customers/{customer}.json`, shown in its portal. */
  jwks_url: string;
};

/** An API key as listed: never the key itself or its hash. */
export type ApiKey = {
  id: string;
  name: string | null;
  /** The first 10 characters of the key (`hk_` + 7), to tell keys apart. */
  prefix: string;
  created_at: string;
  /** One-minute resolution. */
  last_used_at: string | null;
};

/** One delivery try. */
export type Attempt = {
  id: string;
  event_id: string;
  destination_id: string;
  attempt_number: number;
  outcome: 'success' | 'http_error' | 'timeout' | 'network_error' | 'blocked';
  /** The HTTP status of the answer (of the AWS API’s, for an AWS destination); null without one. */
  response_status: number | null;
  /** The first 4 KB of the answer; for an AWS destination `{"aws_request_id", "error_code", "error_class"}` or the ids the service gave the message. */
  response_body: string;
  error: string | null;
  attempted_at: string;
  duration_ms: number;
};

/** A role in a customer’s AWS account that Hookgate assumes to deliver there. */
export type AwsConnection = {
  id: string;
  aws_account_id: string;
  customer: string | null;
  /** Generated for this connection, unguessable: the `sts:ExternalId` the role’s trust policy requires. */
  external_id: string;
  /** The name the template gives the role (`HookgateDelivery-…`). */
  role_name: string;
  role_arn: string;
  /** The role’s trust policy: Hookgate’s principals, under the external id. */
  trust_policy: Record<string, unknown>;
  /** `GET` it with your API key: the CloudFormation template that creates the role. */
  cloudformation_template_url: string;
  /** `unverified` until `POST /v1/aws-connections/{id}/verify`; then whether Hookgate could assume the role at `checked_at`. */
  status: 'unverified' | 'verified' | 'failed';
  /** Why the last verify failed (STS’s answer); null otherwise. */
  error: string | null;
  checked_at: string | null;
  created_at: string;
};

/** The result of assuming the connection’s role now. */
export type AwsConnectionCheck = {
  status: 'verified' | 'failed';
  error: string | null;
  checked_at: string;
};

/** A CloudFormation template (JSON): the role, its trust policy, and the least privilege its destinations need. */
export type AwsConnectionTemplate = Record<string, unknown>;

/** What the single publish would have answered for this event. */
export type BatchItemResult = {
  status: 201;
  data: PublishedEvent;
} | {
  status: 200;
  data: DuplicateEvent;
} | {
  status: 400;
  error: string;
};

/** The effective settings: defaults filled in. */
export type BrandSettings = {
  company_name: string | null;
  logo_url: string | null;
  primary_color: string | null;
  accent_color: string | null;
  docs_title: string | null;
  /** null until the account sets something. */
  updated_at: string | null;
};

export type CliDestinationConfig = {
  /** The `hookgate listen` session it belongs to. */
  session_id: string;
  /** Where the CLI connects; null: this deployment has no listen endpoint. */
  websocket_url: string | null;
};

export type CreateAccountRequest = {
  name?: string;
  plan?: 'free' | 'pro' | 'enterprise';
  /** Enterprise only (1..3650). Defaults: free 1, pro 30, enterprise 90. */
  retention_days?: number;
};

export type CreateApiKeyRequest = {
  name?: string;
};

/** A role in an AWS account that Hookgate will assume. No credential is given: the external id is generated here. */
export type CreateAwsConnectionRequest = {
  /** The AWS account the role is created in: the account of the targets its destinations deliver to. */
  aws_account_id: string;
  /** Your own id for the customer it belongs to: only that customer’s destinations may use it. Default null: any destination of the account. */
  customer?: string | null;
};

export type CreateCustomDomainRequest = {
  /** A hostname such as `hooks.acme.com` (lower-cased, trailing dot removed; punycode for IDNs). */
  domain: string;
};

export type CreateDestinationRequest = {
  name: string;
  /** An AWS destination’s target, by `type`. Messages over the service’s limit (1048576 bytes for SQS, EventBridge, Kinesis and Lambda, 262144 for SNS) are not sent: such a delivery ends `payload_too_large`. */
  config?: SqsDestinationConfig | SnsDestinationConfig | EventBridgeDestinationConfig | KinesisDestinationConfig | LambdaDestinationConfig | S3DestinationConfig;
  /** AWS types only: a role in the target’s account that Hookgate assumes to deliver, whose trust policy allows Hookgate’s deliver role with `sts:ExternalId` = the destination’s `external_id`. null or absent: the deliver role itself (a same-account target listed in `awsDestinationTargets`, for an account listed in `awsOwnRoleAccounts`). */
  role_arn?: string | null;
  /** AWS types only: the AWS connection (`POST /v1/aws-connections`) Hookgate delivers through: it assumes the connection’s role with the connection’s external id. The preferred form of `role_arn`; the connection must be in the target’s AWS account, and a customer’s connection serves only that customer’s destinations. null removes it. */
  connection_id?: string | null;
  /** An http destination’s http(s) URL without credentials; private, loopback and reserved addresses are refused. Not for AWS types. */
  url?: string;
  /** Default: generated `whsec_` + base64 of 32 random bytes. Rotating it keeps the previous one valid for 24 hours. */
  signing_secret?: string;
  auth?: DestinationAuth | null;
  /** Default 15000. */
  timeout_ms?: number;
  /** Default true. */
  active?: boolean;
  /** Default `hookgate`; `standard_webhooks` needs a `whsec_` secret of 24..64 bytes; `ed25519` signs with the account’s Ed25519 key (`v1a`, public keys at the account’s `jwks_url`). */
  signature_scheme?: 'hookgate' | 'standard_webhooks' | 'ed25519';
  /** Your own id for the customer it belongs to (the consumer portal’s scope). Default null. */
  customer?: string | null;
  /** Seconds to wait before each try: step 0 before the first, step i after failed try i, so the number of steps is the number of tries. 1 to 20 steps of 0 to 86400. null or absent: the default `[0, 30, 120, 600, 3600]`. */
  retry_schedule?: number[] | null;
  /** Hours during which every try failed after which Hookgate disables the destination (`active: false`, `health.state: disabled`, `disabled_reason`) and publishes `hookgate.destination.disabled`. Decimals allowed; 0: never. Default 120 (five days). */
  auto_disable_after_hours?: number;
  /** Deliveries per second to this destination, across every deliver function: deliveries over the rate wait for their turn (never dropped, no try spent). null or absent: no limit. */
  rate_limit_per_second?: number | null;
  /** Tries in flight at once to this destination, across every deliver function: a delivery over the cap waits for a place (never dropped, no try spent), so a hanging endpoint holds at most this many. Default 10. */
  max_in_flight?: number;
  /** `per_key`: the deliveries of each `ordering_key` are tried one after the other, in the order their events were accepted: one is not tried before every earlier one of its key has ended (delivered, dead-lettered or ended), and the next goes as soon as it has. Other keys and unkeyed events never wait for them. Default `none`. */
  ordering?: 'none' | 'per_key';
  /** http only. true: the destination starts `pending_verification`; Hookgate POSTs one signed `hookgate.endpoint.verification` event with a random `challenge`, and sends nothing else until the endpoint answers 2xx echoing it (or you post it to `POST /v1/destinations/{id}/verify`). A new `url` starts over. Default false; always true where the deployment requires it (`requireEndpointVerification`) and for endpoints customers make in the portal. */
  verify_ownership?: boolean;
  /** Default `http` (a POST to `url`). An AWS type delivers through the AWS API to the target in `config`, signed with the deliver function’s own role. */
  type?: 'http' | 'aws_sqs' | 'aws_sns' | 'aws_eventbridge' | 'aws_kinesis' | 'aws_lambda' | 'aws_s3';
};

export type CreateErasureRequest = {
  /** The data subject, as given in `subject` on publish (or found at a source's `subject_pointer`): 1-256 characters. */
  subject: string;
};

/** Creates the type, or replaces the description and schema of an existing one. */
export type CreateEventTypeRequest = {
  /** The exact `event_type` you publish, such as `invoice.paid`. */
  name: string;
  description?: string | null;
  schema?: Record<string, unknown> | null;
};

export type CreateExportRequest = {
  /** Default `json`. */
  format?: 'json' | 'csv';
  /** Every member optional; an absent filter restricts nothing. */
  filters?: {
    direction?: 'inbound' | 'outbound';
    status?: 'received' | 'accepted' | 'queued' | 'delivering' | 'delivered' | 'retry_scheduled' | 'dead_letter' | 'replayed';
    /** ISO 8601; inclusive bound on `created_at`. */
    date_from?: string;
    /** ISO 8601; inclusive bound on `created_at`. */
    date_to?: string;
  };
};

/** A role in the customer’s AWS account that Hookgate will assume. The external id is generated here. */
export type CreatePortalAwsConnectionRequest = {
  /** The AWS account the role is created in: the account of the targets its destinations deliver to. */
  aws_account_id: string;
};

export type CreatePortalEndpointRequest = {
  /** Default `http` (a POST to `url`). An AWS type delivers through the AWS API to the target in `config`, signed with the deliver function’s own role. */
  type?: 'http' | 'aws_sqs' | 'aws_sns' | 'aws_eventbridge' | 'aws_kinesis' | 'aws_lambda' | 'aws_s3';
  /** An http endpoint’s http(s) URL; private, loopback and reserved addresses are refused. Not for AWS types. */
  url?: string;
  /** An AWS destination’s target, by `type`. Messages over the service’s limit (1048576 bytes for SQS, EventBridge, Kinesis and Lambda, 262144 for SNS) are not sent: such a delivery ends `payload_too_large`. */
  config?: SqsDestinationConfig | SnsDestinationConfig | EventBridgeDestinationConfig | KinesisDestinationConfig | LambdaDestinationConfig | S3DestinationConfig;
  /** AWS types: one of the customer’s AWS connections (`POST /v1/portal/aws-connections`), in the target’s AWS account. Required for an AWS endpoint. */
  connection_id?: string | null;
  /** Default: the URL’s host, or the AWS type. */
  name?: string;
  /** Event types of the catalog it receives; replaces the current choice. */
  event_types?: string[];
};

export type CreatePortalSessionRequest = {
  /** Your own id for the customer; the portal shows only destinations with this `customer`. */
  customer: string;
  /** How long the link works: 1 to 86400 seconds; default 3600. */
  expires_in_seconds?: number;
};

export type CreateReplayRequest = {
  direction: 'inbound' | 'outbound';
  /** Event statuses to replay (terminal ones, and `accepted`). Default `["dead_letter"]`. */
  status?: Array<'delivered' | 'dead_letter' | 'replayed' | 'accepted'>;
  /** Replay to this destination only. Only events routed to it match, and a `dead_letter` event only when its delivery to this destination is the one that failed. */
  destination_id?: string;
  /** Inbound only: events from this source. */
  source_id?: string;
  event_type?: string;
  /** ISO 8601; inclusive bound on `received_at`. */
  date_from?: string;
  /** ISO 8601; inclusive bound on `received_at`. */
  date_to?: string;
  /** `true`: answer 200 with how many events match, and replay nothing. */
  dry_run?: boolean;
};

export type CreateRouteRequest = {
  destination_id: string;
  /** null or absent: every source, and outbound events. */
  source_id?: string | null;
  /** An exact type, or text ending in `*` (`payment.*`); null or absent: every type. */
  event_type_pattern?: string | null;
  /** Default true. */
  active?: boolean;
  /** Matched against the event’s JSON body: `{"field": value}` (equal), `{"field": {"$gt": 100}}` (operators `$eq $neq $in $nin $gt $gte $lt $lte $exists $startsWith`), nested objects for nested fields, and `$and`/`$or` (arrays of filters) and `$not` (a filter) at any level. A body that is not JSON never matches a route with a filter. At most 4096 bytes. null or absent: no filter. */
  filter?: Record<string, unknown> | null;
};

export type CreateSourceRequest = {
  name: string;
  verification?: SourceVerification;
  /** One of the account’s custom domains that has not failed; the ingest URL uses it once verified. null unties it. */
  custom_domain_id?: string | null;
  /** Where an inbound event’s data subject is in its JSON payload (RFC 6901), e.g. `/data/object/customer`: a string or number found there is the event’s `subject`, which `POST /v1/erasures` erases by. null: none. */
  subject_pointer?: string | null;
  /** An RFC 6901 JSON pointer (e.g. `/customer/id`) to its events’ `ordering_key` in their JSON payload: a string or number there that is a valid key (1-128 visible characters) is the event’s key; anything else (no JSON, nothing there, an object) leaves it unordered rather than refused. null unsets it. */
  ordering_key_pointer?: string | null;
};

export type CustomDomain = {
  id: string;
  domain: string;
  verification_token: string;
  verification_record: {
    type: 'TXT';
    name: string;
    value: string;
  };
  status: 'pending_verification' | 'verified' | 'failed';
  verification_error: string | null;
  tls_status: 'pending' | 'issued' | 'failed';
  tls_validation_record: {
    type: string;
    name: string;
    value: string;
  } | null;
  dns_target: string | null;
  tls_error: string | null;
  created_at: string;
  verified_at: string | null;
};

/** A destination as listed and as PATCH answers it. */
export type Destination = {
  id: string;
  account_id: string;
  name: string;
  /** `cli`: a `hookgate listen` session’s, delivering over its WebSocket connection. */
  type: 'http' | 'aws_sqs' | 'aws_sns' | 'aws_eventbridge' | 'aws_kinesis' | 'aws_lambda' | 'aws_s3' | 'cli';
  /** An AWS destination’s target, defaults filled in; a cli destination’s session; null for http. */
  config: SqsDestinationConfig | SnsDestinationConfig | EventBridgeDestinationConfig | KinesisDestinationConfig | LambdaDestinationConfig | S3DestinationConfig | CliDestinationConfig | null;
  /** The role Hookgate assumes to deliver to an AWS target in another account (its AWS connection’s, with `connection_id`); null: its own deliver role. */
  role_arn: string | null;
  /** The AWS connection it delivers through; null: none (a bare `role_arn`, or the deliver role). */
  connection_id: string | null;
  /** AWS types: the `sts:ExternalId` Hookgate sends when it assumes `role_arn`: its AWS connection’s, or else the account’s own (`hookgate-<account id>`, the same for every destination of the account); null for http. */
  external_id: string | null;
  /** Where it delivers: an http destination’s URL; an AWS one’s queue URL or ARN, or `s3://<bucket>/<key template>`; a cli one’s `listen:<session id>`. */
  url: string;
  active: boolean;
  /** The kind of auth sent to the destination; tokens and header values are never returned. */
  auth: {
    type: 'bearer';
  } | {
    type: 'header';
    header_name: string;
  } | null;
  timeout_ms: number;
  signature_scheme: 'hookgate' | 'standard_webhooks' | 'ed25519';
  /** Why Hookgate switched the destination off by itself (its endpoint answered 410 Gone); null otherwise. `PATCH active: true` clears it. */
  disabled_reason: string | null;
  /** `paused`: `active` is false. `pending_verification`: its endpoint has not yet echoed the challenge Hookgate POSTed to it; its deliveries wait (`waiting.reason: unverified`) and go, in due order, once it has. */
  status: 'active' | 'paused' | 'pending_verification';
  /** Its endpoint must prove ownership of its URL before it is sent anything (see `status`). */
  verify_ownership: boolean;
  /** When its endpoint proved ownership of its current URL; null: not (yet), or not asked. */
  verified_at: string | null;
  health: DestinationHealth;
  /** Your own id for the customer this endpoint belongs to; a portal session for that customer manages it. null: none. */
  customer: string | null;
  /** The schedule its deliveries follow (its own, or the default). */
  retry_schedule: number[];
  /** Hours of nothing but failures before Hookgate disables it; 0: never. */
  auto_disable_after_hours: number;
  /** Deliveries per second at most; null: no limit. */
  rate_limit_per_second: number | null;
  /** Tries in flight at once at most. */
  max_in_flight: number;
  /** `per_key`: each ordering key’s deliveries go one after the other; `none`: no order. */
  ordering: 'none' | 'per_key';
  created_at: string;
  updated_at: string;
};

/** Sent with every delivery: `Authorization: Bearer <token>`, or a custom header. Write-only. */
export type DestinationAuth = {
  type: 'bearer';
  token: string;
} | {
  type: 'header';
  name: string;
  value: string;
};

/** How the destination’s endpoint has been answering, from its circuit breaker. */
export type DestinationHealth = {
  /** `failing`: its last tries failed; `open`: its circuit breaker holds its deliveries (no try spent) until `open_until`, then lets one probe through; `disabled`: `active` is false. */
  state: 'healthy' | 'failing' | 'open' | 'disabled';
  consecutive_failures: number;
  /** Refreshed at most once a minute while deliveries succeed. */
  last_success_at: string | null;
  last_failure_at: string | null;
  /** While `open`: when the next probe may go. */
  open_until: string | null;
  /** Deliveries it holds, parked until what holds them lets go (its open breaker closes, it is switched back on, its endpoint is verified, a place under its cap frees up), then released in due order. Retention never ends them (they wait as long as it takes); `POST /v1/destinations/{id}/end-held` does. */
  held: number;
  /** When the delivery it has held longest was due: how long its oldest has waited. null when it holds none. */
  oldest_held_since: string | null;
};

/** A destination with its signing secret: the create answer and `GET /v1/destinations/{id}`. */
export type DestinationWithSecret = {
  id: string;
  account_id: string;
  name: string;
  /** `cli`: a `hookgate listen` session’s, delivering over its WebSocket connection. */
  type: 'http' | 'aws_sqs' | 'aws_sns' | 'aws_eventbridge' | 'aws_kinesis' | 'aws_lambda' | 'aws_s3' | 'cli';
  /** An AWS destination’s target, defaults filled in; a cli destination’s session; null for http. */
  config: SqsDestinationConfig | SnsDestinationConfig | EventBridgeDestinationConfig | KinesisDestinationConfig | LambdaDestinationConfig | S3DestinationConfig | CliDestinationConfig | null;
  /** The role Hookgate assumes to deliver to an AWS target in another account (its AWS connection’s, with `connection_id`); null: its own deliver role. */
  role_arn: string | null;
  /** The AWS connection it delivers through; null: none (a bare `role_arn`, or the deliver role). */
  connection_id: string | null;
  /** AWS types: the `sts:ExternalId` Hookgate sends when it assumes `role_arn`: its AWS connection’s, or else the account’s own (`hookgate-<account id>`, the same for every destination of the account); null for http. */
  external_id: string | null;
  /** Where it delivers: an http destination’s URL; an AWS one’s queue URL or ARN, or `s3://<bucket>/<key template>`; a cli one’s `listen:<session id>`. */
  url: string;
  active: boolean;
  /** The kind of auth sent to the destination; tokens and header values are never returned. */
  auth: {
    type: 'bearer';
  } | {
    type: 'header';
    header_name: string;
  } | null;
  timeout_ms: number;
  signature_scheme: 'hookgate' | 'standard_webhooks' | 'ed25519';
  /** Why Hookgate switched the destination off by itself (its endpoint answered 410 Gone); null otherwise. `PATCH active: true` clears it. */
  disabled_reason: string | null;
  /** `paused`: `active` is false. `pending_verification`: its endpoint has not yet echoed the challenge Hookgate POSTed to it; its deliveries wait (`waiting.reason: unverified`) and go, in due order, once it has. */
  status: 'active' | 'paused' | 'pending_verification';
  /** Its endpoint must prove ownership of its URL before it is sent anything (see `status`). */
  verify_ownership: boolean;
  /** When its endpoint proved ownership of its current URL; null: not (yet), or not asked. */
  verified_at: string | null;
  health: DestinationHealth;
  /** Your own id for the customer this endpoint belongs to; a portal session for that customer manages it. null: none. */
  customer: string | null;
  /** The schedule its deliveries follow (its own, or the default). */
  retry_schedule: number[];
  /** Hours of nothing but failures before Hookgate disables it; 0: never. */
  auto_disable_after_hours: number;
  /** Deliveries per second at most; null: no limit. */
  rate_limit_per_second: number | null;
  /** Tries in flight at once at most. */
  max_in_flight: number;
  /** `per_key`: each ordering key’s deliveries go one after the other; `none`: no order. */
  ordering: 'none' | 'per_key';
  created_at: string;
  updated_at: string;
  /** Signs every delivery (`Webhook-Signature`). */
  signing_secret: string;
};

/** A repeated external_event_id: nothing was stored or delivered again. */
export type DuplicateEvent = {
  /** The first event with this external_event_id. */
  id: string;
  status: EventStatus;
  duplicate: true;
};

/** The server’s processing time in milliseconds. */
export type DurationMs = number;

/** What ending a destination’s held deliveries did. */
export type EndedHeld = {
  /** Deliveries this call ended `dead_letter` (`end_reason: held_ended`), each announced as `hookgate.delivery.dead_lettered`. */
  ended: number;
  /** What the destination still holds: more than one call ends (call again), or deliveries parked since. */
  held: number;
};

export type Erasure = {
  id: string;
  /** `running`, then `done`. A failure on the way pauses the erasure and it resumes by itself. */
  status: 'running' | 'done';
  /** Events turned into tombstones (`payload_erased: true`) erased so far; final once the erasure is `done`. */
  events: number;
  /** Payload objects deleted from the payload bucket (bodies over 300 KB) erased so far; final once the erasure is `done`. */
  payload_objects: number;
  /** Stored event bodies (inline or pointing at an object), headers and payload hashes erased so far; final once the erasure is `done`. */
  request_bodies: number;
  /** Stored response bodies of delivery attempts erased so far; final once the erasure is `done`. */
  response_bodies: number;
  /** Exports written before the erasure started, still listed: their files may name the subject’s events (ids, types, external ids; never a payload). Filled in when `done`. */
  exports_before: string[];
  created_at: string;
  finished_at: string | null;
};

/** Every error answer. */
export type Error = {
  /** The exact message; validation messages name the field. */
  error: string;
  duration_ms: DurationMs;
};

export type EventBridgeDestinationConfig = {
  /** arn:aws:events:<region>:<account id>:event-bus/<name>. */
  event_bus_arn: string;
  /** Default null: the event’s type (`webhook` when it has none). */
  detail_type?: string | null;
  /** Default `hookgate`; must not start with `aws.`. */
  source?: string;
};

export type EventDetail = {
  id: string;
  account_id: string;
  direction: 'inbound' | 'outbound';
  source_id: string | null;
  event_type: string | null;
  external_event_id: string | null;
  /** The customer the event is addressed to: only that customer’s destinations receive it. null: none (inbound events, and outbound events for your own destinations). */
  customer: string | null;
  /** The payload: its text when valid UTF-8, else base64 (see `body_encoding`). null when the answer with the body inline would not fit in Lambda’s 6 MB response: read it from `body_url` instead. */
  body: string | null;
  /** How `body` is written; null when `body` is. */
  body_encoding: 'utf8' | 'base64' | null;
  /** The payload’s size in bytes, as received. */
  body_size: number;
  /** When `body` is null: a pre-signed URL of the exact payload bytes, valid 5 minutes, served as a download (`Content-Disposition: attachment`, `Content-Type: application/octet-stream`) whatever its `content_type`. null otherwise. */
  body_url: string | null;
  content_type: string | null;
  /** Stored request headers (lower-case), without credentials. */
  headers: Record<string, string>;
  /** null once the payload is erased. */
  payload_hash: string | null;
  /** An erasure (`POST /v1/erasures`) removed its payload, headers and attempts’ response bodies: `body` is null and `body_size` 0; it cannot be replayed or resent. */
  payload_erased: boolean;
  status: EventStatus;
  attempts_count: number;
  /** `hookgate`: an operational event Hookgate published about the account. */
  created_by: 'ingest' | 'api' | 'hookgate';
  received_at: string;
  created_at: string;
  /** The event this one is a replayed copy of (single, bulk or to one destination); null: not a copy. */
  replay_of: string | null;
  /** What its deliveries carry as `X-Webhook-Id` (and `webhook-id`): the first event of its replay chain, so a replayed copy keeps its original’s; the event’s own `id` when it is no copy. */
  webhook_id: string;
  replayed_by: string | null;
  /** Its ordering key (a published `ordering_key`, or read with its source’s `ordering_key_pointer`); null: none. */
  ordering_key: string | null;
  /** The W3C trace id its deliveries carry in `traceparent` (each try a new span id): the `traceparent` it was ingested or published with, when valid; else one Hookgate started. A replayed copy keeps its original’s. */
  trace_id: string;
  deliveries: Array<{
    destination_id: string;
    status: 'queued' | 'delivering' | 'retry_scheduled' | 'delivered' | 'dead_letter';
    attempts: number;
    next_attempt_at: string | null;
    /** Why a `dead_letter` delivery ended before its tries ran out: its destination was deleted, given to another customer, or answered 410 Gone; its body is over its AWS target’s limit; the account ended what its destination held (`held_ended`, `POST /v1/destinations/{id}/end-held`); versions before 0.5 only: it was still waiting when its event’s retention window ended (`expired`); its queue task kept failing, even sent once more (`task_failed`); or an erasure took its payload before it was sent (`payload_erased`). null otherwise. */
    end_reason: 'destination_deleted' | 'endpoint_gone' | 'customer_changed' | 'payload_too_large' | 'expired' | 'held_ended' | 'task_failed' | 'payload_erased' | null;
    /** While it waits without a try: `retry` (its next try is due at `until`), `breaker_open` (its destination’s circuit breaker holds it, parked without polling, until the breaker closes: `until` is the breaker’s next probe), `rate_limit` (its send slot), `ordering` (an earlier event of its `ordering_key`, `behind`, has not ended at this `per_key` destination: it goes as soon as that one ends). null while it is in flight, settled, or due now. */
    waiting: {
      reason: 'retry' | 'breaker_open' | 'concurrency' | 'rate_limit' | 'paused' | 'ordering' | 'unverified';
      until: string | null;
      /** With `ordering`: the earlier event of its `ordering_key` it waits for. */
      behind?: string;
    } | null;
  }>;
};

export type EventListItem = {
  id: string;
  account_id: string;
  direction: 'inbound' | 'outbound';
  source_id: string | null;
  event_type: string | null;
  external_event_id: string | null;
  /** The customer the event is addressed to: only that customer’s destinations receive it. null: none (inbound events, and outbound events for your own destinations). */
  customer: string | null;
  status: EventStatus;
  attempts_count: number;
  received_at: string;
  created_at: string;
};

/** Event status; terminal: delivered, dead_letter, replayed. */
export type EventStatus = 'received' | 'accepted' | 'queued' | 'delivering' | 'delivered' | 'retry_scheduled' | 'dead_letter' | 'replayed';

export type EventType = {
  name: string;
  description: string | null;
  schema: Record<string, unknown> | null;
  created_at: string;
  updated_at: string;
};

export type EventWithAttempts = {
  event: EventDetail;
  /** Oldest first. */
  attempts: Attempt[];
};

export type ExportJob = {
  id: string;
  account_id: string;
  status: 'queued' | 'processing' | 'ready' | 'failed';
  format: 'json' | 'csv';
  filters: {
    direction?: 'inbound' | 'outbound';
    status?: EventStatus;
    date_from?: string;
    date_to?: string;
  };
  row_count: number | null;
  created_at: string;
  started_at: string | null;
  completed_at: string | null;
  error_message: string | null;
};

export type IngestAccepted = {
  id: string;
  /** `queued` when routes matched, `accepted` when none did. */
  status: EventStatus;
};

export type Jwks = {
  keys: Array<{
    kty: 'OKP';
    crv: 'Ed25519';
    /** base64url of the 32-byte public key. */
    x: string;
    kid: string;
    use: 'sig';
    alg: 'EdDSA';
  }>;
};

export type KinesisDestinationConfig = {
  /** arn:aws:kinesis:<region>:<account id>:stream/<name>. */
  stream_arn: string;
  /** `event_id` (default) or a JSON pointer into the body such as `/order/id`; the event id when the pointer finds no scalar. */
  partition_key?: string;
};

export type LambdaDestinationConfig = {
  /** arn:aws:lambda:<region>:<account id>:function:<name>[:<alias or version>]; invoked asynchronously. */
  function_arn: string;
};

/** A `hookgate listen` session: its destination and route. */
export type ListenSession = {
  session_id: string;
  /** true: the session existed (its destination and any deliveries waiting for it are kept). */
  resumed: boolean;
  /** The session’s destination, of type `cli`. */
  destination_id: string;
  route_id: string;
  event_type_pattern: string | null;
  source_id: string | null;
  customer: string | null;
  timeout_ms: number;
  /** Signs every delivery, as any destination’s does: a local handler can verify them. */
  signing_secret: string;
  /** Where the CLI connects (`?session=<session_id>`, the API key as `Authorization: Bearer`); null: this deployment has no listen endpoint. */
  websocket_url: string | null;
};

/** A newly created API key, with the key itself (the only time it is shown). */
export type NewApiKey = {
  id: string;
  name: string | null;
  /** The key: shown once, only its SHA-256 is stored. */
  key: string;
  prefix: string;
  created_at: string;
};

export type OpenListenSessionRequest = {
  /** The CLI’s own id for the session, kept in its config directory: the same id resumes the same destination. */
  session_id: string;
  /** The route’s: an exact type, or text ending in `*`; null or absent: every type. */
  event_type_pattern?: string | null;
  /** The route’s: only events of this source; null or absent: every source, and outbound events. */
  source_id?: string | null;
  /** Receive what this customer’s endpoints receive: only outbound events addressed to it. The destination is never shown in that customer’s portal. */
  customer?: string | null;
  /** How long each try waits for the CLI’s answer. Default 15000. */
  timeout_ms?: number;
};

/** An AWS connection of the customer’s: a role in its AWS account that Hookgate assumes to deliver there. */
export type PortalAwsConnection = {
  id: string;
  aws_account_id: string;
  /** Generated for this connection, unguessable: the `sts:ExternalId` the role’s trust policy requires. */
  external_id: string;
  /** The name the template gives the role (`HookgateDelivery-…`). */
  role_name: string;
  role_arn: string;
  /** The role’s trust policy: Hookgate’s principals, under the external id. */
  trust_policy: Record<string, unknown>;
  /** `GET` it with the portal link’s secret: the CloudFormation template that creates the role. */
  cloudformation_template_url: string;
  /** `unverified` until `POST /v1/aws-connections/{id}/verify`; then whether Hookgate could assume the role at `checked_at`. */
  status: 'unverified' | 'verified' | 'failed';
  /** Why the last verify failed (STS’s answer); null otherwise. */
  error: string | null;
  checked_at: string | null;
  created_at: string;
};

/** An endpoint as its customer sees it: no account, auth or customer fields, no secret. */
export type PortalEndpoint = {
  id: string;
  name: string;
  /** `cli`: a `hookgate listen` session’s, delivering over its WebSocket connection. */
  type: 'http' | 'aws_sqs' | 'aws_sns' | 'aws_eventbridge' | 'aws_kinesis' | 'aws_lambda' | 'aws_s3' | 'cli';
  /** An AWS destination’s target, defaults filled in; a cli destination’s session; null for http. */
  config: SqsDestinationConfig | SnsDestinationConfig | EventBridgeDestinationConfig | KinesisDestinationConfig | LambdaDestinationConfig | S3DestinationConfig | CliDestinationConfig | null;
  /** The AWS connection it delivers through; null: none (a bare `role_arn`, or the deliver role). */
  connection_id: string | null;
  /** Where it delivers: an http destination’s URL; an AWS one’s queue URL or ARN, or `s3://<bucket>/<key template>`; a cli one’s `listen:<session id>`. */
  url: string;
  active: boolean;
  /** Why Hookgate switched the destination off by itself (its endpoint answered 410 Gone); null otherwise. `PATCH active: true` clears it. */
  disabled_reason: string | null;
  /** `paused`: `active` is false. `pending_verification`: its endpoint has not yet echoed the challenge Hookgate POSTed to it; its deliveries wait (`waiting.reason: unverified`) and go, in due order, once it has. */
  status: 'active' | 'paused' | 'pending_verification';
  /** When its endpoint proved ownership of its current URL; null: not (yet), or not asked. */
  verified_at: string | null;
  health: DestinationHealth;
  signature_scheme: 'hookgate' | 'standard_webhooks' | 'ed25519';
  /** Tries in flight at once at most. */
  max_in_flight: number;
  created_at: string;
  updated_at: string;
  /** The event types it receives (`*`: every type, set up by the account). */
  event_types: string[];
};

export type PortalEndpointWithSecret = {
  id: string;
  name: string;
  /** `cli`: a `hookgate listen` session’s, delivering over its WebSocket connection. */
  type: 'http' | 'aws_sqs' | 'aws_sns' | 'aws_eventbridge' | 'aws_kinesis' | 'aws_lambda' | 'aws_s3' | 'cli';
  /** An AWS destination’s target, defaults filled in; a cli destination’s session; null for http. */
  config: SqsDestinationConfig | SnsDestinationConfig | EventBridgeDestinationConfig | KinesisDestinationConfig | LambdaDestinationConfig | S3DestinationConfig | CliDestinationConfig | null;
  /** The AWS connection it delivers through; null: none (a bare `role_arn`, or the deliver role). */
  connection_id: string | null;
  /** Where it delivers: an http destination’s URL; an AWS one’s queue URL or ARN, or `s3://<bucket>/<key template>`; a cli one’s `listen:<session id>`. */
  url: string;
  active: boolean;
  /** Why Hookgate switched the destination off by itself (its endpoint answered 410 Gone); null otherwise. `PATCH active: true` clears it. */
  disabled_reason: string | null;
  /** `paused`: `active` is false. `pending_verification`: its endpoint has not yet echoed the challenge Hookgate POSTed to it; its deliveries wait (`waiting.reason: unverified`) and go, in due order, once it has. */
  status: 'active' | 'paused' | 'pending_verification';
  /** When its endpoint proved ownership of its current URL; null: not (yet), or not asked. */
  verified_at: string | null;
  health: DestinationHealth;
  signature_scheme: 'hookgate' | 'standard_webhooks' | 'ed25519';
  /** Tries in flight at once at most. */
  max_in_flight: number;
  created_at: string;
  updated_at: string;
  /** The event types it receives (`*`: every type, set up by the account). */
  event_types: string[];
  signing_secret: string;
  /** After a rotation: until when the previous secret still signs too. */
  previous_secret_expires_at: string | null;
};

/** An event with the customer’s own deliveries only. */
export type PortalEvent = {
  id: string;
  event_type: string | null;
  /** The payload: its text when valid UTF-8, else base64 (see `body_encoding`). null when the answer with the body inline would not fit in Lambda’s 6 MB response: read it from `body_url` instead. */
  body: string | null;
  /** How `body` is written; null when `body` is. */
  body_encoding: 'utf8' | 'base64' | null;
  /** The payload’s size in bytes, as received. */
  body_size: number;
  /** When `body` is null: a pre-signed URL of the exact payload bytes, valid 5 minutes, served as a download (`Content-Disposition: attachment`, `Content-Type: application/octet-stream`) whatever its `content_type`. null otherwise. */
  body_url: string | null;
  content_type: string | null;
  /** An erasure (`POST /v1/erasures`) removed its payload, headers and attempts’ response bodies: `body` is null and `body_size` 0; it cannot be replayed or resent. */
  payload_erased: boolean;
  status: EventStatus;
  attempts_count: number;
  created_at: string;
  /** The event this one is a replayed copy of (single, bulk or to one destination); null: not a copy. */
  replay_of: string | null;
  deliveries: Array<{
    destination_id: string;
    status: 'queued' | 'delivering' | 'retry_scheduled' | 'delivered' | 'dead_letter';
    attempts: number;
    next_attempt_at: string | null;
    /** Why a `dead_letter` delivery ended before its tries ran out: its destination was deleted, given to another customer, or answered 410 Gone; its body is over its AWS target’s limit; the account ended what its destination held (`held_ended`, `POST /v1/destinations/{id}/end-held`); versions before 0.5 only: it was still waiting when its event’s retention window ended (`expired`); its queue task kept failing, even sent once more (`task_failed`); or an erasure took its payload before it was sent (`payload_erased`). null otherwise. */
    end_reason: 'destination_deleted' | 'endpoint_gone' | 'customer_changed' | 'payload_too_large' | 'expired' | 'held_ended' | 'task_failed' | 'payload_erased' | null;
    /** While it waits without a try: `retry` (its next try is due at `until`), `breaker_open` (its destination’s circuit breaker holds it, parked without polling, until the breaker closes: `until` is the breaker’s next probe), `rate_limit` (its send slot), `ordering` (an earlier event of its `ordering_key`, `behind`, has not ended at this `per_key` destination: it goes as soon as that one ends). null while it is in flight, settled, or due now. */
    waiting: {
      reason: 'retry' | 'breaker_open' | 'concurrency' | 'rate_limit' | 'paused' | 'ordering' | 'unverified';
      until: string | null;
      /** With `ordering`: the earlier event of its `ordering_key` it waits for. */
      behind?: string;
    } | null;
    /** The headers each try to this endpoint carries; per-try values are described and credentials hidden. `null` once the endpoint is deleted. */
    request_headers: Record<string, string> | null;
  }>;
};

/** `status` and `attempts_count` count the customer’s own deliveries only. */
export type PortalEventListItem = {
  id: string;
  event_type: string | null;
  status: EventStatus;
  attempts_count: number;
  created_at: string;
  /** The customer’s endpoints it was sent to. */
  endpoint_ids: string[];
};

export type PortalEventWithAttempts = {
  event: PortalEvent;
  /** To the customer’s endpoints, oldest first. */
  attempts: Attempt[];
};

export type PortalResendRequest = {
  endpoint_id: string;
};

/** A new event for this one endpoint; follow it in the event log. */
export type PortalSend = {
  event_id: string;
  status: 'queued';
};

/** A link to the consumer portal for one customer, on your verified custom domain when you have one. */
export type PortalSession = {
  /** Opens the portal. The part after `#` is the session’s secret: shown once, stored as a SHA-256 hash, never sent to a server by the browser. */
  url: string;
  expires_at: string;
};

export type PortalSessionInfo = {
  customer: string;
  expires_at: string;
  brand: {
    company_name: string | null;
    logo_url: string | null;
    primary_color: string | null;
    accent_color: string | null;
    docs_title: string | null;
  };
  /** This customer’s public JWKS: what it verifies its `ed25519` endpoints’ deliveries with. Its key pair signs only its own endpoints. */
  jwks_url: string;
};

/** A new event (it ends `accepted` at once if no route matches; its detail shows it). */
export type PublishedEvent = {
  id: string;
  status: 'queued';
};

export type PublishOutboundEventBatchRequest = {
  events: PublishOutboundEventRequest[];
};

export type PublishOutboundEventRequest = {
  /** The delivery body, sent with `Content-Type: application/json`: a string is sent as it is, any other JSON value (object, array, number, boolean) as its JSON text. */
  payload: string | number | boolean | unknown[] | Record<string, unknown>;
  /** Tag used for route matching; sent as `X-Event-Type`, so printable ASCII only. */
  event_type?: string;
  /** Idempotency key: a repeat within the account answers the first event (`duplicate: true`). */
  external_event_id?: string;
  /** The customer it is for (your own id, as on its destinations): only destinations with this `customer` receive it, and only its portal shows it. Absent: only destinations without a `customer`. */
  customer?: string;
  /** The data subject the payload is about (your own id for the person): `POST /v1/erasures` with it erases this event’s payload. Stored only as an HMAC; never delivered. */
  subject?: string;
  /** 1-128 visible characters (no spaces). At a destination with `ordering: "per_key"`, events with the same key are delivered one after the other, in the order they were accepted (a batch's in its order); an AWS FIFO queue or topic gets it as `MessageGroupId`. */
  ordering_key?: string;
};

export type ReplayDryRun = {
  /** Events a replay with these filters would send now, counted up to 100,000. */
  matched: number;
  /** More events match than one job replays, or counting them all would have outlasted the call (narrow the dates). */
  truncated: boolean;
};

/** A bulk replay. */
export type ReplayJob = {
  id: string;
  /** `queued`, `running`, then `done` or `failed` (`error_message`). */
  status: 'queued' | 'running' | 'done' | 'failed';
  filters: {
    direction: 'inbound' | 'outbound';
    /** Event statuses to replay. Default `["dead_letter"]`. */
    status: Array<'delivered' | 'dead_letter' | 'replayed' | 'accepted'>;
    destination_id?: string;
    source_id?: string;
    event_type?: string;
    date_from?: string;
    date_to?: string;
  };
  /** Events found to match so far; final once the job is `done`. */
  matched: number;
  /** Events replayed so far (each once, whatever crash happened in between). */
  replayed: number;
  /** More than 100,000 events matched and the job stopped there: the same request again replays the rest (replayed events no longer match). */
  truncated: boolean;
  created_at: string;
  completed_at: string | null;
  error_message: string | null;
};

export type ReplayRequest = {
  /** Deliver the replay to this destination only, whatever the routes say (after one endpoint’s outage). Absent: today’s routes. */
  destination_id?: string;
};

export type ReplayResult = {
  original_event_id: string;
  replay_event_id: string;
  /** Always `queued`; a replay no route matches then ends `accepted` (its detail shows it). */
  status: 'queued';
};

export type RevokePortalSessionsRequest = {
  /** The customer whose links end: every link made for it so far. */
  customer: string;
};

export type RotateSigningKeysRequest = {
  /** The customer whose endpoints’ keys rotate (each customer has its own key pair). Omitted or null: the keys of the account’s own destinations (those of no customer). */
  customer?: string | null;
};

export type Route = {
  id: string;
  account_id: string;
  /** null: every source (and outbound events). */
  source_id: string | null;
  destination_id: string;
  /** null: every type; a trailing `*` matches any type starting with the text before it. */
  event_type_pattern: string | null;
  active: boolean;
  /** The payload filter; null: none. */
  filter: Record<string, unknown> | null;
  created_at: string;
};

export type S3DestinationConfig = {
  bucket: string;
  /** Must contain `{event_id}`; may use `{event_type}` and `{date}` (YYYY-MM-DD of receipt). Default `hookgate/{date}/{event_id}`. */
  key_template?: string;
  /** The bucket’s region. Default null: the deployment’s region (S3 redirects to the right one). */
  region?: string | null;
};

export type SigningKey = {
  /** Sent as `webhook-key-id`; the JWK’s `kid`. */
  kid: string;
  /** The public key: base64url of 32 bytes (the JWK’s `x`). */
  x: string;
  created_at: string;
  /** Null for the current key; when a rotated-out key stops signing and leaves the JWKS. */
  retires_at: string | null;
};

export type SigningKeys = {
  /** Whose keys: the customer whose endpoints they sign, or null for the account’s own destinations. */
  customer: string | null;
  /** The public JWKS these keys are served in: what that customer’s (or the account’s own) receivers verify with. */
  jwks_url: string;
  /** Current key first. */
  keys: SigningKey[];
};

export type SnsDestinationConfig = {
  /** arn:aws:sns:<region>:<account id>:<topic name>. */
  topic_arn: string;
};

export type Source = {
  id: string;
  account_id: string;
  name: string;
  path_token: string;
  /** Absolute: the verified custom domain, or the public URL, plus `/ingest/<path_token>`. */
  ingest_url: string;
  /** The provider check, if any; the secret is write-only. */
  verification: {
    provider: 'stripe' | 'github' | 'shopify' | 'slack' | 'standard_webhooks' | 'hmac_sha256';
    configured: true;
  } | null;
  custom_domain_id: string | null;
  subject_pointer: string | null;
  /** Where its events’ ordering key is read from their JSON payload; null: they are unordered. */
  ordering_key_pointer: string | null;
  created_at: string;
};

/** The provider whose signatures ingest checks, and the shared secret (write-only); null turns the check off. */
export type SourceVerification = {
  provider: 'stripe';
  secret: string;
} | {
  provider: 'github';
  secret: string;
} | {
  provider: 'shopify';
  secret: string;
} | {
  provider: 'slack';
  secret: string;
} | {
  provider: 'standard_webhooks';
  secret: string;
} | {
  provider: 'hmac_sha256';
  secret: string;
  header: string;
  encoding?: 'hex' | 'base64';
  prefix?: string;
} | null;

export type SqsDestinationConfig = {
  /** https://sqs.<region>.amazonaws.com/<account id>/<queue name>; a `.fifo` queue gets the destination id as its message group and the event id as its de-duplication id. */
  queue_url: string;
};

export type UpdateAccountRequest = {
  name?: string;
  plan?: 'free' | 'pro' | 'enterprise';
  /** Enterprise only; a plan change without it resets the window to the new plan’s default. */
  retention_days?: number;
};

/** A merge: a field left out keeps its value, a string sets it, null clears it back to its default. */
export type UpdateBrandSettingsRequest = {
  /** Default null. */
  company_name?: string | null;
  /** An absolute https URL without credentials. Default null. */
  logo_url?: string | null;
  /** `#rrggbb`, answered lower-case. Default `#4f46e5`. */
  primary_color?: string | null;
  /** `#rrggbb`, answered lower-case. Default null: derived from `primary_color`. */
  accent_color?: string | null;
  /** Default `Webhooks`. */
  docs_title?: string | null;
};

export type UpdateDestinationRequest = {
  name?: string;
  /** A new target of the same type (an AWS destination only; its type never changes). */
  config?: SqsDestinationConfig | SnsDestinationConfig | EventBridgeDestinationConfig | KinesisDestinationConfig | LambdaDestinationConfig | S3DestinationConfig;
  /** AWS types only: a role in the target’s account that Hookgate assumes to deliver, whose trust policy allows Hookgate’s deliver role with `sts:ExternalId` = the destination’s `external_id`. null or absent: the deliver role itself (a same-account target listed in `awsDestinationTargets`, for an account listed in `awsOwnRoleAccounts`). */
  role_arn?: string | null;
  /** AWS types only: the AWS connection (`POST /v1/aws-connections`) Hookgate delivers through: it assumes the connection’s role with the connection’s external id. The preferred form of `role_arn`; the connection must be in the target’s AWS account, and a customer’s connection serves only that customer’s destinations. null removes it. */
  connection_id?: string | null;
  /** An http destination’s http(s) URL without credentials; private, loopback and reserved addresses are refused. Not for AWS types. */
  url?: string;
  /** Default: generated `whsec_` + base64 of 32 random bytes. Rotating it keeps the previous one valid for 24 hours. */
  signing_secret?: string;
  auth?: DestinationAuth | null;
  /** Default 15000. */
  timeout_ms?: number;
  /** Default true. */
  active?: boolean;
  /** Default `hookgate`; `standard_webhooks` needs a `whsec_` secret of 24..64 bytes; `ed25519` signs with the account’s Ed25519 key (`v1a`, public keys at the account’s `jwks_url`). */
  signature_scheme?: 'hookgate' | 'standard_webhooks' | 'ed25519';
  /** Your own id for the customer it belongs to (the consumer portal’s scope). Default null. */
  customer?: string | null;
  /** Seconds to wait before each try: step 0 before the first, step i after failed try i, so the number of steps is the number of tries. 1 to 20 steps of 0 to 86400. null or absent: the default `[0, 30, 120, 600, 3600]`. */
  retry_schedule?: number[] | null;
  /** Hours during which every try failed after which Hookgate disables the destination (`active: false`, `health.state: disabled`, `disabled_reason`) and publishes `hookgate.destination.disabled`. Decimals allowed; 0: never. Default 120 (five days). */
  auto_disable_after_hours?: number;
  /** Deliveries per second to this destination, across every deliver function: deliveries over the rate wait for their turn (never dropped, no try spent). null or absent: no limit. */
  rate_limit_per_second?: number | null;
  /** Tries in flight at once to this destination, across every deliver function: a delivery over the cap waits for a place (never dropped, no try spent), so a hanging endpoint holds at most this many. Default 10. */
  max_in_flight?: number;
  /** `per_key`: the deliveries of each `ordering_key` are tried one after the other, in the order their events were accepted: one is not tried before every earlier one of its key has ended (delivered, dead-lettered or ended), and the next goes as soon as it has. Other keys and unkeyed events never wait for them. Default `none`. */
  ordering?: 'none' | 'per_key';
  /** http only. true: the destination starts `pending_verification`; Hookgate POSTs one signed `hookgate.endpoint.verification` event with a random `challenge`, and sends nothing else until the endpoint answers 2xx echoing it (or you post it to `POST /v1/destinations/{id}/verify`). A new `url` starts over. Default false; always true where the deployment requires it (`requireEndpointVerification`) and for endpoints customers make in the portal. */
  verify_ownership?: boolean;
};

export type UpdatePortalEndpointRequest = {
  /** An http(s) URL; private, loopback and reserved addresses are refused. */
  url?: string;
  /** A new target of the same type (an AWS endpoint only). */
  config?: SqsDestinationConfig | SnsDestinationConfig | EventBridgeDestinationConfig | KinesisDestinationConfig | LambdaDestinationConfig | S3DestinationConfig;
  /** AWS types: one of the customer’s AWS connections (`POST /v1/portal/aws-connections`), in the target’s AWS account. Required for an AWS endpoint. */
  connection_id?: string | null;
  name?: string;
  /** false pauses deliveries to it; true resumes them. */
  active?: boolean;
  /** Event types of the catalog it receives; replaces the current choice. */
  event_types?: string[];
};

export type UpdateRouteRequest = {
  active?: boolean;
  /** An exact type, or text ending in `*` (`payment.*`); null or absent: every type. */
  event_type_pattern?: string | null;
  /** Matched against the event’s JSON body: `{"field": value}` (equal), `{"field": {"$gt": 100}}` (operators `$eq $neq $in $nin $gt $gte $lt $lte $exists $startsWith`), nested objects for nested fields, and `$and`/`$or` (arrays of filters) and `$not` (a filter) at any level. A body that is not JSON never matches a route with a filter. At most 4096 bytes. null or absent: no filter. */
  filter?: Record<string, unknown> | null;
};

export type UpdateSourceRequest = {
  name?: string;
  verification?: SourceVerification;
  /** One of the account’s custom domains that has not failed; the ingest URL uses it once verified. null unties it. */
  custom_domain_id?: string | null;
  /** Where an inbound event’s data subject is in its JSON payload (RFC 6901), e.g. `/data/object/customer`: a string or number found there is the event’s `subject`, which `POST /v1/erasures` erases by. null: none. */
  subject_pointer?: string | null;
  /** An RFC 6901 JSON pointer (e.g. `/customer/id`) to its events’ `ordering_key` in their JSON payload: a string or number there that is a valid key (1-128 visible characters) is the event’s key; anything else (no JSON, nothing there, an object) leaves it unordered rather than refused. null unsets it. */
  ordering_key_pointer?: string | null;
};

export type VerifyDestinationRequest = {
  /** The `challenge` of the `hookgate.endpoint.verification` event your endpoint received (from its logs). */
  challenge: string;
};

/** Every operation: its parameters, body and successful answers (errors throw `HookgateError`). */
export interface Operations {
  healthz: {
    method: 'GET';
    path: '/healthz';
    params: undefined;
    query: undefined;
    body: undefined;
    responses: {
      200: {
        data: {
          status: 'ok';
        };
        duration_ms: DurationMs;
      };
    };
  };
  readyz: {
    method: 'GET';
    path: '/readyz';
    params: undefined;
    query: undefined;
    body: undefined;
    responses: {
      200: {
        data: {
          status: 'ready';
        };
        duration_ms: DurationMs;
      };
    };
  };
  createAccount: {
    method: 'POST';
    path: '/v1/accounts';
    params: undefined;
    query: undefined;
    body: CreateAccountRequest | undefined;
    responses: {
      201: {
        data: AccountCreated;
        duration_ms: DurationMs;
      };
    };
  };
  getAccount: {
    method: 'GET';
    path: '/v1/account';
    params: undefined;
    query: undefined;
    body: undefined;
    responses: {
      200: {
        data: AccountDetail;
        duration_ms: DurationMs;
      };
    };
  };
  updateAccount: {
    method: 'PATCH';
    path: '/v1/account';
    params: undefined;
    query: undefined;
    body: UpdateAccountRequest | undefined;
    responses: {
      200: {
        data: Account;
        duration_ms: DurationMs;
      };
    };
  };
  rotateSigningKeys: {
    method: 'POST';
    path: '/v1/signing-keys/rotate';
    params: undefined;
    query: undefined;
    body: RotateSigningKeysRequest | undefined;
    responses: {
      200: {
        data: SigningKeys;
        duration_ms: DurationMs;
      };
    };
  };
  getJwks: {
    method: 'GET';
    path: '/.well-known/jwks/{account_id}.json';
    params: {
      account_id: string;
    };
    query: undefined;
    body: undefined;
    responses: {
      200: Jwks;
    };
  };
  getCustomerJwks: {
    method: 'GET';
    path: '/.well-known/jwks/{account_id}/customers/{customer}.json';
    params: {
      account_id: string;
      customer: string;
    };
    query: undefined;
    body: undefined;
    responses: {
      200: Jwks;
    };
  };
  createApiKey: {
    method: 'POST';
    path: '/v1/api-keys';
    params: undefined;
    query: undefined;
    body: CreateApiKeyRequest | undefined;
    responses: {
      201: {
        data: NewApiKey;
        duration_ms: DurationMs;
      };
    };
  };
  listApiKeys: {
    method: 'GET';
    path: '/v1/api-keys';
    params: undefined;
    query: undefined;
    body: undefined;
    responses: {
      200: {
        data: ApiKey[];
        duration_ms: DurationMs;
      };
    };
  };
  revokeApiKey: {
    method: 'DELETE';
    path: '/v1/api-keys/{id}';
    params: {
      id: string;
    };
    query: undefined;
    body: undefined;
    responses: {
      204: null;
    };
  };
  createSource: {
    method: 'POST';
    path: '/v1/sources';
    params: undefined;
    query: undefined;
    body: CreateSourceRequest;
    responses: {
      201: {
        data: Source;
        duration_ms: DurationMs;
      };
    };
  };
  listSources: {
    method: 'GET';
    path: '/v1/sources';
    params: undefined;
    query: undefined;
    body: undefined;
    responses: {
      200: {
        data: Source[];
        duration_ms: DurationMs;
      };
    };
  };
  updateSource: {
    method: 'PATCH';
    path: '/v1/sources/{id}';
    params: {
      id: string;
    };
    query: undefined;
    body: UpdateSourceRequest | undefined;
    responses: {
      200: {
        data: Source;
        duration_ms: DurationMs;
      };
    };
  };
  getSource: {
    method: 'GET';
    path: '/v1/sources/{id}';
    params: {
      id: string;
    };
    query: undefined;
    body: undefined;
    responses: {
      200: {
        data: Source;
        duration_ms: DurationMs;
      };
    };
  };
  deleteSource: {
    method: 'DELETE';
    path: '/v1/sources/{id}';
    params: {
      id: string;
    };
    query: undefined;
    body: undefined;
    responses: {
      204: null;
    };
  };
  createDestination: {
    method: 'POST';
    path: '/v1/destinations';
    params: undefined;
    query: undefined;
    body: CreateDestinationRequest;
    responses: {
      201: {
        data: DestinationWithSecret;
        duration_ms: DurationMs;
      };
    };
  };
  listDestinations: {
    method: 'GET';
    path: '/v1/destinations';
    params: undefined;
    query: {
      customer?: string;
    };
    body: undefined;
    responses: {
      200: {
        data: Destination[];
        duration_ms: DurationMs;
      };
    };
  };
  getDestination: {
    method: 'GET';
    path: '/v1/destinations/{id}';
    params: {
      id: string;
    };
    query: undefined;
    body: undefined;
    responses: {
      200: {
        data: DestinationWithSecret;
        duration_ms: DurationMs;
      };
    };
  };
  updateDestination: {
    method: 'PATCH';
    path: '/v1/destinations/{id}';
    params: {
      id: string;
    };
    query: undefined;
    body: UpdateDestinationRequest | undefined;
    responses: {
      200: {
        data: Destination;
        duration_ms: DurationMs;
      };
    };
  };
  deleteDestination: {
    method: 'DELETE';
    path: '/v1/destinations/{id}';
    params: {
      id: string;
    };
    query: undefined;
    body: undefined;
    responses: {
      204: null;
    };
  };
  verifyDestination: {
    method: 'POST';
    path: '/v1/destinations/{id}/verify';
    params: {
      id: string;
    };
    query: undefined;
    body: VerifyDestinationRequest;
    responses: {
      200: {
        data: Destination;
        duration_ms: DurationMs;
      };
    };
  };
  resendDestinationVerification: {
    method: 'POST';
    path: '/v1/destinations/{id}/verification/resend';
    params: {
      id: string;
    };
    query: undefined;
    body: undefined;
    responses: {
      202: {
        data: Destination;
        duration_ms: DurationMs;
      };
    };
  };
  endHeldDeliveries: {
    method: 'POST';
    path: '/v1/destinations/{id}/end-held';
    params: {
      id: string;
    };
    query: undefined;
    body: undefined;
    responses: {
      200: {
        data: EndedHeld;
        duration_ms: DurationMs;
      };
    };
  };
  createAwsConnection: {
    method: 'POST';
    path: '/v1/aws-connections';
    params: undefined;
    query: undefined;
    body: CreateAwsConnectionRequest;
    responses: {
      201: {
        data: AwsConnection;
        duration_ms: DurationMs;
      };
    };
  };
  listAwsConnections: {
    method: 'GET';
    path: '/v1/aws-connections';
    params: undefined;
    query: {
      customer?: string;
    };
    body: undefined;
    responses: {
      200: {
        data: AwsConnection[];
        duration_ms: DurationMs;
      };
    };
  };
  getAwsConnection: {
    method: 'GET';
    path: '/v1/aws-connections/{id}';
    params: {
      id: string;
    };
    query: undefined;
    body: undefined;
    responses: {
      200: {
        data: AwsConnection;
        duration_ms: DurationMs;
      };
    };
  };
  deleteAwsConnection: {
    method: 'DELETE';
    path: '/v1/aws-connections/{id}';
    params: {
      id: string;
    };
    query: undefined;
    body: undefined;
    responses: {
      204: null;
    };
  };
  getAwsConnectionTemplate: {
    method: 'GET';
    path: '/v1/aws-connections/{id}/template';
    params: {
      id: string;
    };
    query: undefined;
    body: undefined;
    responses: {
      200: {
        data: AwsConnectionTemplate;
        duration_ms: DurationMs;
      };
    };
  };
  verifyAwsConnection: {
    method: 'POST';
    path: '/v1/aws-connections/{id}/verify';
    params: {
      id: string;
    };
    query: undefined;
    body: undefined;
    responses: {
      200: {
        data: AwsConnectionCheck;
        duration_ms: DurationMs;
      };
    };
  };
  createRoute: {
    method: 'POST';
    path: '/v1/routes';
    params: undefined;
    query: undefined;
    body: CreateRouteRequest;
    responses: {
      201: {
        data: Route;
        duration_ms: DurationMs;
      };
    };
  };
  listRoutes: {
    method: 'GET';
    path: '/v1/routes';
    params: undefined;
    query: undefined;
    body: undefined;
    responses: {
      200: {
        data: Route[];
        duration_ms: DurationMs;
      };
    };
  };
  getRoute: {
    method: 'GET';
    path: '/v1/routes/{id}';
    params: {
      id: string;
    };
    query: undefined;
    body: undefined;
    responses: {
      200: {
        data: Route;
        duration_ms: DurationMs;
      };
    };
  };
  updateRoute: {
    method: 'PATCH';
    path: '/v1/routes/{id}';
    params: {
      id: string;
    };
    query: undefined;
    body: UpdateRouteRequest | undefined;
    responses: {
      200: {
        data: Route;
        duration_ms: DurationMs;
      };
    };
  };
  deleteRoute: {
    method: 'DELETE';
    path: '/v1/routes/{id}';
    params: {
      id: string;
    };
    query: undefined;
    body: undefined;
    responses: {
      204: null;
    };
  };
  openListenSession: {
    method: 'POST';
    path: '/v1/listen-sessions';
    params: undefined;
    query: undefined;
    body: OpenListenSessionRequest;
    responses: {
      200: {
        data: ListenSession;
        duration_ms: DurationMs;
      };
      201: {
        data: ListenSession;
        duration_ms: DurationMs;
      };
    };
  };
  closeListenSession: {
    method: 'DELETE';
    path: '/v1/listen-sessions/{session_id}';
    params: {
      session_id: string;
    };
    query: undefined;
    body: undefined;
    responses: {
      204: null;
    };
  };
  listEvents: {
    method: 'GET';
    path: '/v1/events';
    params: undefined;
    query: {
      limit?: number;
      cursor?: string;
      status?: 'received' | 'accepted' | 'queued' | 'delivering' | 'delivered' | 'retry_scheduled' | 'dead_letter' | 'replayed';
      event_type?: string;
      source_id?: string;
      external_event_id?: string;
      customer?: string;
      date_from?: string;
      date_to?: string;
    };
    body: undefined;
    responses: {
      200: {
        data: EventListItem[];
        /** Pass as `cursor` for the next page; null on the last. */
        next_cursor: string | null;
        duration_ms: DurationMs;
      };
    };
  };
  getEvent: {
    method: 'GET';
    path: '/v1/events/{id}';
    params: {
      id: string;
    };
    query: undefined;
    body: undefined;
    responses: {
      200: {
        data: EventWithAttempts;
        duration_ms: DurationMs;
      };
    };
  };
  replayEvent: {
    method: 'POST';
    path: '/v1/events/{id}/replay';
    params: {
      id: string;
    };
    query: undefined;
    body: ReplayRequest | undefined;
    responses: {
      202: {
        data: ReplayResult;
        duration_ms: DurationMs;
      };
    };
  };
  publishOutboundEvent: {
    method: 'POST';
    path: '/v1/outbound-events';
    params: undefined;
    query: undefined;
    body: PublishOutboundEventRequest;
    responses: {
      200: {
        data: DuplicateEvent;
        duration_ms: DurationMs;
      };
      201: {
        data: PublishedEvent;
        duration_ms: DurationMs;
      };
    };
  };
  listOutboundEvents: {
    method: 'GET';
    path: '/v1/outbound-events';
    params: undefined;
    query: {
      limit?: number;
      cursor?: string;
      status?: 'received' | 'accepted' | 'queued' | 'delivering' | 'delivered' | 'retry_scheduled' | 'dead_letter' | 'replayed';
      event_type?: string;
      source_id?: string;
      external_event_id?: string;
      customer?: string;
      date_from?: string;
      date_to?: string;
    };
    body: undefined;
    responses: {
      200: {
        data: EventListItem[];
        /** Pass as `cursor` for the next page; null on the last. */
        next_cursor: string | null;
        duration_ms: DurationMs;
      };
    };
  };
  publishOutboundEventBatch: {
    method: 'POST';
    path: '/v1/outbound-events/batch';
    params: undefined;
    query: undefined;
    body: PublishOutboundEventBatchRequest;
    responses: {
      200: {
        data: BatchItemResult[];
        duration_ms: DurationMs;
      };
    };
  };
  getOutboundEvent: {
    method: 'GET';
    path: '/v1/outbound-events/{id}';
    params: {
      id: string;
    };
    query: undefined;
    body: undefined;
    responses: {
      200: {
        data: EventWithAttempts;
        duration_ms: DurationMs;
      };
    };
  };
  replayOutboundEvent: {
    method: 'POST';
    path: '/v1/outbound-events/{id}/replay';
    params: {
      id: string;
    };
    query: undefined;
    body: ReplayRequest | undefined;
    responses: {
      202: {
        data: ReplayResult;
        duration_ms: DurationMs;
      };
    };
  };
  createExport: {
    method: 'POST';
    path: '/v1/exports';
    params: undefined;
    query: undefined;
    body: CreateExportRequest | undefined;
    responses: {
      201: {
        data: ExportJob;
        duration_ms: DurationMs;
      };
    };
  };
  listExports: {
    method: 'GET';
    path: '/v1/exports';
    params: undefined;
    query: {
      limit?: number;
      offset?: number;
    };
    body: undefined;
    responses: {
      200: {
        data: ExportJob[];
        duration_ms: DurationMs;
      };
    };
  };
  getExport: {
    method: 'GET';
    path: '/v1/exports/{id}';
    params: {
      id: string;
    };
    query: undefined;
    body: undefined;
    responses: {
      200: {
        data: ExportJob;
        duration_ms: DurationMs;
      };
    };
  };
  downloadExport: {
    method: 'GET';
    path: '/v1/exports/{id}/download';
    params: {
      id: string;
    };
    query: undefined;
    body: undefined;
    responses: {
      302: { location: string };
    };
  };
  createReplay: {
    method: 'POST';
    path: '/v1/replays';
    params: undefined;
    query: undefined;
    body: CreateReplayRequest;
    responses: {
      200: {
        data: ReplayDryRun;
        duration_ms: DurationMs;
      };
      202: {
        data: ReplayJob;
        duration_ms: DurationMs;
      };
    };
  };
  listReplays: {
    method: 'GET';
    path: '/v1/replays';
    params: undefined;
    query: {
      limit?: number;
      offset?: number;
    };
    body: undefined;
    responses: {
      200: {
        data: ReplayJob[];
        duration_ms: DurationMs;
      };
    };
  };
  getReplay: {
    method: 'GET';
    path: '/v1/replays/{id}';
    params: {
      id: string;
    };
    query: undefined;
    body: undefined;
    responses: {
      200: {
        data: ReplayJob;
        duration_ms: DurationMs;
      };
    };
  };
  createErasure: {
    method: 'POST';
    path: '/v1/erasures';
    params: undefined;
    query: undefined;
    body: CreateErasureRequest;
    responses: {
      202: {
        data: Erasure;
        duration_ms: DurationMs;
      };
    };
  };
  getErasure: {
    method: 'GET';
    path: '/v1/erasures/{id}';
    params: {
      id: string;
    };
    query: undefined;
    body: undefined;
    responses: {
      200: {
        data: Erasure;
        duration_ms: DurationMs;
      };
    };
  };
  getBrandSettings: {
    method: 'GET';
    path: '/v1/brand-settings';
    params: undefined;
    query: undefined;
    body: undefined;
    responses: {
      200: {
        data: BrandSettings;
        duration_ms: DurationMs;
      };
    };
  };
  updateBrandSettings: {
    method: 'POST';
    path: '/v1/brand-settings';
    params: undefined;
    query: undefined;
    body: UpdateBrandSettingsRequest | undefined;
    responses: {
      200: {
        data: BrandSettings;
        duration_ms: DurationMs;
      };
    };
  };
  createCustomDomain: {
    method: 'POST';
    path: '/v1/custom-domains';
    params: undefined;
    query: undefined;
    body: CreateCustomDomainRequest;
    responses: {
      201: {
        data: CustomDomain;
        duration_ms: DurationMs;
      };
    };
  };
  listCustomDomains: {
    method: 'GET';
    path: '/v1/custom-domains';
    params: undefined;
    query: undefined;
    body: undefined;
    responses: {
      200: {
        data: CustomDomain[];
        duration_ms: DurationMs;
      };
    };
  };
  getCustomDomain: {
    method: 'GET';
    path: '/v1/custom-domains/{id}';
    params: {
      id: string;
    };
    query: undefined;
    body: undefined;
    responses: {
      200: {
        data: CustomDomain;
        duration_ms: DurationMs;
      };
    };
  };
  deleteCustomDomain: {
    method: 'DELETE';
    path: '/v1/custom-domains/{id}';
    params: {
      id: string;
    };
    query: undefined;
    body: undefined;
    responses: {
      204: null;
    };
  };
  verifyCustomDomain: {
    method: 'POST';
    path: '/v1/custom-domains/{id}/verify';
    params: {
      id: string;
    };
    query: undefined;
    body: undefined;
    responses: {
      200: {
        data: CustomDomain;
        duration_ms: DurationMs;
      };
    };
  };
  createEventType: {
    method: 'POST';
    path: '/v1/event-types';
    params: undefined;
    query: undefined;
    body: CreateEventTypeRequest;
    responses: {
      200: {
        data: EventType;
        duration_ms: DurationMs;
      };
      201: {
        data: EventType;
        duration_ms: DurationMs;
      };
    };
  };
  listEventTypes: {
    method: 'GET';
    path: '/v1/event-types';
    params: undefined;
    query: undefined;
    body: undefined;
    responses: {
      200: {
        data: EventType[];
        duration_ms: DurationMs;
      };
    };
  };
  deleteEventType: {
    method: 'DELETE';
    path: '/v1/event-types/{name}';
    params: {
      name: string;
    };
    query: undefined;
    body: undefined;
    responses: {
      204: null;
    };
  };
  createPortalSession: {
    method: 'POST';
    path: '/v1/portal-sessions';
    params: undefined;
    query: undefined;
    body: CreatePortalSessionRequest;
    responses: {
      201: {
        data: PortalSession;
        duration_ms: DurationMs;
      };
    };
  };
  revokePortalSessions: {
    method: 'POST';
    path: '/v1/portal-sessions/revoke';
    params: undefined;
    query: undefined;
    body: RevokePortalSessionsRequest;
    responses: {
      204: null;
    };
  };
  getPortalSession: {
    method: 'GET';
    path: '/v1/portal/session';
    params: undefined;
    query: undefined;
    body: undefined;
    responses: {
      200: {
        data: PortalSessionInfo;
        duration_ms: DurationMs;
      };
    };
  };
  listPortalEventTypes: {
    method: 'GET';
    path: '/v1/portal/event-types';
    params: undefined;
    query: undefined;
    body: undefined;
    responses: {
      200: {
        data: EventType[];
        duration_ms: DurationMs;
      };
    };
  };
  listPortalEndpoints: {
    method: 'GET';
    path: '/v1/portal/endpoints';
    params: undefined;
    query: undefined;
    body: undefined;
    responses: {
      200: {
        data: PortalEndpoint[];
        duration_ms: DurationMs;
      };
    };
  };
  createPortalEndpoint: {
    method: 'POST';
    path: '/v1/portal/endpoints';
    params: undefined;
    query: undefined;
    body: CreatePortalEndpointRequest;
    responses: {
      201: {
        data: PortalEndpointWithSecret;
        duration_ms: DurationMs;
      };
    };
  };
  getPortalEndpoint: {
    method: 'GET';
    path: '/v1/portal/endpoints/{id}';
    params: {
      id: string;
    };
    query: undefined;
    body: undefined;
    responses: {
      200: {
        data: PortalEndpointWithSecret;
        duration_ms: DurationMs;
      };
    };
  };
  updatePortalEndpoint: {
    method: 'PATCH';
    path: '/v1/portal/endpoints/{id}';
    params: {
      id: string;
    };
    query: undefined;
    body: UpdatePortalEndpointRequest | undefined;
    responses: {
      200: {
        data: PortalEndpointWithSecret;
        duration_ms: DurationMs;
      };
    };
  };
  deletePortalEndpoint: {
    method: 'DELETE';
    path: '/v1/portal/endpoints/{id}';
    params: {
      id: string;
    };
    query: undefined;
    body: undefined;
    responses: {
      204: null;
    };
  };
  rotatePortalEndpointSecret: {
    method: 'POST';
    path: '/v1/portal/endpoints/{id}/rotate-secret';
    params: {
      id: string;
    };
    query: undefined;
    body: undefined;
    responses: {
      200: {
        data: PortalEndpointWithSecret;
        duration_ms: DurationMs;
      };
    };
  };
  verifyPortalEndpoint: {
    method: 'POST';
    path: '/v1/portal/endpoints/{id}/verify';
    params: {
      id: string;
    };
    query: undefined;
    body: VerifyDestinationRequest;
    responses: {
      200: {
        data: PortalEndpointWithSecret;
        duration_ms: DurationMs;
      };
    };
  };
  resendPortalEndpointVerification: {
    method: 'POST';
    path: '/v1/portal/endpoints/{id}/verification/resend';
    params: {
      id: string;
    };
    query: undefined;
    body: undefined;
    responses: {
      202: {
        data: PortalEndpointWithSecret;
        duration_ms: DurationMs;
      };
    };
  };
  sendPortalTestEvent: {
    method: 'POST';
    path: '/v1/portal/endpoints/{id}/test';
    params: {
      id: string;
    };
    query: undefined;
    body: undefined;
    responses: {
      202: {
        data: PortalSend;
        duration_ms: DurationMs;
      };
    };
  };
  listPortalEvents: {
    method: 'GET';
    path: '/v1/portal/events';
    params: undefined;
    query: {
      limit?: number;
      cursor?: string;
      status?: 'received' | 'accepted' | 'queued' | 'delivering' | 'delivered' | 'retry_scheduled' | 'dead_letter' | 'replayed';
      event_type?: string;
    };
    body: undefined;
    responses: {
      200: {
        data: PortalEventListItem[];
        /** Pass as `cursor` for the next page; null on the last. */
        next_cursor: string | null;
        duration_ms: DurationMs;
      };
    };
  };
  getPortalEvent: {
    method: 'GET';
    path: '/v1/portal/events/{id}';
    params: {
      id: string;
    };
    query: undefined;
    body: undefined;
    responses: {
      200: {
        data: PortalEventWithAttempts;
        duration_ms: DurationMs;
      };
    };
  };
  resendPortalEvent: {
    method: 'POST';
    path: '/v1/portal/events/{id}/resend';
    params: {
      id: string;
    };
    query: undefined;
    body: PortalResendRequest;
    responses: {
      202: {
        data: PortalSend;
        duration_ms: DurationMs;
      };
    };
  };
  listPortalAwsConnections: {
    method: 'GET';
    path: '/v1/portal/aws-connections';
    params: undefined;
    query: undefined;
    body: undefined;
    responses: {
      200: {
        data: PortalAwsConnection[];
        duration_ms: DurationMs;
      };
    };
  };
  createPortalAwsConnection: {
    method: 'POST';
    path: '/v1/portal/aws-connections';
    params: undefined;
    query: undefined;
    body: CreatePortalAwsConnectionRequest;
    responses: {
      201: {
        data: PortalAwsConnection;
        duration_ms: DurationMs;
      };
    };
  };
  getPortalAwsConnection: {
    method: 'GET';
    path: '/v1/portal/aws-connections/{id}';
    params: {
      id: string;
    };
    query: undefined;
    body: undefined;
    responses: {
      200: {
        data: PortalAwsConnection;
        duration_ms: DurationMs;
      };
    };
  };
  deletePortalAwsConnection: {
    method: 'DELETE';
    path: '/v1/portal/aws-connections/{id}';
    params: {
      id: string;
    };
    query: undefined;
    body: undefined;
    responses: {
      204: null;
    };
  };
  getPortalAwsConnectionTemplate: {
    method: 'GET';
    path: '/v1/portal/aws-connections/{id}/template';
    params: {
      id: string;
    };
    query: undefined;
    body: undefined;
    responses: {
      200: {
        data: AwsConnectionTemplate;
        duration_ms: DurationMs;
      };
    };
  };
  verifyPortalAwsConnection: {
    method: 'POST';
    path: '/v1/portal/aws-connections/{id}/verify';
    params: {
      id: string;
    };
    query: undefined;
    body: undefined;
    responses: {
      200: {
        data: AwsConnectionCheck;
        duration_ms: DurationMs;
      };
    };
  };
  getPortalPage: {
    method: 'GET';
    path: '/portal';
    params: undefined;
    query: undefined;
    body: undefined;
    responses: {
      200: null;
    };
  };
  getPortalScript: {
    method: 'GET';
    path: '/portal/app.js';
    params: undefined;
    query: undefined;
    body: undefined;
    responses: {
      200: null;
    };
  };
  getPortalStyle: {
    method: 'GET';
    path: '/portal/app.css';
    params: undefined;
    query: undefined;
    body: undefined;
    responses: {
      200: null;
    };
  };
  getOpenApiDocument: {
    method: 'GET';
    path: '/openapi.json';
    params: undefined;
    query: undefined;
    body: undefined;
    responses: {
      200: Record<string, unknown>;
    };
  };
  ingestWebhook: {
    method: 'POST';
    path: '/ingest/{token}';
    params: {
      token: string;
    };
    query: undefined;
    body: string | Uint8Array | undefined;
    responses: {
      202: {
        data: IngestAccepted;
        duration_ms: DurationMs;
      };
    };
  };
}

export type OperationId = keyof Operations;

/** Method and path of every operation, for the client to call. */
export const operations: { readonly [K in OperationId]: { readonly method: Operations[K]['method']; readonly path: Operations[K]['path'] } } = {
  healthz: { method: 'GET', path: '/healthz' },
  readyz: { method: 'GET', path: '/readyz' },
  createAccount: { method: 'POST', path: '/v1/accounts' },
  getAccount: { method: 'GET', path: '/v1/account' },
  updateAccount: { method: 'PATCH', path: '/v1/account' },
  rotateSigningKeys: { method: 'POST', path: '/v1/signing-keys/rotate' },
  getJwks: { method: 'GET', path: '/.well-known/jwks/{account_id}.json' },
  getCustomerJwks: { method: 'GET', path: '/.well-known/jwks/{account_id}/customers/{customer}.json' },
  createApiKey: { method: 'POST', path: '/v1/api-keys' },
  listApiKeys: { method: 'GET', path: '/v1/api-keys' },
  revokeApiKey: { method: 'DELETE', path: '/v1/api-keys/{id}' },
  createSource: { method: 'POST', path: '/v1/sources' },
  listSources: { method: 'GET', path: '/v1/sources' },
  updateSource: { method: 'PATCH', path: '/v1/sources/{id}' },
  getSource: { method: 'GET', path: '/v1/sources/{id}' },
  deleteSource: { method: 'DELETE', path: '/v1/sources/{id}' },
  createDestination: { method: 'POST', path: '/v1/destinations' },
  listDestinations: { method: 'GET', path: '/v1/destinations' },
  getDestination: { method: 'GET', path: '/v1/destinations/{id}' },
  updateDestination: { method: 'PATCH', path: '/v1/destinations/{id}' },
  deleteDestination: { method: 'DELETE', path: '/v1/destinations/{id}' },
  verifyDestination: { method: 'POST', path: '/v1/destinations/{id}/verify' },
  resendDestinationVerification: { method: 'POST', path: '/v1/destinations/{id}/verification/resend' },
  endHeldDeliveries: { method: 'POST', path: '/v1/destinations/{id}/end-held' },
  createAwsConnection: { method: 'POST', path: '/v1/aws-connections' },
  listAwsConnections: { method: 'GET', path: '/v1/aws-connections' },
  getAwsConnection: { method: 'GET', path: '/v1/aws-connections/{id}' },
  deleteAwsConnection: { method: 'DELETE', path: '/v1/aws-connections/{id}' },
  getAwsConnectionTemplate: { method: 'GET', path: '/v1/aws-connections/{id}/template' },
  verifyAwsConnection: { method: 'POST', path: '/v1/aws-connections/{id}/verify' },
  createRoute: { method: 'POST', path: '/v1/routes' },
  listRoutes: { method: 'GET', path: '/v1/routes' },
  getRoute: { method: 'GET', path: '/v1/routes/{id}' },
  updateRoute: { method: 'PATCH', path: '/v1/routes/{id}' },
  deleteRoute: { method: 'DELETE', path: '/v1/routes/{id}' },
  openListenSession: { method: 'POST', path: '/v1/listen-sessions' },
  closeListenSession: { method: 'DELETE', path: '/v1/listen-sessions/{session_id}' },
  listEvents: { method: 'GET', path: '/v1/events' },
  getEvent: { method: 'GET', path: '/v1/events/{id}' },
  replayEvent: { method: 'POST', path: '/v1/events/{id}/replay' },
  publishOutboundEvent: { method: 'POST', path: '/v1/outbound-events' },
  listOutboundEvents: { method: 'GET', path: '/v1/outbound-events' },
  publishOutboundEventBatch: { method: 'POST', path: '/v1/outbound-events/batch' },
  getOutboundEvent: { method: 'GET', path: '/v1/outbound-events/{id}' },
  replayOutboundEvent: { method: 'POST', path: '/v1/outbound-events/{id}/replay' },
  createExport: { method: 'POST', path: '/v1/exports' },
  listExports: { method: 'GET', path: '/v1/exports' },
  getExport: { method: 'GET', path: '/v1/exports/{id}' },
  downloadExport: { method: 'GET', path: '/v1/exports/{id}/download' },
  createReplay: { method: 'POST', path: '/v1/replays' },
  listReplays: { method: 'GET', path: '/v1/replays' },
  getReplay: { method: 'GET', path: '/v1/replays/{id}' },
  createErasure: { method: 'POST', path: '/v1/erasures' },
  getErasure: { method: 'GET', path: '/v1/erasures/{id}' },
  getBrandSettings: { method: 'GET', path: '/v1/brand-settings' },
  updateBrandSettings: { method: 'POST', path: '/v1/brand-settings' },
  createCustomDomain: { method: 'POST', path: '/v1/custom-domains' },
  listCustomDomains: { method: 'GET', path: '/v1/custom-domains' },
  getCustomDomain: { method: 'GET', path: '/v1/custom-domains/{id}' },
  deleteCustomDomain: { method: 'DELETE', path: '/v1/custom-domains/{id}' },
  verifyCustomDomain: { method: 'POST', path: '/v1/custom-domains/{id}/verify' },
  createEventType: { method: 'POST', path: '/v1/event-types' },
  listEventTypes: { method: 'GET', path: '/v1/event-types' },
  deleteEventType: { method: 'DELETE', path: '/v1/event-types/{name}' },
  createPortalSession: { method: 'POST', path: '/v1/portal-sessions' },
  revokePortalSessions: { method: 'POST', path: '/v1/portal-sessions/revoke' },
  getPortalSession: { method: 'GET', path: '/v1/portal/session' },
  listPortalEventTypes: { method: 'GET', path: '/v1/portal/event-types' },
  listPortalEndpoints: { method: 'GET', path: '/v1/portal/endpoints' },
  createPortalEndpoint: { method: 'POST', path: '/v1/portal/endpoints' },
  getPortalEndpoint: { method: 'GET', path: '/v1/portal/endpoints/{id}' },
  updatePortalEndpoint: { method: 'PATCH', path: '/v1/portal/endpoints/{id}' },
  deletePortalEndpoint: { method: 'DELETE', path: '/v1/portal/endpoints/{id}' },
  rotatePortalEndpointSecret: { method: 'POST', path: '/v1/portal/endpoints/{id}/rotate-secret' },
  verifyPortalEndpoint: { method: 'POST', path: '/v1/portal/endpoints/{id}/verify' },
  resendPortalEndpointVerification: { method: 'POST', path: '/v1/portal/endpoints/{id}/verification/resend' },
  sendPortalTestEvent: { method: 'POST', path: '/v1/portal/endpoints/{id}/test' },
  listPortalEvents: { method: 'GET', path: '/v1/portal/events' },
  getPortalEvent: { method: 'GET', path: '/v1/portal/events/{id}' },
  resendPortalEvent: { method: 'POST', path: '/v1/portal/events/{id}/resend' },
  listPortalAwsConnections: { method: 'GET', path: '/v1/portal/aws-connections' },
  createPortalAwsConnection: { method: 'POST', path: '/v1/portal/aws-connections' },
  getPortalAwsConnection: { method: 'GET', path: '/v1/portal/aws-connections/{id}' },
  deletePortalAwsConnection: { method: 'DELETE', path: '/v1/portal/aws-connections/{id}' },
  getPortalAwsConnectionTemplate: { method: 'GET', path: '/v1/portal/aws-connections/{id}/template' },
  verifyPortalAwsConnection: { method: 'POST', path: '/v1/portal/aws-connections/{id}/verify' },
  getPortalPage: { method: 'GET', path: '/portal' },
  getPortalScript: { method: 'GET', path: '/portal/app.js' },
  getPortalStyle: { method: 'GET', path: '/portal/app.css' },
  getOpenApiDocument: { method: 'GET', path: '/openapi.json' },
  ingestWebhook: { method: 'POST', path: '/ingest/{token}' },
};
