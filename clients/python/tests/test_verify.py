"""verify_webhook against signatures computed here, as the gateway's signer (lambdas/domain/signing.ts) makes them."""

import base64
import email.message
import hashlib
import hmac
import time
import unittest

from hookgate import verify_webhook

SECRET = "whsec_tZYWtAcaUq+08oVDZEpZi7eAgu1INz1420uIwUbV3rQ="
OTHER = "whsec_" + base64.b64encode(b"x" * 32).decode()
BODY = b'{"invoice":"in_1","total":999}'
BINARY = bytes([0xFF, 0x00, 0xFE])
NOW = 1_780_315_200
WEBHOOK_ID = "01970c6e-0000-7000-8000-000000000001"


def hookgate_header(body: bytes, secrets: list[str], t: int = NOW) -> str:
    parts = [f"v1={hmac.new(s.encode(), f'{t}.'.encode() + body, hashlib.sha256).hexdigest()}" for s in secrets]
    return ",".join([f"t={t}", *parts])


def hookgate(body: bytes = BODY, secrets: list[str] | None = None, t: int = NOW) -> dict[str, str]:
    return {"webhook-signature": hookgate_header(body, secrets or [SECRET], t)}


def standard(body: bytes = BODY, secrets: list[str] | None = None, t: int = NOW) -> dict[str, str]:
    signatures = []
    for secret in secrets or [SECRET]:
        key = base64.b64decode(secret.removeprefix("whsec_"))
        mac = hmac.new(key, f"{WEBHOOK_ID}.{t}.".encode() + body, hashlib.sha256).digest()
        signatures.append("v1," + base64.b64encode(mac).decode())
    return {"webhook-id": WEBHOOK_ID, "webhook-timestamp": str(t), "webhook-signature": " ".join(signatures)}


def title_case(headers: dict[str, str]) -> dict[str, str]:
    return {name.title(): value for name, value in headers.items()}


def message(headers: dict[str, str]) -> email.message.Message:
    """Headers as http.server hands them over."""
    m = email.message.Message()
    for name, value in headers.items():
        m[name.title()] = value
    return m


V1 = hookgate_header(BODY, [SECRET]).split(",")[1]
HG: dict = {}
SW = {"scheme": "standard_webhooks"}

