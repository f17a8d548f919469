# Generated from docs/openapi.json by `npm run openapi` (clients/python/codegen/generate-types.ts). Do not edit.
"""The API's schemas as TypedDicts and aliases, and the method and path of every operation."""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypeAlias, TypedDict

API_VERSION = "1.0.0"
"""The API version the client was generated from (the document's `info.version`)."""


class Account(TypedDict):
    id: str
    name: str | None
    plan: Literal['free', 'pro', 'enterprise']
    retention_days: int
    created_at: str


class AccountCreated(TypedDict):
    account: Account
    api_key: NewApiKey


class AccountDetail(TypedDict):
    id: str
    name: str | None
    plan: Literal['free', 'pro', 'enterprise']
    retention_days: int
    created_at: str
    jwks_url: str
    """The public JWKS (no API key needed) of the Ed25519 keys the account’s own `ed25519` destinations (those of no `customer`) are signed with. Each customer’s endpoints are signed with that customer’s own keys: `/.well-known/jwks/{account_id}/customers/{customer}.json`, shown in its portal."""


class ApiKey(TypedDict):
    """An API key as listed: never the key itself or its hash."""
    id: str
    name: str | None
    prefix: str
    """The first 10 characters of the key (`hk_` + 7), to tell keys apart."""
    created_at: str
    last_used_at: str | None
    """One-minute resolution."""


class Attempt(TypedDict):
    """One delivery try."""
    id: str
    event_id: str
    destination_id: str
    attempt_number: int
    outcome: Literal['success', 'http_error', 'timeout', 'network_error', 'blocked']
    response_status: int | None
    """The HTTP status of the answer (of the AWS API’s, for an AWS destination); null without one."""
    response_body: str
    """The first 4 KB of the answer; for an AWS destination `{"aws_request_id", "error_code", "error_class"}` or the ids the service gave the message."""
    error: str | None
    attempted_at: str
    duration_ms: int


class AwsConnection(TypedDict):
    """A role in a customer’s AWS account that Hookgate assumes to deliver there."""
    id: str
    aws_account_id: str
    customer: str | None
    external_id: str
    """Generated for this connection, unguessable: the `sts:ExternalId` the role’s trust policy requires."""
    role_name: str
    """The name the template gives the role (`HookgateDelivery-…`)."""
    role_arn: str
    trust_policy: dict[str, Any]
    """The role’s trust policy: Hookgate’s principals, under the external id."""
    cloudformation_template_url: str
    """`GET` it with your API key: the CloudFormation template that creates the role."""
    status: Literal['unverified', 'verified', 'failed']
    """`unverified` until `POST /v1/aws-connections/{id}/verify`; then whether Hookgate could assume the role at `checked_at`."""
    error: str | None
    """Why the last verify failed (STS’s answer); null otherwise."""
    checked_at: str | None
    created_at: str


class AwsConnectionCheck(TypedDict):
    """The result of assuming the connection’s role now."""
    status: Literal['verified', 'failed']
    error: str | None
    checked_at: str


class BatchItemResult_1(TypedDict):
    status: Literal[201]
    data: PublishedEvent


class BatchItemResult_2(TypedDict):
    status: Literal[200]
    data: DuplicateEvent


class BatchItemResult_3(TypedDict):
    status: Literal[400]
    error: str


class BrandSettings(TypedDict):
    """The effective settings: defaults filled in."""
    company_name: str | None
    logo_url: str | None
    primary_color: str | None
    accent_color: str | None
    docs_title: str | None
    updated_at: str | None
    """null until the account sets something."""


class CliDestinationConfig(TypedDict):
    session_id: str
    """The `hookgate listen` session it belongs to."""
    websocket_url: str | None
    """Where the CLI connects; null: this deployment has no listen endpoint."""


class CreateAccountRequest(TypedDict):
    name: NotRequired[str]
    plan: NotRequired[Literal['free', 'pro', 'enterprise']]
    retention_days: NotRequired[int]
    """Enterprise only (1..3650). Defaults: free 1, pro 30, enterprise 90."""


class CreateApiKeyRequest(TypedDict):
    name: NotRequired[str]


class CreateAwsConnectionRequest(TypedDict):
    """A role in an AWS account that Hookgate will assume. No credential is given: the external id is generated here."""
    aws_account_id: str
    """The AWS account the role is created in: the account of the targets its destinations deliver to."""
    customer: NotRequired[str | None]
    """Your own id for the customer it belongs to: only that customer’s destinations may use it. Default null: any destination of the account."""


class CreateCustomDomainRequest(TypedDict):
    domain: str
    """A hostname such as `hooks.acme.com` (lower-cased, trailing dot removed; punycode for IDNs)."""


class CreateDestinationRequest(TypedDict):
    name: str
    config: NotRequired[SqsDestinationConfig | SnsDestinationConfig | EventBridgeDestinationConfig | KinesisDestinationConfig | LambdaDestinationConfig | S3DestinationConfig]
    """An AWS destination’s target, by `type`. Messages over the service’s limit (1048576 bytes for SQS, EventBridge, Kinesis and Lambda, 262144 for SNS) are not sent: such a delivery ends `payload_too_large`."""
    role_arn: NotRequired[str | None]
    """AWS types only: a role in the target’s account that Hookgate assumes to deliver, whose trust policy allows Hookgate’s deliver role with `sts:ExternalId` = the destination’s `external_id`. null or absent: the deliver role itself (a same-account target listed in `awsDestinationTargets`, for an account listed in `awsOwnRoleAccounts`)."""
    connection_id: NotRequired[str | None]
    """AWS types only: the AWS connection (`POST /v1/aws-connections`) Hookgate delivers through: it assumes the connection’s role with the connection’s external id. The preferred form of `role_arn`; the connection must be in the target’s AWS account, and a customer’s connection serves only that customer’s destinations. null removes it."""
    url: NotRequired[str]
    """An http destination’s http(s) URL without credentials; private, loopback and reserved addresses are refused. Not for AWS types."""
    signing_secret: NotRequired[str]
    """Default: generated `whsec_` + base64 of 32 random bytes. Rotating it keeps the previous one valid for 24 hours."""
    auth: NotRequired[DestinationAuth | None]
    timeout_ms: NotRequired[int]
    """Default 15000."""
    active: NotRequired[bool]
    """Default true."""
    signature_scheme: NotRequired[Literal['hookgate', 'standard_webhooks', 'ed25519']]
    """Default `hookgate`; `standard_webhooks` needs a `whsec_` secret of 24..64 bytes; `ed25519` signs with the account’s Ed25519 key (`v1a`, public keys at the account’s `jwks_url`)."""
    customer: NotRequired[str | None]
    """Your own id for the customer it belongs to (the consumer portal’s scope). Default null."""
    retry_schedule: NotRequired[list[int] | None]
    """Seconds to wait before each try: step 0 before the first, step i after failed try i, so the number of steps is the number of tries. 1 to 20 steps of 0 to 86400. null or absent: the default `[0, 30, 120, 600, 3600]`."""
    auto_disable_after_hours: NotRequired[float]
    """Hours during which every try failed after which Hookgate disables the destination (`active: false`, `health.state: disabled`, `disabled_reason`) and publishes `hookgate.destination.disabled`. Decimals allowed; 0: never. Default 120 (five days)."""
    rate_limit_per_second: NotRequired[int | None]
    """Deliveries per second to this destination, across every deliver function: deliveries over the rate wait for their turn (never dropped, no try spent). null or absent: no limit."""
    max_in_flight: NotRequired[int]
    """Tries in flight at once to this destination, across every deliver function: a delivery over the cap waits for a place (never dropped, no try spent), so a hanging endpoint holds at most this many. Default 10."""
    ordering: NotRequired[Literal['none', 'per_key']]
    """`per_key`: the deliveries of each `ordering_key` are tried one after the other, in the order their events were accepted: one is not tried before every earlier one of its key has ended (delivered, dead-lettered or ended), and the next goes as soon as it has. Other keys and unkeyed events never wait for them. Default `none`."""
    verify_ownership: NotRequired[bool]
    """http only. true: the destination starts `pending_verification`; Hookgate POSTs one signed `hookgate.endpoint.verification` event with a random `challenge`, and sends nothing else until the endpoint answers 2xx echoing it (or you post it to `POST /v1/destinations/{id}/verify`). A new `url` starts over. Default false; always true where the deployment requires it (`requireEndpointVerification`) and for endpoints customers make in the portal."""
    type: NotRequired[Literal['http', 'aws_sqs', 'aws_sns', 'aws_eventbridge', 'aws_kinesis', 'aws_lambda', 'aws_s3']]
    """Default `http` (a POST to `url`). An AWS type delivers through the AWS API to the target in `config`, signed with the deliver function’s own role."""


