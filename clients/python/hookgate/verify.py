"""Checks the signatures Hookgate puts on its deliveries, in both of its schemes."""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import re
import time
from collections.abc import Mapping

DEFAULT_TOLERANCE_SECONDS = 300

_HEX_SHA256 = re.compile(r"[0-9a-fA-F]{64}")
_UNIX_SECONDS = re.compile(r"\d{1,12}")


def _header(headers: Mapping[str, str], name: str) -> str | None:
    # HTTP header names are case-insensitive, and frameworks hand them over in any case.
    for key, value in headers.items():
        if key.lower() == name:
            return value
    return None


def _fresh(timestamp: str, tolerance: int, now: float | None) -> bool:
    if not _UNIX_SECONDS.fullmatch(timestamp):
        return False
    current = int(time.time() if now is None else now)
    return abs(current - int(timestamp)) <= tolerance


def _any_matches(candidates: list[bytes], expected: bytes) -> bool:
    valid = False
    for candidate in candidates:
        # Every candidate is compared, in constant time, so timing tells nothing about which matched.
        if hmac.compare_digest(candidate, expected):
            valid = True
    return valid


def _verify_hookgate(body: bytes, header: str | None, secret: str, tolerance: int, now: float | None) -> bool:
    if not header:
        return False
    timestamp: str | None = None
    signatures: list[bytes] = []
    for part in header.split(","):
        name, eq, given = part.partition("=")
        if not eq:
            continue
        name, given = name.strip(), given.strip()
        if name == "t" and timestamp is None:
            timestamp = given
        elif name == "v1" and _HEX_SHA256.fullmatch(given):
            signatures.append(bytes.fromhex(given))
    if timestamp is None or not signatures or not _fresh(timestamp, tolerance, now):
        return False
    expected = hmac.new(secret.encode("utf-8"), timestamp.encode("ascii") + b"." + body, hashlib.sha256).digest()
    return _any_matches(signatures, expected)


def _verify_standard_webhooks(
    body: bytes, webhook_id: str | None, timestamp: str | None, header: str | None, secret: str, tolerance: int, now: float | None
) -> bool:
    if not webhook_id or not timestamp or not header or not _fresh(timestamp, tolerance, now):
        return False
    try:
        key = base64.b64decode(secret.removeprefix("whsec_"), validate=True)
    except (binascii.Error, ValueError):
        return False
    signatures: list[bytes] = []
    for part in header.split(" "):
        version, comma, given = part.partition(",")
        if version != "v1" or not comma:
            continue
        try:
            signatures.append(base64.b64decode(given, validate=True))
        except (binascii.Error, ValueError):
            continue
    if not signatures:
        return False
    signed = webhook_id.encode("utf-8") + b"." + timestamp.encode("ascii") + b"." + body
    return _any_matches(signatures, hmac.new(key, signed, hashlib.sha256).digest())


def verify_webhook(
    body: bytes | str,
    headers: Mapping[str, str],
    secret: str,
    *,
    scheme: str = "hookgate",
    tolerance_seconds: int = DEFAULT_TOLERANCE_SECONDS,
    now: float | None = None,
) -> bool:
    """Whether a delivery is genuine: signed with `secret` over exactly `body`, within the tolerance.

    `headers` are the delivery's request headers (any case). `scheme` is the destination's
    `signature_scheme`:

    - ``hookgate`` (the default): ``Webhook-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of
      "<t>.<body>">[,v1=…]`` keyed with the secret's UTF-8 bytes; two ``v1`` while a rotated-out
      secret is still valid, and either verifies.
    - ``standard_webhooks``: ``webhook-id``, ``webhook-timestamp`` and ``webhook-signature:
      v1,<base64 HMAC-SHA256 of "<id>.<t>.<body>">`` (several separated by spaces), keyed with the
      base64-decoded part of the ``whsec_`` secret.

    Pass the raw body as received: a re-serialized JSON body does not verify. The timestamp may be
    `tolerance_seconds` away from `now` (Unix seconds; default: the current time), either way.
    Constant-time; answers False, never raises, on malformed headers. Raises only for a programming
    error: TypeError for one header (a string) where the headers go, ValueError for an unknown scheme.
    """
    if isinstance(headers, (str, bytes)):
        raise TypeError("verify_webhook takes the request headers, not one header: verify_webhook(body, request.headers, secret)")
    if not secret:
        return False
    raw = body.encode("utf-8") if isinstance(body, str) else bytes(body)
    if scheme == "hookgate":
        return _verify_hookgate(raw, _header(headers, "webhook-signature"), secret, tolerance_seconds, now)
    if scheme == "standard_webhooks":
        return _verify_standard_webhooks(
            raw,
            _header(headers, "webhook-id"),
            _header(headers, "webhook-timestamp"),
            _header(headers, "webhook-signature"),
            secret,
            tolerance_seconds,
            now,
        )
    raise ValueError(f"unknown signature scheme {scheme!r}: hookgate or standard_webhooks")