# (name, body, headers, secret, options, verifies)
CASES = [
    ("hookgate: what the gateway signs", BODY, hookgate(), SECRET, HG, True),
    ("hookgate: the body as text", BODY.decode(), hookgate(), SECRET, HG, True),
    ("hookgate: a binary body", BINARY, hookgate(BINARY), SECRET, HG, True),
    ("hookgate: header names in another case", BODY, title_case(hookgate()), SECRET, HG, True),
    ("hookgate: upper-case header name", BODY, {"WEBHOOK-SIGNATURE": hookgate_header(BODY, [SECRET])}, SECRET, HG, True),
    ("hookgate: http.server's headers", BODY, message(hookgate()), SECRET, HG, True),
    ("hookgate: parts in any order, spaces around them", BODY, {"webhook-signature": f"{V1} , t={NOW}"}, SECRET, HG, True),
    ("hookgate: a wrong secret", BODY, hookgate(), SECRET + "x", HG, False),
    ("hookgate: an empty secret", BODY, hookgate(), "", HG, False),
    ("hookgate: a tampered body", BODY.replace(b"999", b"1"), hookgate(), SECRET, HG, False),
    ("hookgate: 300 s old", BODY, hookgate(t=NOW - 300), SECRET, HG, True),
    ("hookgate: a stale timestamp", BODY, hookgate(t=NOW - 301), SECRET, HG, False),
    ("hookgate: a timestamp in the future", BODY, hookgate(t=NOW + 301), SECRET, HG, False),
    ("hookgate: a stale timestamp, tolerance widened", BODY, hookgate(t=NOW - 3600), SECRET, {"tolerance_seconds": 3600}, True),
    ("hookgate: two signatures in a rotation, the old secret", BODY, hookgate(secrets=["new-secret-123", SECRET]), SECRET, HG, True),
    ("hookgate: two signatures in a rotation, the new secret", BODY, hookgate(secrets=["new-secret-123", SECRET]), "new-secret-123", HG, True),
    ("hookgate: two signatures, neither secret", BODY, hookgate(secrets=["new-secret-123", SECRET]), "another-secret", HG, False),
    ("hookgate: no signature header", BODY, {}, SECRET, HG, False),
    ("hookgate: Standard Webhooks headers", BODY, standard(), SECRET, HG, False),
    *[
        (f"hookgate: malformed {header!r}", BODY, {"webhook-signature": header}, SECRET, HG, False)
        for header in ["", "garbage", V1, f"t={NOW}", f"t=abc,{V1}", f"t={NOW},v1=zz", f"t={NOW},v1={'0' * 64}", f"t=-{NOW},{V1}"]
    ],
    ("standard_webhooks: what the gateway signs", BODY, standard(), SECRET, SW, True),
    ("standard_webhooks: a binary body", BINARY, standard(BINARY), SECRET, SW, True),
    ("standard_webhooks: header names in another case", BODY, title_case(standard()), SECRET, SW, True),
    ("standard_webhooks: http.server's headers", BODY, message(standard()), SECRET, SW, True),
    ("standard_webhooks: the secret without its whsec_ prefix", BODY, standard(), SECRET.removeprefix("whsec_"), SW, True),
    ("standard_webhooks: a wrong secret", BODY, standard(), "whsec_" + base64.b64encode(b"y" * 32).decode(), SW, False),
    ("standard_webhooks: a secret that is no base64", BODY, standard(), "whsec_not base64!", SW, False),
    ("standard_webhooks: a tampered body", BODY + b" ", standard(), SECRET, SW, False),
    ("standard_webhooks: 300 s old", BODY, standard(t=NOW - 300), SECRET, SW, True),
    ("standard_webhooks: a stale timestamp", BODY, standard(t=NOW - 301), SECRET, SW, False),
    ("standard_webhooks: another webhook-id", BODY, {**standard(), "webhook-id": "another"}, SECRET, SW, False),
    *[
        (f"standard_webhooks: no {missing}", BODY, {k: v for k, v in standard().items() if k != missing}, SECRET, SW, False)
        for missing in ["webhook-id", "webhook-timestamp", "webhook-signature"]
    ],
    ("standard_webhooks: a timestamp that is no number", BODY, {**standard(), "webhook-timestamp": "soon"}, SECRET, SW, False),
    ("standard_webhooks: two signatures, the second secret", BODY, standard(secrets=[OTHER, SECRET]), SECRET, SW, True),
    ("standard_webhooks: two signatures, the first secret", BODY, standard(secrets=[OTHER, SECRET]), OTHER, SW, True),
    ("standard_webhooks: a signature that is no base64", BODY, {**standard(), "webhook-signature": "v1,%%%"}, SECRET, SW, False),
    ("standard_webhooks: an unknown version", BODY, {**standard(), "webhook-signature": "v2,abc"}, SECRET, SW, False),
    ("standard_webhooks: a hookgate header", BODY, hookgate(), SECRET, SW, False),
]


class VerifyWebhook(unittest.TestCase):
    def test_cases(self):
        for name, body, headers, secret, options, verifies in CASES:
            with self.subTest(name):
                self.assertIs(verify_webhook(body, headers, secret, now=NOW, **options), verifies)

    def test_checks_against_the_current_time_without_now(self):
        self.assertTrue(verify_webhook(BODY, hookgate(t=int(time.time())), SECRET))
        self.assertFalse(verify_webhook(BODY, hookgate(), SECRET))

    def test_programming_errors_raise(self):
        with self.assertRaisesRegex(TypeError, "takes the request headers"):
            verify_webhook(BODY, hookgate_header(BODY, [SECRET]), SECRET)
        with self.assertRaises(ValueError):
            verify_webhook(BODY, {}, SECRET, scheme="svix")


if __name__ == "__main__":
    unittest.main()