class CreateErasureRequest(TypedDict):
    subject: str
    """The data subject, as given in `subject` on publish (or found at a source's `subject_pointer`): 1-256 characters."""


class CreateEventTypeRequest(TypedDict):
    """Creates the type, or replaces the description and schema of an existing one."""
    name: str
    """The exact `event_type` you publish, such as `invoice.paid`."""
    description: NotRequired[str | None]
    schema: NotRequired[dict[str, Any] | None]


class CreateExportRequest_Filters(TypedDict):
    """Every member optional; an absent filter restricts nothing."""
    direction: NotRequired[Literal['inbound', 'outbound']]
    status: NotRequired[Literal['received', 'accepted', 'queued', 'delivering', 'delivered', 'retry_scheduled', 'dead_letter', 'replayed']]
    date_from: NotRequired[str]
    """ISO 8601; inclusive bound on `created_at`."""
    date_to: NotRequired[str]
    """ISO 8601; inclusive bound on `created_at`."""


class CreateExportRequest(TypedDict):
    format: NotRequired[Literal['json', 'csv']]
    """Default `json`."""
    filters: NotRequired[CreateExportRequest_Filters]
    """Every member optional; an absent filter restricts nothing."""


class CreatePortalAwsConnectionRequest(TypedDict):
    """A role in the customer’s AWS account that Hookgate will assume. The external id is generated here."""
    aws_account_id: str
    """The AWS account the role is created in: the account of the targets its destinations deliver to."""


class CreatePortalEndpointRequest(TypedDict):
    type: NotRequired[Literal['http', 'aws_sqs', 'aws_sns', 'aws_eventbridge', 'aws_kinesis', 'aws_lambda', 'aws_s3']]
    """Default `http` (a POST to `url`). An AWS type delivers through the AWS API to the target in `config`, signed with the deliver function’s own role."""
    url: NotRequired[str]
    """An http endpoint’s http(s) URL; private, loopback and reserved addresses are refused. Not for AWS types."""
    config: NotRequired[SqsDestinationConfig | SnsDestinationConfig | EventBridgeDestinationConfig | KinesisDestinationConfig | LambdaDestinationConfig | S3DestinationConfig]
    """An AWS destination’s target, by `type`. Messages over the service’s limit (1048576 bytes for SQS, EventBridge, Kinesis and Lambda, 262144 for SNS) are not sent: such a delivery ends `payload_too_large`."""
    connection_id: NotRequired[str | None]
    """AWS types: one of the customer’s AWS connections (`POST /v1/portal/aws-connections`), in the target’s AWS account. Required for an AWS endpoint."""
    name: NotRequired[str]
    """Default: the URL’s host, or the AWS type."""
    event_types: NotRequired[list[str]]
    """Event types of the catalog it receives; replaces the current choice."""


class CreatePortalSessionRequest(TypedDict):
    customer: str
    """Your own id for the customer; the portal shows only destinations with this `customer`."""
    expires_in_seconds: NotRequired[int]
    """How long the link works: 1 to 86400 seconds; default 3600."""


class CreateReplayRequest(TypedDict):
    direction: Literal['inbound', 'outbound']
    status: NotRequired[list[Literal['delivered', 'dead_letter', 'replayed', 'accepted']]]
    """Event statuses to replay (terminal ones, and `accepted`). Default `["dead_letter"]`."""
    destination_id: NotRequired[str]
    """Replay to this destination only. Only events routed to it match, and a `dead_letter` event only when its delivery to this destination is the one that failed."""
    source_id: NotRequired[str]
    """Inbound only: events from this source."""
    event_type: NotRequired[str]
    date_from: NotRequired[str]
    """ISO 8601; inclusive bound on `received_at`."""
    date_to: NotRequired[str]
    """ISO 8601; inclusive bound on `received_at`."""
    dry_run: NotRequired[bool]
    """`true`: answer 200 with how many events match, and replay nothing."""


class CreateRouteRequest(TypedDict):
    destination_id: str
    source_id: NotRequired[str | None]
    """null or absent: every source, and outbound events."""
    event_type_pattern: NotRequired[str | None]
    """An exact type, or text ending in `*` (`payment.*`); null or absent: every type."""
    active: NotRequired[bool]
    """Default true."""
    filter: NotRequired[dict[str, Any] | None]
    """Matched against the event’s JSON body: `{"field": value}` (equal), `{"field": {"$gt": 100}}` (operators `$eq $neq $in $nin $gt $gte $lt $lte $exists $startsWith`), nested objects for nested fields, and `$and`/`$or` (arrays of filters) and `$not` (a filter) at any level. A body that is not JSON never matches a route with a filter. At most 4096 bytes. null or absent: no filter."""


class CreateSourceRequest(TypedDict):
    name: str
    verification: NotRequired[SourceVerification]
    custom_domain_id: NotRequired[str | None]
    """One of the account’s custom domains that has not failed; the ingest URL uses it once verified. null unties it."""
    subject_pointer: NotRequired[str | None]
    """Where an inbound event’s data subject is in its JSON payload (RFC 6901), e.g. `/data/object/customer`: a string or number found there is the event’s `subject`, which `POST /v1/erasures` erases by. null: none."""
    ordering_key_pointer: NotRequired[str | None]
    """An RFC 6901 JSON pointer (e.g. `/customer/id`) to its events’ `ordering_key` in their JSON payload: a string or number there that is a valid key (1-128 visible characters) is the event’s key; anything else (no JSON, nothing there, an object) leaves it unordered rather than refused. null unsets it."""


class CustomDomain_VerificationRecord(TypedDict):
    type: Literal['TXT']
    name: str
    value: str


class CustomDomain_TlsValidationRecord(TypedDict):
    type: str
    name: str
    value: str


class CustomDomain(TypedDict):
    id: str
    domain: str
    verification_token: str
    verification_record: CustomDomain_VerificationRecord
    status: Literal['pending_verification', 'verified', 'failed']
    verification_error: str | None
    tls_status: Literal['pending', 'issued', 'failed']
    tls_validation_record: CustomDomain_TlsValidationRecord | None
    dns_target: str | None
    tls_error: str | None
    created_at: str
    verified_at: str | None


class Destination_Auth_1(TypedDict):
    type: Literal['bearer']


class Destination_Auth_2(TypedDict):
    type: Literal['header']
    header_name: str


