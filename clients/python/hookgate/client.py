"""A small client of the Hookgate API on the standard library (urllib)."""

from __future__ import annotations

import http.client
import json
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, cast

from . import generated as api


class HookgateError(Exception):
    """A request that failed.

    An error answer of the API: `status` is its HTTP status and `message` its exact ``error``
    (``{"error": "…"}``). No HTTP answer at all (connection refused, DNS failure, timeout, a
    connection cut before the answer ended): `status` is 0, `message` is ``cannot reach <url>:
    <cause>``, `body` is None, and the underlying exception is ``__cause__``.
    """

    def __init__(self, status: int, message: str, body: Any = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.body = body
        """The parsed answer, when there was one."""

    def __repr__(self) -> str:
        return f"HookgateError({self.status!r}, {self.message!r})"


@dataclass(frozen=True)
class RawAnswer:
    status: int
    headers: Mapping[str, str]
    body: Any


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    # An export download answers 302 with a pre-signed URL: the caller wants the URL, not the file.
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


Query = Mapping[str, "str | int | None"]


class Hookgate:
    """A typed client of the Hookgate API; every error answer raises `HookgateError`.

    `base_url` is the gateway's: ``http://127.0.0.1:3000`` under ``npm start``, the stack's
    ``ApiUrl`` in AWS. `api_key` (``hk_…``) is not needed to create an account.
    """

    def __init__(self, base_url: str, api_key: str | None = None, *, timeout: float = 30.0) -> None:
        self.base_url = base_url.rstrip("/")
        self._api_key = api_key
        self._timeout = timeout
        self._opener = urllib.request.build_opener(_NoRedirect)
        self.accounts = _Accounts(self)
        self.account = _Account(self)
        self.api_keys = _ApiKeys(self)
        self.signing_keys = _SigningKeys(self)
        self.sources = _Sources(self)
        self.destinations = _Destinations(self)
        self.routes = _Routes(self)
        self.aws_connections = _AwsConnections(self)
        self.listen_sessions = _ListenSessions(self)
        self.events = _Events(self, "listEvents", "getEvent", "replayEvent")
        self.outbound_events = _OutboundEvents(self, "listOutboundEvents", "getOutboundEvent", "replayOutboundEvent")
        self.replays = _Replays(self)
        self.exports = _Exports(self)
        self.erasures = _Erasures(self)
        self.brand_settings = _BrandSettings(self)
        self.custom_domains = _CustomDomains(self)

    def with_api_key(self, api_key: str) -> Hookgate:
        """The same client, authenticated with `api_key`."""
        return Hookgate(self.base_url, api_key, timeout=self._timeout)

    def request(
        self,
        operation_id: str,
        *,
        params: Mapping[str, str] | None = None,
        query: Query | None = None,
        body: Any = None,
    ) -> RawAnswer:
        """Calls one operation by its ``operationId``; raises `HookgateError` on a 4xx or 5xx answer."""
        method, template = api.OPERATIONS[operation_id]
        path = template
        for name in _placeholders(template):
            value = (params or {}).get(name)
            if value is None:
                raise TypeError(f"{operation_id}: missing path parameter {name}")
            path = path.replace("{" + name + "}", urllib.parse.quote(value, safe=""))
        pairs = [(name, str(value)) for name, value in (query or {}).items() if value is not None]
        url = self.base_url + path + ("?" + urllib.parse.urlencode(pairs) if pairs else "")
        headers = {"accept": "application/json"}
        if self._api_key:
            headers["authorization"] = f"Bearer {self._api_key}"
        data = None
        if body is not None:
            data = json.dumps(body).encode("utf-8")
            headers["content-type"] = "application/json"
        request = urllib.request.Request(url, data=data, headers=headers, method=method)
        try:
            try:
                with self._opener.open(request, timeout=self._timeout) as response:
                    status, answer_headers, text = response.status, dict(response.headers.items()), response.read()
            except urllib.error.HTTPError as error:
                status, answer_headers, text = error.code, dict(error.headers.items()), error.read()
        # URLError, timeouts and refused or reset connections are all OSErrors; a cut answer is an HTTPException.
        except (OSError, http.client.HTTPException) as error:
            raise HookgateError(0, f"cannot reach {url}: {self._network_failure(error)}") from error
        parsed = _parse(text)
        if status >= 400:
            message = parsed.get("error") if isinstance(parsed, dict) else None
            raise HookgateError(status, message if isinstance(message, str) else f"HTTP {status}", parsed)
        return RawAnswer(status, {k.lower(): v for k, v in answer_headers.items()}, parsed)

    def _network_failure(self, error: BaseException) -> str:
        # urllib wraps what failed while connecting in a URLError; what fails later comes as it is.
        reason = error.reason if isinstance(error, urllib.error.URLError) else error
        if isinstance(reason, TimeoutError):
            return f"no answer within {self._timeout:g} s"
        if isinstance(reason, OSError) and reason.strerror:
            return reason.strerror
        return str(reason) or type(reason).__name__

    def _data(self, operation_id: str, **kwargs: Any) -> Any:
        return self.request(operation_id, **kwargs).body["data"]


def _placeholders(template: str) -> list[str]:
    return [part.split("}", 1)[0] for part in template.split("{")[1:]]


def _parse(text: bytes) -> Any:
    if not text:
        return None
    try:
        return json.loads(text)
    except ValueError:
        return text.decode("utf-8", "replace")


class _Resource:
    def __init__(self, client: Hookgate) -> None:
        self._client = client


class _Accounts(_Resource):
    def create(self, body: api.CreateAccountRequest | None = None) -> api.AccountCreated:
        """Open: creates an account and answers its bootstrap API key (shown once)."""
        return cast(api.AccountCreated, self._client._data("createAccount", body=body or {}))


class _Account(_Resource):
    def get(self) -> api.AccountDetail:
        return cast(api.AccountDetail, self._client._data("getAccount"))

    def update(self, body: api.UpdateAccountRequest) -> api.Account:
        return cast(api.Account, self._client._data("updateAccount", body=body))


class _SigningKeys(_Resource):
    def rotate(self, body: api.RotateSigningKeysRequest | None = None) -> api.SigningKeys:
        """A new current Ed25519 key for ``{"customer": …}``'s endpoints (each customer has its own key
        pair), or with no argument for the account's own destinations; the old one signs alongside it
        for 24 hours. Answers the public halves only, and the JWKS URL they are served at."""
        return cast(api.SigningKeys, self._client._data("rotateSigningKeys", body=body or {}))


class _ApiKeys(_Resource):
    def create(self, body: api.CreateApiKeyRequest | None = None) -> api.NewApiKey:
        return cast(api.NewApiKey, self._client._data("createApiKey", body=body or {}))

    def list(self) -> list[api.ApiKey]:
        return cast("list[api.ApiKey]", self._client._data("listApiKeys"))

    def revoke(self, id: str) -> None:
        self._client.request("revokeApiKey", params={"id": id})


class _Sources(_Resource):
    def create(self, body: api.CreateSourceRequest) -> api.Source:
        return cast(api.Source, self._client._data("createSource", body=body))

    def list(self) -> list[api.Source]:
        return cast("list[api.Source]", self._client._data("listSources"))

    def get(self, id: str) -> api.Source:
        return cast(api.Source, self._client._data("getSource", params={"id": id}))

    def update(self, id: str, body: api.UpdateSourceRequest) -> api.Source:
        return cast(api.Source, self._client._data("updateSource", params={"id": id}, body=body))

    def delete(self, id: str) -> None:
        self._client.request("deleteSource", params={"id": id})


class _Destinations(_Resource):
    def create(self, body: api.CreateDestinationRequest) -> api.DestinationWithSecret:
        return cast(api.DestinationWithSecret, self._client._data("createDestination", body=body))

    def list(self) -> list[api.Destination]:
        return cast("list[api.Destination]", self._client._data("listDestinations"))

    def get(self, id: str) -> api.DestinationWithSecret:
        """With its signing secret."""
        return cast(api.DestinationWithSecret, self._client._data("getDestination", params={"id": id}))

    def update(self, id: str, body: api.UpdateDestinationRequest) -> api.Destination:
        return cast(api.Destination, self._client._data("updateDestination", params={"id": id}, body=body))

    def verify(self, id: str, challenge: str) -> api.Destination:
        """Verifies its endpoint with the challenge the endpoint received (a receiver that cannot echo it)."""
        return cast(api.Destination, self._client._data("verifyDestination", params={"id": id}, body={"challenge": challenge}))

    def resend_verification(self, id: str) -> api.Destination:
        """Sends its endpoint a new ownership challenge, while it is ``pending_verification``."""
        return cast(api.Destination, self._client._data("resendDestinationVerification", params={"id": id}))

    def end_held(self, id: str) -> api.EndedHeld:
        """Ends what it holds (``held_ended`` dead letters), at most a page a call: call again while ``held`` > 0."""
        return cast(api.EndedHeld, self._client._data("endHeldDeliveries", params={"id": id}))

    def delete(self, id: str) -> None:
        self._client.request("deleteDestination", params={"id": id})


class _AwsConnections(_Resource):
    """A role in a customer's AWS account that AWS destinations deliver through (docs/aws-destinations.md)."""

    def create(self, body: api.CreateAwsConnectionRequest) -> api.AwsConnection:
        return cast(api.AwsConnection, self._client._data("createAwsConnection", body=body))

    def list(self, **query: str | int | None) -> list[api.AwsConnection]:
        return cast("list[api.AwsConnection]", self._client._data("listAwsConnections", query=query))

    def get(self, id: str) -> api.AwsConnection:
        return cast(api.AwsConnection, self._client._data("getAwsConnection", params={"id": id}))

    def template(self, id: str) -> api.AwsConnectionTemplate:
        """The CloudFormation template that creates the role."""
        return cast(api.AwsConnectionTemplate, self._client._data("getAwsConnectionTemplate", params={"id": id}))

    def verify(self, id: str) -> api.AwsConnectionCheck:
        """Assumes the role now and says whether it worked."""
        return cast(api.AwsConnectionCheck, self._client._data("verifyAwsConnection", params={"id": id}))

    def delete(self, id: str) -> None:
        self._client.request("deleteAwsConnection", params={"id": id})


class _ListenSessions(_Resource):
    """``hookgate listen``'s sessions: a ``cli`` destination and its route."""

    def open(self, body: api.OpenListenSessionRequest) -> api.ListenSession:
        """Creates the session, or resumes the one with this ``session_id``."""
        return cast(api.ListenSession, self._client._data("openListenSession", body=body))

    def close(self, session_id: str) -> None:
        self._client.request("closeListenSession", params={"session_id": session_id})


class _Routes(_Resource):
    def create(self, body: api.CreateRouteRequest) -> api.Route:
        return cast(api.Route, self._client._data("createRoute", body=body))

    def list(self) -> list[api.Route]:
        return cast("list[api.Route]", self._client._data("listRoutes"))

    def get(self, id: str) -> api.Route:
        return cast(api.Route, self._client._data("getRoute", params={"id": id}))

    def update(self, id: str, body: api.UpdateRouteRequest) -> api.Route:
        return cast(api.Route, self._client._data("updateRoute", params={"id": id}, body=body))

    def delete(self, id: str) -> None:
        self._client.request("deleteRoute", params={"id": id})


@dataclass(frozen=True)
class EventPage:
    """A page of events, newest first: pass `next_cursor` as ``cursor`` for the next; None on the last page."""

    data: list[api.EventListItem]
    next_cursor: str | None


class _Events(_Resource):
    """Inbound events (received on sources' ingest URLs)."""

    def __init__(self, client: Hookgate, list_id: str, get_id: str, replay_id: str) -> None:
        super().__init__(client)
        self._list_id, self._get_id, self._replay_id = list_id, get_id, replay_id

    def list(self, **query: str | int | None) -> EventPage:
        """Filters and paging as the API's query parameters: ``limit``, ``cursor``, ``status``, ``event_type``…"""
        body = self._client.request(self._list_id, query=query).body
        return EventPage(body["data"], body["next_cursor"])

    def all(self, **query: str | int | None) -> Iterator[api.EventListItem]:
        """Every event matching the filters, page after page."""
        cursor: str | None = None
        while True:
            page = self.list(**{**query, "cursor": cursor})
            yield from page.data
            cursor = page.next_cursor
            if not cursor:
                return

    def get(self, id: str) -> api.EventWithAttempts:
        return cast(api.EventWithAttempts, self._client._data(self._get_id, params={"id": id}))

    def replay(self, id: str) -> api.ReplayResult:
        return cast(api.ReplayResult, self._client._data(self._replay_id, params={"id": id}))


class _OutboundEvents(_Events):
    """Events you publish for your own customers."""

    def publish(self, body: api.PublishOutboundEventRequest) -> api.PublishedEvent | api.DuplicateEvent:
        """``{id, status: "queued"}``, or for a repeated ``external_event_id`` the first event with ``duplicate: True``."""
        return cast("api.PublishedEvent | api.DuplicateEvent", self._client._data("publishOutboundEvent", body=body))

    def batch(self, events: list[api.PublishOutboundEventRequest]) -> list[api.BatchItemResult]:
        """Up to 100 events; one result per event, in order."""
        return cast("list[api.BatchItemResult]", self._client._data("publishOutboundEventBatch", body={"events": events}))


class _Replays(_Resource):
    """Bulk replays of the events matching filters."""

    def create(self, body: api.CreateReplayRequest) -> api.ReplayJob | api.ReplayDryRun:
        return cast("api.ReplayJob | api.ReplayDryRun", self._client._data("createReplay", body=body))

    def list(self, **query: str | int | None) -> list[api.ReplayJob]:
        return cast("list[api.ReplayJob]", self._client._data("listReplays", query=query))

    def get(self, id: str) -> api.ReplayJob:
        return cast(api.ReplayJob, self._client._data("getReplay", params={"id": id}))


class _Exports(_Resource):
    def create(self, body: api.CreateExportRequest | None = None) -> api.ExportJob:
        return cast(api.ExportJob, self._client._data("createExport", body=body or {}))

    def list(self, **query: str | int | None) -> list[api.ExportJob]:
        return cast("list[api.ExportJob]", self._client._data("listExports", query=query))

    def get(self, id: str) -> api.ExportJob:
        return cast(api.ExportJob, self._client._data("getExport", params={"id": id}))

    def download_url(self, id: str) -> str:
        """The pre-signed URL of a ready export's file (valid 5 minutes)."""
        answer = self._client.request("downloadExport", params={"id": id})
        location = answer.headers.get("location")
        if answer.status != 302 or not location:
            raise HookgateError(answer.status, "export download did not redirect", answer.body)
        return location


class _Erasures(_Resource):
    """Erasures per data subject: every payload of the events given a ``subject``, removed in the background."""

    def create(self, subject: str) -> api.Erasure:
        """``{id, status: "running", ...}``: follow it with `get` until ``status`` is ``"done"``."""
        return cast(api.Erasure, self._client._data("createErasure", body={"subject": subject}))

    def get(self, id: str) -> api.Erasure:
        return cast(api.Erasure, self._client._data("getErasure", params={"id": id}))


class _BrandSettings(_Resource):
    def get(self) -> api.BrandSettings:
        return cast(api.BrandSettings, self._client._data("getBrandSettings"))

    def update(self, body: api.UpdateBrandSettingsRequest) -> api.BrandSettings:
        """A merge: fields left out keep their value; None clears one back to its default."""
        return cast(api.BrandSettings, self._client._data("updateBrandSettings", body=body))


class _CustomDomains(_Resource):
    def create(self, body: api.CreateCustomDomainRequest) -> api.CustomDomain:
        return cast(api.CustomDomain, self._client._data("createCustomDomain", body=body))

    def list(self) -> list[api.CustomDomain]:
        return cast("list[api.CustomDomain]", self._client._data("listCustomDomains"))

    def get(self, id: str) -> api.CustomDomain:
        return cast(api.CustomDomain, self._client._data("getCustomDomain", params={"id": id}))

    def verify(self, id: str) -> api.CustomDomain:
        return cast(api.CustomDomain, self._client._data("verifyCustomDomain", params={"id": id}))

    def delete(self, id: str) -> None:
        self._client.request("deleteCustomDomain", params={"id": id})
