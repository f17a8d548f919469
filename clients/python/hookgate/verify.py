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
# ASCII digits: `\d` would take any script's, which int() reads but the signed bytes cannot hold.
_UNIX_SECONDS = re.compile(r"[0-9]{1,12}")


def _header(headers: Mapping[str, str], name: str) -> str | None:
    # HTTP header names are case-insensitive, and frameworks hand them over in any case.
    for key, value in headers.items():
        if isinstance(key, str) and key.lower() == name:
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
# nothing to send, and without this each one would make the receiver fetch. A fetch that failed while
# older keys were known waits as long before the next try.
_UNKNOWN_KID_REFETCH = 5.0
# Hookgate signs with one key, two for a day after a rotation: a header far longer than that (each
# signature is 92 characters) is refused unread, so nobody makes a receiver parse or check hundreds
# (each check is a pure-Python Ed25519 verification, a few milliseconds).
_MAX_SIGNATURE_HEADER_LENGTH = 2048
_MAX_KEY_ID_HEADER_LENGTH = 1024
_ED25519_SIGNATURE = re.compile(r"[A-Za-z0-9+/]{86}==")
_ED25519_X = re.compile(r"[A-Za-z0-9_-]{43}")
_MAX_AGE = re.compile(r"max-age=(\d+)")

# Per JWKS URL: its Ed25519 public keys by kid, until when (time.monotonic()) they are fresh, and when
# they were fetched because a delivery named a kid the cache lacked (0.0 otherwise).
_jwks_cache: dict[str, tuple[dict[str, bytes], float, float]] = {}
_jwks_lock = threading.Lock()

Fetch = Callable[[str], tuple[bytes, str | None]]


def _fetch(url: str) -> tuple[bytes, str | None]:
    with urllib.request.urlopen(url, timeout=10) as answer:
        return answer.read(), answer.headers.get("cache-control")


def _ed25519_keys(document: object) -> dict[str, bytes]:
    """The set's usable Ed25519 keys: an entry that is not one is skipped, not fatal to the others."""
    listed = document.get("keys") if isinstance(document, dict) else None
    if not isinstance(listed, list):
        raise ValueError("the JWKS has no keys array")
    keys: dict[str, bytes] = {}
    for jwk in listed:
        if not isinstance(jwk, dict) or jwk.get("kty") != "OKP" or jwk.get("crv") != "Ed25519":
            continue
        x, kid = jwk.get("x"), jwk.get("kid")
        if isinstance(kid, str) and isinstance(x, str) and _ED25519_X.fullmatch(x) and kid not in keys:
            keys[kid] = base64.urlsafe_b64decode(x + "=")
    return keys


def _jwks_keys(url: str, refresh: bool, fetch: Fetch) -> dict[str, bytes]:
    with _jwks_lock:
        cached = _jwks_cache.get(url)
        now = time.monotonic()
        if cached and cached[1] > now and (not refresh or now - cached[2] < _UNKNOWN_KID_REFETCH):
            return cached[0]
        try:
            body, cache_control = fetch(url)
            keys = _ed25519_keys(json.loads(body))
        except Exception:
            if cached is None:
                raise
            # The host is down or answers nonsense: the keys it served last still verify what they
            # signed, and verifications do not each wait for it; it is asked again in a few seconds.
            _jwks_cache[url] = (cached[0], now + _UNKNOWN_KID_REFETCH, now)
            return cached[0]
        max_age = _MAX_AGE.search(cache_control or "")
        _jwks_cache[url] = (keys, now + (float(max_age.group(1)) if max_age else _JWKS_DEFAULT_MAX_AGE), now if refresh else 0.0)
        return keys


def _text_header(headers: Mapping[str, str], name: str) -> str | None:
    value = _header(headers, name)
    return value if isinstance(value, str) else None


def _signatures(header: str, key_ids: str) -> list[tuple[str | None, bytes]]:
    """The header's v1a signatures, each once, with the kid `webhook-key-id` names in its place; none when either header is oversized."""
    if len(header) > _MAX_SIGNATURE_HEADER_LENGTH or len(key_ids) > _MAX_KEY_ID_HEADER_LENGTH:
        return []
    kids = key_ids.split()
    seen: set[tuple[str | None, str]] = set()
    signatures: list[tuple[str | None, bytes]] = []
    for i, part in enumerate(header.split()):
        version, comma, given = part.partition(",")
        kid = kids[i] if i < len(kids) else None
        if version != "v1a" or not comma or not _ED25519_SIGNATURE.fullmatch(given) or (kid, given) in seen:
            continue
        seen.add((kid, given))
        signatures.append((kid, base64.b64decode(given)))
    return signatures


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
    names in the same place: a public key of the receiver's JWKS at `jwks_url`, a customer's own (its
    portal shows it; each customer's endpoints are signed with a key pair of its own, so a delivery to
    one customer does not verify with another's), or for the account's own destinations its
    ``jwks_url`` (``GET /v1/account``).

    The JWKS is cached per URL for its ``max-age`` and fetched again at once when a delivery names a
    kid it lacks (at most once in 5 seconds), so a rotation needs no redeploy. `fetch(url)` answers the
    JWKS's bytes and its ``Cache-Control`` (default: urllib, 10 s timeout); while a fetch fails, the
    keys fetched last keep verifying, and a key of the set that is not a valid Ed25519 JWK is skipped.
    A ``webhook-signature`` over 2048 characters is refused, repeated signatures are checked once, and
    no more signatures are checked than the JWKS lists keys. Answers False on malformed headers or a
    signature no listed key makes; raises only when the JWKS cannot be fetched or read and none was before.
    """
    if isinstance(headers, (str, bytes)):
        raise TypeError("verify_webhook_with_jwks takes the request headers, not one header: verify_webhook_with_jwks(body, request.headers, jwks_url)")
    if not isinstance(body, (bytes, bytearray, memoryview, str)) or not isinstance(headers, Mapping):
        return False
    webhook_id = _text_header(headers, "webhook-id")
    timestamp = _text_header(headers, "webhook-timestamp")
    header = _text_header(headers, "webhook-signature")
    if not webhook_id or not timestamp or not header or not _fresh(timestamp, tolerance_seconds, now):
        return False
    signatures = _signatures(header, _text_header(headers, "webhook-key-id") or "")
    if not signatures:
        return False
    raw = body.encode("utf-8", "surrogatepass") if isinstance(body, str) else bytes(body)
    message = webhook_id.encode("utf-8", "surrogatepass") + b"." + timestamp.encode("ascii") + b"." + raw
    keys = _jwks_keys(jwks_url, False, fetch)
    if any(kid is not None and kid not in keys for kid, _ in signatures):
        keys = _jwks_keys(jwks_url, True, fetch)
    # Each check is a pure-Python Ed25519 verification: as many as the set has keys, whatever the header holds.
    checks = len(keys)
    for kid, signature in signatures:
        for key in list(keys.values()) if kid is None else [keys[kid]] if kid in keys else []:
            if checks <= 0:
                return False
            checks -= 1
            if ed25519.verify(key, message, signature):
                return True
    return False