class Destination(TypedDict):
    """A destination as listed and as PATCH answers it."""
    id: str
    account_id: str
    name: str
    type: Literal['http', 'aws_sqs', 'aws_sns', 'aws_eventbridge', 'aws_kinesis', 'aws_lambda', 'aws_s3', 'cli']
    """`cli`: a `hookgate listen` session’s, delivering over its WebSocket connection."""
    config: SqsDestinationConfig | SnsDestinationConfig | EventBridgeDestinationConfig | KinesisDestinationConfig | LambdaDestinationConfig | S3DestinationConfig | CliDestinationConfig | None
    """An AWS destination’s target, defaults filled in; a cli destination’s session; null for http."""
    role_arn: str | None
    """The role Hookgate assumes to deliver to an AWS target in another account (its AWS connection’s, with `connection_id`); null: its own deliver role."""
    connection_id: str | None
    """The AWS connection it delivers through; null: none (a bare `role_arn`, or the deliver role)."""
    external_id: str | None
    """AWS types: the `sts:ExternalId` Hookgate sends when it assumes `role_arn`: its AWS connection’s, or else the account’s own (`hookgate-<account id>`, the same for every destination of the account); null for http."""
    url: str
    """Where it delivers: an http destination’s URL; an AWS one’s queue URL or ARN, or `s3://<bucket>/<key template>`; a cli one’s `listen:<session id>`."""
    active: bool
    auth: Destination_Auth_1 | Destination_Auth_2 | None
    """The kind of auth sent to the destination; tokens and header values are never returned."""
    timeout_ms: int
    signature_scheme: Literal['hookgate', 'standard_webhooks', 'ed25519']
    disabled_reason: str | None
    """Why Hookgate switched the destination off by itself (its endpoint answered 410 Gone); null otherwise. `PATCH active: true` clears it."""
    status: Literal['active', 'paused', 'pending_verification']
    """`paused`: `active` is false. `pending_verification`: its endpoint has not yet echoed the challenge Hookgate POSTed to it; its deliveries wait (`waiting.reason: unverified`) and go, in due order, once it has."""
    verify_ownership: bool
    """Its endpoint must prove ownership of its URL before it is sent anything (see `status`)."""
    verified_at: str | None
    """When its endpoint proved ownership of its current URL; null: not (yet), or not asked."""
    health: DestinationHealth
    customer: str | None
    """Your own id for the customer this endpoint belongs to; a portal session for that customer manages it. null: none."""
    retry_schedule: list[int]
    """The schedule its deliveries follow (its own, or the default)."""
    auto_disable_after_hours: float
    """Hours of nothing but failures before Hookgate disables it; 0: never."""
    rate_limit_per_second: int | None
    """Deliveries per second at most; null: no limit."""
    max_in_flight: int
    """Tries in flight at once at most."""
    ordering: Literal['none', 'per_key']
    """`per_key`: each ordering key’s deliveries go one after the other; `none`: no order."""
    created_at: str
    updated_at: str


class DestinationAuth_1(TypedDict):
    type: Literal['bearer']
    token: str


class DestinationAuth_2(TypedDict):
    type: Literal['header']
    name: str
    value: str


class DestinationHealth(TypedDict):
    """How the destination’s endpoint has been answering, from its circuit breaker."""
    state: Literal['healthy', 'failing', 'open', 'disabled']
    """`failing`: its last tries failed; `open`: its circuit breaker holds its deliveries (no try spent) until `open_until`, then lets one probe through; `disabled`: `active` is false."""
    consecutive_failures: int
    last_success_at: str | None
    """Refreshed at most once a minute while deliveries succeed."""
    last_failure_at: str | None
    open_until: str | None
    """While `open`: when the next probe may go."""
    held: int
    """Deliveries it holds, parked until what holds them lets go (its open breaker closes, it is switched back on, its endpoint is verified, a place under its cap frees up), then released in due order. Retention never ends them (they wait as long as it takes); `POST /v1/destinations/{id}/end-held` does."""
    oldest_held_since: str | None
    """When the delivery it has held longest was due: how long its oldest has waited. null when it holds none."""


class DestinationWithSecret_Auth_1(TypedDict):
    type: Literal['bearer']


class DestinationWithSecret_Auth_2(TypedDict):
    type: Literal['header']
    header_name: str


class DestinationWithSecret(TypedDict):
    """A destination with its signing secret: the create answer and `GET /v1/destinations/{id}`."""
    id: str
    account_id: str
    name: str
    type: Literal['http', 'aws_sqs', 'aws_sns', 'aws_eventbridge', 'aws_kinesis', 'aws_lambda', 'aws_s3', 'cli']
    """`cli`: a `hookgate listen` session’s, delivering over its WebSocket connection."""
    config: SqsDestinationConfig | SnsDestinationConfig | EventBridgeDestinationConfig | KinesisDestinationConfig | LambdaDestinationConfig | S3DestinationConfig | CliDestinationConfig | None
    """An AWS destination’s target, defaults filled in; a cli destination’s session; null for http."""
    role_arn: str | None
    """The role Hookgate assumes to deliver to an AWS target in another account (its AWS connection’s, with `connection_id`); null: its own deliver role."""
    connection_id: str | None
    """The AWS connection it delivers through; null: none (a bare `role_arn`, or the deliver role)."""
    external_id: str | None
    """AWS types: the `sts:ExternalId` Hookgate sends when it assumes `role_arn`: its AWS connection’s, or else the account’s own (`hookgate-<account id>`, the same for every destination of the account); null for http."""
    url: str
    """Where it delivers: an http destination’s URL; an AWS one’s queue URL or ARN, or `s3://<bucket>/<key template>`; a cli one’s `listen:<session id>`."""
    active: bool
    auth: DestinationWithSecret_Auth_1 | DestinationWithSecret_Auth_2 | None
    """The kind of auth sent to the destination; tokens and header values are never returned."""
    timeout_ms: int
    signature_scheme: Literal['hookgate', 'standard_webhooks', 'ed25519']
    disabled_reason: str | None
    """Why Hookgate switched the destination off by itself (its endpoint answered 410 Gone); null otherwise. `PATCH active: true` clears it."""
    status: Literal['active', 'paused', 'pending_verification']
    """`paused`: `active` is false. `pending_verification`: its endpoint has not yet echoed the challenge Hookgate POSTed to it; its deliveries wait (`waiting.reason: unverified`) and go, in due order, once it has."""
    verify_ownership: bool
    """Its endpoint must prove ownership of its URL before it is sent anything (see `status`)."""
    verified_at: str | None
    """When its endpoint proved ownership of its current URL; null: not (yet), or not asked."""
    health: DestinationHealth
    customer: str | None
    """Your own id for the customer this endpoint belongs to; a portal session for that customer manages it. null: none."""
    retry_schedule: list[int]
    """The schedule its deliveries follow (its own, or the default)."""
    auto_disable_after_hours: float
    """Hours of nothing but failures before Hookgate disables it; 0: never."""
    rate_limit_per_second: int | None
    """Deliveries per second at most; null: no limit."""
    max_in_flight: int
    """Tries in flight at once at most."""
    ordering: Literal['none', 'per_key']
    """`per_key`: each ordering key’s deliveries go one after the other; `none`: no order."""
    created_at: str
    updated_at: str
    signing_secret: str
    """Signs every delivery (`Webhook-Signature`)."""


class DuplicateEvent(TypedDict):
    """A repeated external_event_id: nothing was stored or delivered again."""
    id: str
    """The first event with this external_event_id."""
    status: EventStatus
    duplicate: Literal[True]


class EndedHeld(TypedDict):
    """What ending a destination’s held deliveries did."""
    ended: int
    """Deliveries this call ended `dead_letter` (`end_reason: held_ended`), each announced as `hookgate.delivery.dead_lettered`."""
    held: int
    """What the destination still holds: more than one call ends (call again), or deliveries parked since."""


class Erasure(TypedDict):
    id: str
    status: Literal['running', 'done']
    """`running`, then `done`. A failure on the way pauses the erasure and it resumes by itself."""
    events: int
    """Events turned into tombstones (`payload_erased: true`) erased so far; final once the erasure is `done`."""
    payload_objects: int
    """Payload objects deleted from the payload bucket (bodies over 300 KB) erased so far; final once the erasure is `done`."""
    request_bodies: int
    """Stored event bodies (inline or pointing at an object), headers and payload hashes erased so far; final once the erasure is `done`."""
    response_bodies: int
    """Stored response bodies of delivery attempts erased so far; final once the erasure is `done`."""
    exports_before: list[str]
    """Exports written before the erasure started, still listed: their files may name the subject’s events (ids, types, external ids; never a payload). Filled in when `done`."""
    created_at: str
    finished_at: str | None


