"""Checks the signatures Hookgate puts on its deliveries, in each of its schemes."""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import re
import threading
import time
import urllib.request
from collections.abc import Callable, Mapping

from . import ed25519

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
    if scheme == "ed25519":
        raise ValueError("ed25519 deliveries are verified with public keys, not a secret: verify_webhook_with_jwks(body, request.headers, jwks_url)")
    raise ValueError(f"unknown signature scheme {scheme!r}: hookgate, standard_webhooks or ed25519")


_JWKS_DEFAULT_MAX_AGE = 300.0
# Unknown kids fetch the JWKS again at most this often (seconds): a request with a made-up kid costs
# nothing to send, and without this each one would make the receiver fetch.
_UNKNOWN_KID_REFETCH = 5.0
_ED25519_SIGNATURE = re.compile(r"[A-Za-z0-9+/]{86}==")
_MAX_AGE = re.compile(r"max-age=(\d+)")

# Per JWKS URL: its Ed25519 public keys by kid, until when (time.monotonic()) they are fresh, and when
# they were fetched because a delivery named a kid the cache lacked (0.0 otherwise).
_jwks_cache: dict[str, tuple[dict[str, bytes], float, float]] = {}
_jwks_lock = threading.Lock()

Fetch = Callable[[str], tuple[bytes, str | None]]


def _fetch(url: str) -> tuple[bytes, str | None]:
    with urllib.request.urlopen(url, timeout=10) as answer:
        return answer.read(), answer.headers.get("cache-control")


def _b64url(value: str) -> bytes:
    return base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))


def _jwks_keys(url: str, refresh: bool, fetch: Fetch) -> dict[str, bytes]:
    with _jwks_lock:
        cached = _jwks_cache.get(url)
        now = time.monotonic()
        if cached and cached[1] > now and (not refresh or now - cached[2] < _UNKNOWN_KID_REFETCH):
            return cached[0]
        body, cache_control = fetch(url)
        keys: dict[str, bytes] = {}
        for jwk in json.loads(body)["keys"]:
            if jwk.get("kty") == "OKP" and jwk.get("crv") == "Ed25519" and isinstance(jwk.get("x"), str) and isinstance(jwk.get("kid"), str):
                keys[jwk["kid"]] = _b64url(jwk["x"])
        max_age = _MAX_AGE.search(cache_control or "")
        _jwks_cache[url] = (keys, now + (float(max_age.group(1)) if max_age else _JWKS_DEFAULT_MAX_AGE), now if refresh else 0.0)
        return keys


def verify_webhook_with_jwks(
    body: bytes | str,
    headers: Mapping[str, str],
    jwks_url: str,
    *,
    tolerance_seconds: int = DEFAULT_TOLERANCE_SECONDS,
    now: float | None = None,
    fetch: Fetch = _fetch,
) -> bool:
    """Whether an ``ed25519`` delivery is genuine: Standard Webhooks' asymmetric form.

    ``webhook-signature: v1a,<base64 Ed25519 signature of "<webhook-id>.<webhook-timestamp>.<body>">``
    (several separated by spaces during a key rotation), each made with the key ``webhook-key-id``
    names in the same place: a public key of the account's JWKS at `jwks_url` (``GET /v1/account``
    shows it as ``jwks_url``).

    The JWKS is cached per URL for its ``max-age`` and fetched again at once when a delivery names a
    kid it lacks (at most once in 5 seconds), so a rotation needs no redeploy. `fetch(url)` answers the JWKS's bytes and its
    ``Cache-Control`` (default: urllib). Answers False on malformed headers or a signature no listed
    key makes; raises only when the JWKS cannot be fetched or read.
    """
    if isinstance(headers, (str, bytes)):
        raise TypeError("verify_webhook_with_jwks takes the request headers, not one header: verify_webhook_with_jwks(body, request.headers, jwks_url)")
    webhook_id = _header(headers, "webhook-id")
    timestamp = _header(headers, "webhook-timestamp")
    header = _header(headers, "webhook-signature")
    if not webhook_id or not timestamp or not header or not _fresh(timestamp, tolerance_seconds, now):
        return False
    kids = (_header(headers, "webhook-key-id") or "").split()
    signatures: list[tuple[str | None, bytes]] = []
    for i, part in enumerate(header.split()):
        version, comma, given = part.partition(",")
        if version == "v1a" and comma and _ED25519_SIGNATURE.fullmatch(given):
            signatures.append((kids[i] if i < len(kids) else None, base64.b64decode(given)))
    if not signatures:
        return False
    raw = body.encode("utf-8") if isinstance(body, str) else bytes(body)
    message = webhook_id.encode("utf-8") + b"." + timestamp.encode("ascii") + b"." + raw
    keys = _jwks_keys(jwks_url, False, fetch)
    if any(kid is not None and kid not in keys for kid, _ in signatures):
        keys = _jwks_keys(jwks_url, True, fetch)
    for kid, signature in signatures:
        candidates = list(keys.values()) if kid is None else [keys[kid]] if kid in keys else []
        if any(ed25519.verify(key, message, signature) for key in candidates):
            return True
    return False
