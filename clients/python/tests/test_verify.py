"""verify_webhook against signatures computed here, as the gateway's signer (lambdas/domain/signing.ts) makes them."""

import base64
import hashlib
import hmac
import unittest

from hookgate import verify_webhook

SECRET = "whsec_tZYWtAcaUq+08oVDZEpZi7eAgu1INz1420uIwUbV3rQ="
BODY = b'{"invoice":"in_1","total":999}'
NOW = 1_780_315_200
WEBHOOK_ID = "01970c6e-0000-7000-8000-000000000001"


def hookgate_header(body: bytes, secrets: list[str], t: int = NOW) -> str:
    parts = [f"v1={hmac.new(s.encode(), f'{t}.'.encode() + body, hashlib.sha256).hexdigest()}" for s in secrets]
    return ",".join([f"t={t}", *parts])


def standard_headers(body: bytes, secrets: list[str], t: int = NOW, webhook_id: str = WEBHOOK_ID) -> dict[str, str]:
    signatures = []
    for secret in secrets:
        key = base64.b64decode(secret.removeprefix("whsec_"))
        mac = hmac.new(key, f"{webhook_id}.{t}.".encode() + body, hashlib.sha256).digest()
        signatures.append("v1," + base64.b64encode(mac).decode())
    return {"webhook-id": webhook_id, "webhook-timestamp": str(t), "webhook-signature": " ".join(signatures)}


class HookgateScheme(unittest.TestCase):
    def verify(self, body, header, secret=SECRET, **kwargs):
        return verify_webhook(body, {"Webhook-Signature": header}, secret, now=NOW, **kwargs)

    def test_accepts_what_the_gateway_signs_as_bytes_or_text(self):
        header = hookgate_header(BODY, [SECRET])
        self.assertTrue(self.verify(BODY, header))
        self.assertTrue(self.verify(BODY.decode(), header))
        binary = bytes([0xFF, 0x00, 0xFE])
        self.assertTrue(self.verify(binary, hookgate_header(binary, [SECRET])))

    def test_either_secret_during_a_rotation(self):
        header = hookgate_header(BODY, ["new-secret-123", SECRET])
        self.assertTrue(self.verify(BODY, header))
        self.assertTrue(self.verify(BODY, header, "new-secret-123"))
        self.assertFalse(self.verify(BODY, header, "another-secret"))

    def test_refuses_a_wrong_secret_and_a_tampered_body(self):
        header = hookgate_header(BODY, [SECRET])
        self.assertFalse(self.verify(BODY, header, SECRET + "x"))
        self.assertFalse(self.verify(BODY.replace(b"999", b"1"), header))
        self.assertFalse(self.verify(BODY, header, ""))

    def test_five_minutes_either_way(self):
        self.assertTrue(self.verify(BODY, hookgate_header(BODY, [SECRET], NOW - 300)))
        self.assertFalse(self.verify(BODY, hookgate_header(BODY, [SECRET], NOW - 301)))
        self.assertFalse(self.verify(BODY, hookgate_header(BODY, [SECRET], NOW + 301)))
        self.assertTrue(self.verify(BODY, hookgate_header(BODY, [SECRET], NOW - 3600), tolerance_seconds=3600))

    def test_false_never_raises_on_malformed_headers(self):
        v1 = hookgate_header(BODY, [SECRET]).split(",")[1]
        for header in ["", "garbage", v1, f"t={NOW}", f"t=abc,{v1}", f"t={NOW},v1=zz", f"t={NOW},v1={'0' * 64}", f"t=-{NOW},{v1}"]:
            self.assertFalse(self.verify(BODY, header), header)
        self.assertFalse(verify_webhook(BODY, {}, SECRET, now=NOW))
        self.assertTrue(self.verify(BODY, f"{v1} , t={NOW}"))


class StandardWebhooksScheme(unittest.TestCase):
    def verify(self, body, headers, secret=SECRET, **kwargs):
        return verify_webhook(body, headers, secret, scheme="standard_webhooks", now=NOW, **kwargs)

    def test_accepts_a_valid_signature_in_any_header_case(self):
        headers = standard_headers(BODY, [SECRET])
        self.assertTrue(self.verify(BODY, headers))
        self.assertTrue(self.verify(BODY, {k.title(): v for k, v in headers.items()}))

    def test_either_secret_during_a_rotation(self):
        other = "whsec_" + base64.b64encode(b"x" * 32).decode()
        headers = standard_headers(BODY, [other, SECRET])
        self.assertTrue(self.verify(BODY, headers))
        self.assertTrue(self.verify(BODY, headers, other))

    def test_refuses_a_wrong_secret_a_tampered_body_an_old_timestamp_and_a_changed_id(self):
        headers = standard_headers(BODY, [SECRET])
        self.assertFalse(self.verify(BODY, headers, "whsec_" + base64.b64encode(b"y" * 32).decode()))
        self.assertFalse(self.verify(BODY + b" ", headers))
        self.assertFalse(self.verify(BODY, standard_headers(BODY, [SECRET], NOW - 301)))
        self.assertTrue(self.verify(BODY, standard_headers(BODY, [SECRET], NOW - 300)))
        self.assertFalse(self.verify(BODY, {**headers, "webhook-id": "another"}))
        # The hookgate scheme's header does not pass for this scheme, nor the other way round.
        self.assertFalse(verify_webhook(BODY, headers, SECRET, now=NOW))

    def test_false_never_raises_on_malformed_input(self):
        headers = standard_headers(BODY, [SECRET])
        for broken in [{}, {**headers, "webhook-signature": "v1,%%%"}, {**headers, "webhook-timestamp": "soon"}, {**headers, "webhook-signature": "v2,abc"}]:
            self.assertFalse(self.verify(BODY, broken), broken)
        self.assertFalse(self.verify(BODY, headers, "whsec_not base64!"))

    def test_an_unknown_scheme_is_a_programming_error(self):
        with self.assertRaises(ValueError):
            verify_webhook(BODY, {}, SECRET, scheme="svix")


if __name__ == "__main__":
    unittest.main()