class Error(TypedDict):
    """Every error answer."""
    error: str
    """The exact message; validation messages name the field."""
    duration_ms: DurationMs


class EventBridgeDestinationConfig(TypedDict):
    event_bus_arn: str
    """arn:aws:events:<region>:<account id>:event-bus/<name>."""
    detail_type: NotRequired[str | None]
    """Default null: the event’s type (`webhook` when it has none)."""
    source: NotRequired[str]
    """Default `hookgate`; must not start with `aws.`."""


class EventDetail_Deliveries_Item_Waiting(TypedDict):
    reason: Literal['retry', 'breaker_open', 'concurrency', 'rate_limit', 'paused', 'ordering', 'unverified']
    until: str | None
    behind: NotRequired[str]
    """With `ordering`: the earlier event of its `ordering_key` it waits for."""


class EventDetail_Deliveries_Item(TypedDict):
    destination_id: str
    status: Literal['queued', 'delivering', 'retry_scheduled', 'delivered', 'dead_letter']
    attempts: int
    next_attempt_at: str | None
    end_reason: Literal['destination_deleted', 'endpoint_gone', 'customer_changed', 'payload_too_large', 'expired', 'held_ended', 'task_failed', 'payload_erased'] | None
    """Why a `dead_letter` delivery ended before its tries ran out: its destination was deleted, given to another customer, or answered 410 Gone; its body is over its AWS target’s limit; the account ended what its destination held (`held_ended`, `POST /v1/destinations/{id}/end-held`); versions before 0.5 only: it was still waiting when its event’s retention window ended (`expired`); its queue task kept failing, even sent once more (`task_failed`); or an erasure took its payload before it was sent (`payload_erased`). null otherwise."""
    waiting: EventDetail_Deliveries_Item_Waiting | None
    """While it waits without a try: `retry` (its next try is due at `until`), `breaker_open` (its destination’s circuit breaker holds it, parked without polling, until the breaker closes: `until` is the breaker’s next probe), `rate_limit` (its send slot), `ordering` (an earlier event of its `ordering_key`, `behind`, has not ended at this `per_key` destination: it goes as soon as that one ends). null while it is in flight, settled, or due now."""


class EventDetail(TypedDict):
    id: str
    account_id: str
    direction: Literal['inbound', 'outbound']
    source_id: str | None
    event_type: str | None
    external_event_id: str | None
    customer: str | None
    """The customer the event is addressed to: only that customer’s destinations receive it. null: none (inbound events, and outbound events for your own destinations)."""
    body: str | None
    """The payload: its text when valid UTF-8, else base64 (see `body_encoding`). null when the answer with the body inline would not fit in Lambda’s 6 MB response: read it from `body_url` instead."""
    body_encoding: Literal['utf8', 'base64'] | None
    """How `body` is written; null when `body` is."""
    body_size: int
    """The payload’s size in bytes, as received."""
    body_url: str | None
    """When `body` is null: a pre-signed URL of the exact payload bytes, valid 5 minutes, served as a download (`Content-Disposition: attachment`, `Content-Type: application/octet-stream`) whatever its `content_type`. null otherwise."""
    content_type: str | None
    headers: dict[str, str]
    """Stored request headers (lower-case), without credentials."""
    payload_hash: str | None
    """null once the payload is erased."""
    payload_erased: bool
    """An erasure (`POST /v1/erasures`) removed its payload, headers and attempts’ response bodies: `body` is null and `body_size` 0; it cannot be replayed or resent."""
    status: EventStatus
    attempts_count: int
    created_by: Literal['ingest', 'api', 'hookgate']
    """`hookgate`: an operational event Hookgate published about the account."""
    received_at: str
    created_at: str
    replay_of: str | None
    """The event this one is a replayed copy of (single, bulk or to one destination); null: not a copy."""
    webhook_id: str
    """What its deliveries carry as `X-Webhook-Id` (and `webhook-id`): the first event of its replay chain, so a replayed copy keeps its original’s; the event’s own `id` when it is no copy."""
    replayed_by: str | None
    ordering_key: str | None
    """Its ordering key (a published `ordering_key`, or read with its source’s `ordering_key_pointer`); null: none."""
    trace_id: str
    """The W3C trace id its deliveries carry in `traceparent` (each try a new span id): the `traceparent` it was ingested or published with, when valid; else one Hookgate started. A replayed copy keeps its original’s."""
    deliveries: list[EventDetail_Deliveries_Item]


class EventListItem(TypedDict):
    id: str
    account_id: str
    direction: Literal['inbound', 'outbound']
    source_id: str | None
    event_type: str | None
    external_event_id: str | None
    customer: str | None
    """The customer the event is addressed to: only that customer’s destinations receive it. null: none (inbound events, and outbound events for your own destinations)."""
    status: EventStatus
    attempts_count: int
    received_at: str
    created_at: str


class EventType(TypedDict):
    name: str
    description: str | None
    schema: dict[str, Any] | None
    created_at: str
    updated_at: str


class EventWithAttempts(TypedDict):
    event: EventDetail
    attempts: list[Attempt]
    """Oldest first."""


class ExportJob_Filters(TypedDict):
    direction: NotRequired[Literal['inbound', 'outbound']]
    status: NotRequired[EventStatus]
    date_from: NotRequired[str]
    date_to: NotRequired[str]


class ExportJob(TypedDict):
    id: str
    account_id: str
    status: Literal['queued', 'processing', 'ready', 'failed']
    format: Literal['json', 'csv']
    filters: ExportJob_Filters
    row_count: int | None
    created_at: str
    started_at: str | None
    completed_at: str | None
    error_message: str | None


class IngestAccepted(TypedDict):
    id: str
    status: EventStatus
    """`queued` when routes matched, `accepted` when none did."""


class Jwks_Keys_Item(TypedDict):
    kty: Literal['OKP']
    crv: Literal['Ed25519']
    x: str
    """base64url of the 32-byte public key."""
    kid: str
    use: Literal['sig']
    alg: Literal['EdDSA']


class Jwks(TypedDict):
    keys: list[Jwks_Keys_Item]


class KinesisDestinationConfig(TypedDict):
    stream_arn: str
    """arn:aws:kinesis:<region>:<account id>:stream/<name>."""
    partition_key: NotRequired[str]
    """`event_id` (default) or a JSON pointer into the body such as `/order/id`; the event id when the pointer finds no scalar."""


class LambdaDestinationConfig(TypedDict):
    function_arn: str
    """arn:aws:lambda:<region>:<account id>:function:<name>[:<alias or version>]; invoked asynchronously."""


class ListenSession(TypedDict):
    """A `hookgate listen` session: its destination and route."""
    session_id: str
    resumed: bool
    """true: the session existed (its destination and any deliveries waiting for it are kept)."""
    destination_id: str
    """The session’s destination, of type `cli`."""
    route_id: str
    event_type_pattern: str | None
    source_id: str | None
    customer: str | None
    timeout_ms: int
    signing_secret: str
    """Signs every delivery, as any destination’s does: a local handler can verify them."""
    websocket_url: str | None
    """Where the CLI connects (`?session=<session_id>`, the API key as `Authorization: Bearer`); null: this deployment has no listen endpoint."""


class NewApiKey(TypedDict):
    """A newly created API key, with the key itself (the only time it is shown)."""
    id: str
    name: str | None
    key: str
    """The key: shown once, only its SHA-256 is stored."""
    prefix: str
    created_at: str


class OpenListenSessionRequest(TypedDict):
    session_id: str
    """The CLI’s own id for the session, kept in its config directory: the same id resumes the same destination."""
    event_type_pattern: NotRequired[str | None]
    """The route’s: an exact type, or text ending in `*`; null or absent: every type."""
    source_id: NotRequired[str | None]
    """The route’s: only events of this source; null or absent: every source, and outbound events."""
    customer: NotRequired[str | None]
    """Receive what this customer’s endpoints receive: only outbound events addressed to it. The destination is never shown in that customer’s portal."""
    timeout_ms: NotRequired[int]
    """How long each try waits for the CLI’s answer. Default 15000."""


class PortalAwsConnection(TypedDict):
    """An AWS connection of the customer’s: a role in its AWS account that Hookgate assumes to deliver there."""
    id: str
    aws_account_id: str
    external_id: str
    """Generated for this connection, unguessable: the `sts:ExternalId` the role’s trust policy requires."""
    role_name: str
    """The name the template gives the role (`HookgateDelivery-…`)."""
    role_arn: str
    trust_policy: dict[str, Any]
    """The role’s trust policy: Hookgate’s principals, under the external id."""
    cloudformation_template_url: str
    """`GET` it with the portal link’s secret: the CloudFormation template that creates the role."""
    status: Literal['unverified', 'verified', 'failed']
    """`unverified` until `POST /v1/aws-connections/{id}/verify`; then whether Hookgate could assume the role at `checked_at`."""
    error: str | None
    """Why the last verify failed (STS’s answer); null otherwise."""
    checked_at: str | None
    created_at: str


class PortalEndpoint(TypedDict):
    """An endpoint as its customer sees it: no account, auth or customer fields, no secret."""
    id: str
    name: str
    type: Literal['http', 'aws_sqs', 'aws_sns', 'aws_eventbridge', 'aws_kinesis', 'aws_lambda', 'aws_s3', 'cli']
    """`cli`: a `hookgate listen` session’s, delivering over its WebSocket connection."""
    config: SqsDestinationConfig | SnsDestinationConfig | EventBridgeDestinationConfig | KinesisDestinationConfig | LambdaDestinationConfig | S3DestinationConfig | CliDestinationConfig | None
    """An AWS destination’s target, defaults filled in; a cli destination’s session; null for http."""
    connection_id: str | None
    """The AWS connection it delivers through; null: none (a bare `role_arn`, or the deliver role)."""
    url: str
    """Where it delivers: an http destination’s URL; an AWS one’s queue URL or ARN, or `s3://<bucket>/<key template>`; a cli one’s `listen:<session id>`."""
    active: bool
    disabled_reason: str | None
    """Why Hookgate switched the destination off by itself (its endpoint answered 410 Gone); null otherwise. `PATCH active: true` clears it."""
    status: Literal['active', 'paused', 'pending_verification']
    """`paused`: `active` is false. `pending_verification`: its endpoint has not yet echoed the challenge Hookgate POSTed to it; its deliveries wait (`waiting.reason: unverified`) and go, in due order, once it has."""
    verified_at: str | None
    """When its endpoint proved ownership of its current URL; null: not (yet), or not asked."""
    health: DestinationHealth
    signature_scheme: Literal['hookgate', 'standard_webhooks', 'ed25519']
    max_in_flight: int
    """Tries in flight at once at most."""
    created_at: str
    updated_at: str
    event_types: list[str]
    """The event types it receives (`*`: every type, set up by the account)."""


class PortalEndpointWithSecret(TypedDict):
    id: str
    name: str
    type: Literal['http', 'aws_sqs', 'aws_sns', 'aws_eventbridge', 'aws_kinesis', 'aws_lambda', 'aws_s3', 'cli']
    """`cli`: a `hookgate listen` session’s, delivering over its WebSocket connection."""
    config: SqsDestinationConfig | SnsDestinationConfig | EventBridgeDestinationConfig | KinesisDestinationConfig | LambdaDestinationConfig | S3DestinationConfig | CliDestinationConfig | None
    """An AWS destination’s target, defaults filled in; a cli destination’s session; null for http."""
    connection_id: str | None
    """The AWS connection it delivers through; null: none (a bare `role_arn`, or the deliver role)."""
    url: str
    """Where it delivers: an http destination’s URL; an AWS one’s queue URL or ARN, or `s3://<bucket>/<key template>`; a cli one’s `listen:<session id>`."""
    active: bool
    disabled_reason: str | None
    """Why Hookgate switched the destination off by itself (its endpoint answered 410 Gone); null otherwise. `PATCH active: true` clears it."""
    status: Literal['active', 'paused', 'pending_verification']
    """`paused`: `active` is false. `pending_verification`: its endpoint has not yet echoed the challenge Hookgate POSTed to it; its deliveries wait (`waiting.reason: unverified`) and go, in due order, once it has."""
    verified_at: str | None
    """When its endpoint proved ownership of its current URL; null: not (yet), or not asked."""
    health: DestinationHealth
    signature_scheme: Literal['hookgate', 'standard_webhooks', 'ed25519']
    max_in_flight: int
    """Tries in flight at once at most."""
    created_at: str
    updated_at: str
    event_types: list[str]
    """The event types it receives (`*`: every type, set up by the account)."""
    signing_secret: str
    previous_secret_expires_at: str | None
    """After a rotation: until when the previous secret still signs too."""


class PortalEvent_Deliveries_Item_Waiting(TypedDict):
    reason: Literal['retry', 'breaker_open', 'concurrency', 'rate_limit', 'paused', 'ordering', 'unverified']
    until: str | None
    behind: NotRequired[str]
    """With `ordering`: the earlier event of its `ordering_key` it waits for."""


class PortalEvent_Deliveries_Item(TypedDict):
    destination_id: str
    status: Literal['queued', 'delivering', 'retry_scheduled', 'delivered', 'dead_letter']
    attempts: int
    next_attempt_at: str | None
    end_reason: Literal['destination_deleted', 'endpoint_gone', 'customer_changed', 'payload_too_large', 'expired', 'held_ended', 'task_failed', 'payload_erased'] | None
    """Why a `dead_letter` delivery ended before its tries ran out: its destination was deleted, given to another customer, or answered 410 Gone; its body is over its AWS target’s limit; the account ended what its destination held (`held_ended`, `POST /v1/destinations/{id}/end-held`); versions before 0.5 only: it was still waiting when its event’s retention window ended (`expired`); its queue task kept failing, even sent once more (`task_failed`); or an erasure took its payload before it was sent (`payload_erased`). null otherwise."""
    waiting: PortalEvent_Deliveries_Item_Waiting | None
    """While it waits without a try: `retry` (its next try is due at `until`), `breaker_open` (its destination’s circuit breaker holds it, parked without polling, until the breaker closes: `until` is the breaker’s next probe), `rate_limit` (its send slot), `ordering` (an earlier event of its `ordering_key`, `behind`, has not ended at this `per_key` destination: it goes as soon as that one ends). null while it is in flight, settled, or due now."""
    request_headers: dict[str, str] | None
    """The headers each try to this endpoint carries; per-try values are described and credentials hidden. `null` once the endpoint is deleted."""


class PortalEvent(TypedDict):
    """An event with the customer’s own deliveries only."""
    id: str
    event_type: str | None
    body: str | None
    """The payload: its text when valid UTF-8, else base64 (see `body_encoding`). null when the answer with the body inline would not fit in Lambda’s 6 MB response: read it from `body_url` instead."""
    body_encoding: Literal['utf8', 'base64'] | None
    """How `body` is written; null when `body` is."""
    body_size: int
    """The payload’s size in bytes, as received."""
    body_url: str | None
    """When `body` is null: a pre-signed URL of the exact payload bytes, valid 5 minutes, served as a download (`Content-Disposition: attachment`, `Content-Type: application/octet-stream`) whatever its `content_type`. null otherwise."""
    content_type: str | None
    payload_erased: bool
    """An erasure (`POST /v1/erasures`) removed its payload, headers and attempts’ response bodies: `body` is null and `body_size` 0; it cannot be replayed or resent."""
    status: EventStatus
    attempts_count: int
    created_at: str
    replay_of: str | None
    """The event this one is a replayed copy of (single, bulk or to one destination); null: not a copy."""
    deliveries: list[PortalEvent_Deliveries_Item]


class PortalEventListItem(TypedDict):
    """`status` and `attempts_count` count the customer’s own deliveries only."""
    id: str
    event_type: str | None
    status: EventStatus
    attempts_count: int
    created_at: str
    endpoint_ids: list[str]
    """The customer’s endpoints it was sent to."""


class PortalEventWithAttempts(TypedDict):
    event: PortalEvent
    attempts: list[Attempt]
    """To the customer’s endpoints, oldest first."""


class PortalResendRequest(TypedDict):
    endpoint_id: str


class PortalSend(TypedDict):
    """A new event for this one endpoint; follow it in the event log."""
    event_id: str
    status: Literal['queued']


class PortalSession(TypedDict):
    """A link to the consumer portal for one customer, on your verified custom domain when you have one."""
    url: str
    """Opens the portal. The part after `#` is the session’s secret: shown once, stored as a SHA-256 hash, never sent to a server by the browser."""
    expires_at: str


class PortalSessionInfo_Brand(TypedDict):
    company_name: str | None
    logo_url: str | None
    primary_color: str | None
    accent_color: str | None
    docs_title: str | None


class PortalSessionInfo(TypedDict):
    customer: str
    expires_at: str
    brand: PortalSessionInfo_Brand
    jwks_url: str
    """This customer’s public JWKS: what it verifies its `ed25519` endpoints’ deliveries with. Its key pair signs only its own endpoints."""


class PublishedEvent(TypedDict):
    """A new event (it ends `accepted` at once if no route matches; its detail shows it)."""
    id: str
    status: Literal['queued']


class PublishOutboundEventBatchRequest(TypedDict):
    events: list[PublishOutboundEventRequest]


class PublishOutboundEventRequest(TypedDict):
    payload: str | float | bool | list[Any] | dict[str, Any]
    """The delivery body, sent with `Content-Type: application/json`: a string is sent as it is, any other JSON value (object, array, number, boolean) as its JSON text."""
    event_type: NotRequired[str]
    """Tag used for route matching; sent as `X-Event-Type`, so printable ASCII only."""
    external_event_id: NotRequired[str]
    """Idempotency key: a repeat within the account answers the first event (`duplicate: true`)."""
    customer: NotRequired[str]
    """The customer it is for (your own id, as on its destinations): only destinations with this `customer` receive it, and only its portal shows it. Absent: only destinations without a `customer`."""
    subject: NotRequired[str]
    """The data subject the payload is about (your own id for the person): `POST /v1/erasures` with it erases this event’s payload. Stored only as an HMAC; never delivered."""
    ordering_key: NotRequired[str]
    """1-128 visible characters (no spaces). At a destination with `ordering: "per_key"`, events with the same key are delivered one after the other, in the order they were accepted (a batch's in its order); an AWS FIFO queue or topic gets it as `MessageGroupId`."""


class ReplayDryRun(TypedDict):
    matched: int
    """Events a replay with these filters would send now, counted up to 100,000."""
    truncated: bool
    """More events match than one job replays, or counting them all would have outlasted the call (narrow the dates)."""


class ReplayJob_Filters(TypedDict):
    direction: Literal['inbound', 'outbound']
    status: list[Literal['delivered', 'dead_letter', 'replayed', 'accepted']]
    """Event statuses to replay. Default `["dead_letter"]`."""
    destination_id: NotRequired[str]
    source_id: NotRequired[str]
    event_type: NotRequired[str]
    date_from: NotRequired[str]
    date_to: NotRequired[str]


class ReplayJob(TypedDict):
    """A bulk replay."""
    id: str
    status: Literal['queued', 'running', 'done', 'failed']
    """`queued`, `running`, then `done` or `failed` (`error_message`)."""
    filters: ReplayJob_Filters
    matched: int
    """Events found to match so far; final once the job is `done`."""
    replayed: int
    """Events replayed so far (each once, whatever crash happened in between)."""
    truncated: bool
    """More than 100,000 events matched and the job stopped there: the same request again replays the rest (replayed events no longer match)."""
    created_at: str
    completed_at: str | None
    error_message: str | None


class ReplayRequest(TypedDict):
    destination_id: NotRequired[str]
    """Deliver the replay to this destination only, whatever the routes say (after one endpoint’s outage). Absent: today’s routes."""


class ReplayResult(TypedDict):
    original_event_id: str
    replay_event_id: str
    status: Literal['queued']
    """Always `queued`; a replay no route matches then ends `accepted` (its detail shows it)."""


class RevokePortalSessionsRequest(TypedDict):
    customer: str
    """The customer whose links end: every link made for it so far."""


class RotateSigningKeysRequest(TypedDict):
    customer: NotRequired[str | None]
    """The customer whose endpoints’ keys rotate (each customer has its own key pair). Omitted or null: the keys of the account’s own destinations (those of no customer)."""


class Route(TypedDict):
    id: str
    account_id: str
    source_id: str | None
    """null: every source (and outbound events)."""
    destination_id: str
    event_type_pattern: str | None
    """null: every type; a trailing `*` matches any type starting with the text before it."""
    active: bool
    filter: dict[str, Any] | None
    """The payload filter; null: none."""
    created_at: str


class S3DestinationConfig(TypedDict):
    bucket: str
    key_template: NotRequired[str]
    """Must contain `{event_id}`; may use `{event_type}` and `{date}` (YYYY-MM-DD of receipt). Default `hookgate/{date}/{event_id}`."""
    region: NotRequired[str | None]
    """The bucket’s region. Default null: the deployment’s region (S3 redirects to the right one)."""


class SigningKey(TypedDict):
    kid: str
    """Sent as `webhook-key-id`; the JWK’s `kid`."""
    x: str
    """The public key: base64url of 32 bytes (the JWK’s `x`)."""
    created_at: str
    retires_at: str | None
    """Null for the current key; when a rotated-out key stops signing and leaves the JWKS."""


class SigningKeys(TypedDict):
    customer: str | None
    """Whose keys: the customer whose endpoints they sign, or null for the account’s own destinations."""
    jwks_url: str
    """The public JWKS these keys are served in: what that customer’s (or the account’s own) receivers verify with."""
    keys: list[SigningKey]
    """Current key first."""


class SnsDestinationConfig(TypedDict):
    topic_arn: str
    """arn:aws:sns:<region>:<account id>:<topic name>."""


class Source_Verification(TypedDict):
    provider: Literal['stripe', 'github', 'shopify', 'slack', 'standard_webhooks', 'hmac_sha256']
    configured: Literal[True]


class Source(TypedDict):
    id: str
    account_id: str
    name: str
    path_token: str
    ingest_url: str
    """Absolute: the verified custom domain, or the public URL, plus `/ingest/<path_token>`."""
    verification: Source_Verification | None
    """The provider check, if any; the secret is write-only."""
    custom_domain_id: str | None
    subject_pointer: str | None
    ordering_key_pointer: str | None
    """Where its events’ ordering key is read from their JSON payload; null: they are unordered."""
    created_at: str


class SourceVerification_1(TypedDict):
    provider: Literal['stripe']
    secret: str


class SourceVerification_2(TypedDict):
    provider: Literal['github']
    secret: str


class SourceVerification_3(TypedDict):
    provider: Literal['shopify']
    secret: str


class SourceVerification_4(TypedDict):
    provider: Literal['slack']
    secret: str


class SourceVerification_5(TypedDict):
    provider: Literal['standard_webhooks']
    secret: str


class SourceVerification_6(TypedDict):
    provider: Literal['hmac_sha256']
    secret: str
    header: str
    encoding: NotRequired[Literal['hex', 'base64']]
    prefix: NotRequired[str]


class SqsDestinationConfig(TypedDict):
    queue_url: str
    """https://sqs.<region>.amazonaws.com/<account id>/<queue name>; a `.fifo` queue gets the destination id as its message group and the event id as its de-duplication id."""


class UpdateAccountRequest(TypedDict):
    name: NotRequired[str]
    plan: NotRequired[Literal['free', 'pro', 'enterprise']]
    retention_days: NotRequired[int]
    """Enterprise only; a plan change without it resets the window to the new plan’s default."""


class UpdateBrandSettingsRequest(TypedDict):
    """A merge: a field left out keeps its value, a string sets it, null clears it back to its default."""
    company_name: NotRequired[str | None]
    """Default null."""
    logo_url: NotRequired[str | None]
    """An absolute https URL without credentials. Default null."""
    primary_color: NotRequired[str | None]
    """`#rrggbb`, answered lower-case. Default `#4f46e5`."""
    accent_color: NotRequired[str | None]
    """`#rrggbb`, answered lower-case. Default null: derived from `primary_color`."""
    docs_title: NotRequired[str | None]
    """Default `Webhooks`."""


class UpdateDestinationRequest(TypedDict):
    name: NotRequired[str]
    config: NotRequired[SqsDestinationConfig | SnsDestinationConfig | EventBridgeDestinationConfig | KinesisDestinationConfig | LambdaDestinationConfig | S3DestinationConfig]
    """A new target of the same type (an AWS destination only; its type never changes)."""
    role_arn: NotRequired[str | None]
    """AWS types only: a role in the target’s account that Hookgate assumes to deliver, whose trust policy allows Hookgate’s deliver role with `sts:ExternalId` = the destination’s `external_id`. null or absent: the deliver role itself (a same-account target listed in `awsDestinationTargets`, for an account listed in `awsOwnRoleAccounts`)."""
    connection_id: NotRequired[str | None]
    """AWS types only: the AWS connection (`POST /v1/aws-connections`) Hookgate delivers through: it assumes the connection’s role with the connection’s external id. The preferred form of `role_arn`; the connection must be in the target’s AWS account, and a customer’s connection serves only that customer’s destinations. null removes it."""
    url: NotRequired[str]
    """An http destination’s http(s) URL without credentials; private, loopback and reserved addresses are refused. Not for AWS types."""
    signing_secret: NotRequired[str]
    """Default: generated `whsec_` + base64 of 32 random bytes. Rotating it keeps the previous one valid for 24 hours."""
    auth: NotRequired[DestinationAuth | None]
    timeout_ms: NotRequired[int]
    """Default 15000."""
    active: NotRequired[bool]
    """Default true."""
    signature_scheme: NotRequired[Literal['hookgate', 'standard_webhooks', 'ed25519']]
    """Default `hookgate`; `standard_webhooks` needs a `whsec_` secret of 24..64 bytes; `ed25519` signs with the account’s Ed25519 key (`v1a`, public keys at the account’s `jwks_url`)."""
    customer: NotRequired[str | None]
    """Your own id for the customer it belongs to (the consumer portal’s scope). Default null."""
    retry_schedule: NotRequired[list[int] | None]
    """Seconds to wait before each try: step 0 before the first, step i after failed try i, so the number of steps is the number of tries. 1 to 20 steps of 0 to 86400. null or absent: the default `[0, 30, 120, 600, 3600]`."""
    auto_disable_after_hours: NotRequired[float]
    """Hours during which every try failed after which Hookgate disables the destination (`active: false`, `health.state: disabled`, `disabled_reason`) and publishes `hookgate.destination.disabled`. Decimals allowed; 0: never. Default 120 (five days)."""
    rate_limit_per_second: NotRequired[int | None]
    """Deliveries per second to this destination, across every deliver function: deliveries over the rate wait for their turn (never dropped, no try spent). null or absent: no limit."""
    max_in_flight: NotRequired[int]
    """Tries in flight at once to this destination, across every deliver function: a delivery over the cap waits for a place (never dropped, no try spent), so a hanging endpoint holds at most this many. Default 10."""
    ordering: NotRequired[Literal['none', 'per_key']]
    """`per_key`: the deliveries of each `ordering_key` are tried one after the other, in the order their events were accepted: one is not tried before every earlier one of its key has ended (delivered, dead-lettered or ended), and the next goes as soon as it has. Other keys and unkeyed events never wait for them. Default `none`."""
    verify_ownership: NotRequired[bool]
    """http only. true: the destination starts `pending_verification`; Hookgate POSTs one signed `hookgate.endpoint.verification` event with a random `challenge`, and sends nothing else until the endpoint answers 2xx echoing it (or you post it to `POST /v1/destinations/{id}/verify`). A new `url` starts over. Default false; always true where the deployment requires it (`requireEndpointVerification`) and for endpoints customers make in the portal."""


class UpdatePortalEndpointRequest(TypedDict):
    url: NotRequired[str]
    """An http(s) URL; private, loopback and reserved addresses are refused."""
    config: NotRequired[SqsDestinationConfig | SnsDestinationConfig | EventBridgeDestinationConfig | KinesisDestinationConfig | LambdaDestinationConfig | S3DestinationConfig]
    """A new target of the same type (an AWS endpoint only)."""
    connection_id: NotRequired[str | None]
    """AWS types: one of the customer’s AWS connections (`POST /v1/portal/aws-connections`), in the target’s AWS account. Required for an AWS endpoint."""
    name: NotRequired[str]
    active: NotRequired[bool]
    """false pauses deliveries to it; true resumes them."""
    event_types: NotRequired[list[str]]
    """Event types of the catalog it receives; replaces the current choice."""


class UpdateRouteRequest(TypedDict):
    active: NotRequired[bool]
    event_type_pattern: NotRequired[str | None]
    """An exact type, or text ending in `*` (`payment.*`); null or absent: every type."""
    filter: NotRequired[dict[str, Any] | None]
    """Matched against the event’s JSON body: `{"field": value}` (equal), `{"field": {"$gt": 100}}` (operators `$eq $neq $in $nin $gt $gte $lt $lte $exists $startsWith`), nested objects for nested fields, and `$and`/`$or` (arrays of filters) and `$not` (a filter) at any level. A body that is not JSON never matches a route with a filter. At most 4096 bytes. null or absent: no filter."""


class UpdateSourceRequest(TypedDict):
    name: NotRequired[str]
    verification: NotRequired[SourceVerification]
    custom_domain_id: NotRequired[str | None]
    """One of the account’s custom domains that has not failed; the ingest URL uses it once verified. null unties it."""
    subject_pointer: NotRequired[str | None]
    """Where an inbound event’s data subject is in its JSON payload (RFC 6901), e.g. `/data/object/customer`: a string or number found there is the event’s `subject`, which `POST /v1/erasures` erases by. null: none."""
    ordering_key_pointer: NotRequired[str | None]
    """An RFC 6901 JSON pointer (e.g. `/customer/id`) to its events’ `ordering_key` in their JSON payload: a string or number there that is a valid key (1-128 visible characters) is the event’s key; anything else (no JSON, nothing there, an object) leaves it unordered rather than refused. null unsets it."""


class VerifyDestinationRequest(TypedDict):
    challenge: str
    """The `challenge` of the `hookgate.endpoint.verification` event your endpoint received (from its logs)."""


AwsConnectionTemplate: TypeAlias = "dict[str, Any]"
"""A CloudFormation template (JSON): the role, its trust policy, and the least privilege its destinations need."""


BatchItemResult: TypeAlias = "BatchItemResult_1 | BatchItemResult_2 | BatchItemResult_3"
"""What the single publish would have answered for this event."""


DestinationAuth: TypeAlias = "DestinationAuth_1 | DestinationAuth_2"
"""Sent with every delivery: `Authorization: Bearer <token>`, or a custom header. Write-only."""


DurationMs: TypeAlias = "int"
"""The server’s processing time in milliseconds."""


EventStatus: TypeAlias = "Literal['received', 'accepted', 'queued', 'delivering', 'delivered', 'retry_scheduled', 'dead_letter', 'replayed']"
"""Event status; terminal: delivered, dead_letter, replayed."""


SourceVerification: TypeAlias = "SourceVerification_1 | SourceVerification_2 | SourceVerification_3 | SourceVerification_4 | SourceVerification_5 | SourceVerification_6 | None"
"""The provider whose signatures ingest checks, and the shared secret (write-only); null turns the check off."""


# operationId: (method, path)
OPERATIONS: dict[str, tuple[str, str]] = {
    "healthz": ("GET", "/healthz"),
    "readyz": ("GET", "/readyz"),
    "createAccount": ("POST", "/v1/accounts"),
    "getAccount": ("GET", "/v1/account"),
    "updateAccount": ("PATCH", "/v1/account"),
    "rotateSigningKeys": ("POST", "/v1/signing-keys/rotate"),
    "getJwks": ("GET", "/.well-known/jwks/{account_id}.json"),
    "getCustomerJwks": ("GET", "/.well-known/jwks/{account_id}/customers/{customer}.json"),
    "createApiKey": ("POST", "/v1/api-keys"),
    "listApiKeys": ("GET", "/v1/api-keys"),
    "revokeApiKey": ("DELETE", "/v1/api-keys/{id}"),
    "createSource": ("POST", "/v1/sources"),
    "listSources": ("GET", "/v1/sources"),
    "updateSource": ("PATCH", "/v1/sources/{id}"),
    "getSource": ("GET", "/v1/sources/{id}"),
    "deleteSource": ("DELETE", "/v1/sources/{id}"),
    "createDestination": ("POST", "/v1/destinations"),
    "listDestinations": ("GET", "/v1/destinations"),
    "getDestination": ("GET", "/v1/destinations/{id}"),
    "updateDestination": ("PATCH", "/v1/destinations/{id}"),
    "deleteDestination": ("DELETE", "/v1/destinations/{id}"),
    "verifyDestination": ("POST", "/v1/destinations/{id}/verify"),
    "resendDestinationVerification": ("POST", "/v1/destinations/{id}/verification/resend"),
    "endHeldDeliveries": ("POST", "/v1/destinations/{id}/end-held"),
    "createAwsConnection": ("POST", "/v1/aws-connections"),
    "listAwsConnections": ("GET", "/v1/aws-connections"),
    "getAwsConnection": ("GET", "/v1/aws-connections/{id}"),
    "deleteAwsConnection": ("DELETE", "/v1/aws-connections/{id}"),
    "getAwsConnectionTemplate": ("GET", "/v1/aws-connections/{id}/template"),
    "verifyAwsConnection": ("POST", "/v1/aws-connections/{id}/verify"),
    "createRoute": ("POST", "/v1/routes"),
    "listRoutes": ("GET", "/v1/routes"),
    "getRoute": ("GET", "/v1/routes/{id}"),
    "updateRoute": ("PATCH", "/v1/routes/{id}"),
    "deleteRoute": ("DELETE", "/v1/routes/{id}"),
    "openListenSession": ("POST", "/v1/listen-sessions"),
    "closeListenSession": ("DELETE", "/v1/listen-sessions/{session_id}"),
    "listEvents": ("GET", "/v1/events"),
    "getEvent": ("GET", "/v1/events/{id}"),
    "replayEvent": ("POST", "/v1/events/{id}/replay"),
    "publishOutboundEvent": ("POST", "/v1/outbound-events"),
    "listOutboundEvents": ("GET", "/v1/outbound-events"),
    "publishOutboundEventBatch": ("POST", "/v1/outbound-events/batch"),
    "getOutboundEvent": ("GET", "/v1/outbound-events/{id}"),
    "replayOutboundEvent": ("POST", "/v1/outbound-events/{id}/replay"),
    "createExport": ("POST", "/v1/exports"),
    "listExports": ("GET", "/v1/exports"),
    "getExport": ("GET", "/v1/exports/{id}"),
    "downloadExport": ("GET", "/v1/exports/{id}/download"),
    "createReplay": ("POST", "/v1/replays"),
    "listReplays": ("GET", "/v1/replays"),
    "getReplay": ("GET", "/v1/replays/{id}"),
    "createErasure": ("POST", "/v1/erasures"),
    "getErasure": ("GET", "/v1/erasures/{id}"),
    "getBrandSettings": ("GET", "/v1/brand-settings"),
    "updateBrandSettings": ("POST", "/v1/brand-settings"),
    "createCustomDomain": ("POST", "/v1/custom-domains"),
    "listCustomDomains": ("GET", "/v1/custom-domains"),
    "getCustomDomain": ("GET", "/v1/custom-domains/{id}"),
    "deleteCustomDomain": ("DELETE", "/v1/custom-domains/{id}"),
    "verifyCustomDomain": ("POST", "/v1/custom-domains/{id}/verify"),
    "createEventType": ("POST", "/v1/event-types"),
    "listEventTypes": ("GET", "/v1/event-types"),
    "deleteEventType": ("DELETE", "/v1/event-types/{name}"),
    "createPortalSession": ("POST", "/v1/portal-sessions"),
    "revokePortalSessions": ("POST", "/v1/portal-sessions/revoke"),
    "getPortalSession": ("GET", "/v1/portal/session"),
    "listPortalEventTypes": ("GET", "/v1/portal/event-types"),
    "listPortalEndpoints": ("GET", "/v1/portal/endpoints"),
    "createPortalEndpoint": ("POST", "/v1/portal/endpoints"),
    "getPortalEndpoint": ("GET", "/v1/portal/endpoints/{id}"),
    "updatePortalEndpoint": ("PATCH", "/v1/portal/endpoints/{id}"),
    "deletePortalEndpoint": ("DELETE", "/v1/portal/endpoints/{id}"),
    "rotatePortalEndpointSecret": ("POST", "/v1/portal/endpoints/{id}/rotate-secret"),
    "verifyPortalEndpoint": ("POST", "/v1/portal/endpoints/{id}/verify"),
    "resendPortalEndpointVerification": ("POST", "/v1/portal/endpoints/{id}/verification/resend"),
    "sendPortalTestEvent": ("POST", "/v1/portal/endpoints/{id}/test"),
    "listPortalEvents": ("GET", "/v1/portal/events"),
    "getPortalEvent": ("GET", "/v1/portal/events/{id}"),
    "resendPortalEvent": ("POST", "/v1/portal/events/{id}/resend"),
    "listPortalAwsConnections": ("GET", "/v1/portal/aws-connections"),
    "createPortalAwsConnection": ("POST", "/v1/portal/aws-connections"),
    "getPortalAwsConnection": ("GET", "/v1/portal/aws-connections/{id}"),
    "deletePortalAwsConnection": ("DELETE", "/v1/portal/aws-connections/{id}"),
    "getPortalAwsConnectionTemplate": ("GET", "/v1/portal/aws-connections/{id}/template"),
    "verifyPortalAwsConnection": ("POST", "/v1/portal/aws-connections/{id}/verify"),
    "getPortalPage": ("GET", "/portal"),
    "getPortalScript": ("GET", "/portal/app.js"),
    "getPortalStyle": ("GET", "/portal/app.css"),
    "getOpenApiDocument": ("GET", "/openapi.json"),
    "ingestWebhook": ("POST", "/ingest/{token}"),
}
