"""Ed25519 verification against RFC 8032's test vectors, and verify_webhook_with_jwks against signatures
node's crypto made (the gateway's signer, lambdas/domain/signing-keys.ts) with the RFC's keys."""

import base64
import json
import random
import unittest
from unittest import mock

from hookgate import verify_webhook, verify_webhook_with_jwks
from hookgate import verify as verify_module
from hookgate.ed25519 import verify

# RFC 8032, section 7.1, TESTs 1-3: public key, message, signature.
RFC_8032 = [
    (
        "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a",
        "",
        "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b",
    ),
    (
        "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c",
        "72",
        "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00",
    ),
    (
        "fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025",
        "af82",
        "6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a",
    ),
]

L = 2**252 + 27742317777372353535851937790883648493


class Rfc8032(unittest.TestCase):
    def test_vectors_verify(self):
        for public, message, signature in RFC_8032:
            with self.subTest(public[:8]):
                self.assertTrue(verify(bytes.fromhex(public), bytes.fromhex(message), bytes.fromhex(signature)))

    def test_anything_changed_fails(self):
        public, message, signature = (bytes.fromhex(v) for v in RFC_8032[2])
        other_public = bytes.fromhex(RFC_8032[0][0])
        flipped = bytes([signature[0] ^ 1]) + signature[1:]
        # S + L is the same scalar mod L: RFC 8032 requires S < L, so the malleated form is refused.
        malleated = signature[:32] + (int.from_bytes(signature[32:], "little") + L).to_bytes(32, "little")
        for name, args in [
            ("message", (public, message + b"\x00", signature)),
            ("signature", (public, message, flipped)),
            ("key", (other_public, message, signature)),
            ("short signature", (public, message, signature[:63])),
            ("short key", (public[:31], message, signature)),
            ("S not below L", (public, message, malleated)),
        ]:
            with self.subTest(name):
                self.assertFalse(verify(*args))


NOW = 1_780_315_200
WEBHOOK_ID = "01970c6e-0000-7000-8000-000000000001"
BODY = b'{"invoice":"in_1","total":999}'
JWKS_URL = "https://gateway.example/.well-known/jwks/acct.json"
# node: sign(null, "<WEBHOOK_ID>.<NOW>.<BODY>", key) with the secret keys of RFC 8032's TESTs 1 and 2.
SIGNED_BY_1 = "HCDosGdm3BPB6TLd7tJm+PqMK6sOlgJoKUaO4DfwQMi5icJx5FIM+TZx5dwCd6YaTGSrmvhrYhlABgMqA0slBg=="
SIGNED_BY_2 = "OdgIxaLLZEqUZljj2yRgukNEG7Ocgp88vLz90J5SvzzExLLyZkMUGtv+PdSDQNpVF0jFanOTnqtieSmJd94YCA=="


def jwk(kid: str, public_hex: str) -> dict[str, str]:
    x = base64.urlsafe_b64encode(bytes.fromhex(public_hex)).decode().rstrip("=")
    return {"kty": "OKP", "crv": "Ed25519", "x": x, "kid": kid, "use": "sig", "alg": "EdDSA"}


KEY_1 = jwk("k1", RFC_8032[0][0])
KEY_2 = jwk("k2", RFC_8032[1][0])


def delivery(signatures: list[str], kids: list[str], t: int = NOW) -> dict[str, str]:
    return {
        "Webhook-Id": WEBHOOK_ID,
        "Webhook-Timestamp": str(t),
        "Webhook-Signature": " ".join(f"v1a,{s}" for s in signatures),
        "Webhook-Key-Id": " ".join(kids),
    }


class Jwks:
    """The JWKS endpoint as a test sees it: what it serves now, and how often it was fetched."""

    def __init__(self, *keys: dict[str, str]) -> None:
        self.keys = list(keys)
        self.fetches = 0

    def __call__(self, url: str) -> tuple[bytes, str | None]:
        assert url == JWKS_URL
        self.fetches += 1
        return json.dumps({"keys": self.keys}).encode(), "public, max-age=300"


class VerifyWithJwks(unittest.TestCase):
    def setUp(self):
        verify_module._jwks_cache.clear()

    def check(self, headers: dict[str, str], jwks: Jwks, body: bytes = BODY) -> bool:
        return verify_webhook_with_jwks(body, headers, JWKS_URL, now=NOW, fetch=jwks)

    def test_verifies_with_the_named_key_and_caches_the_jwks(self):
        jwks = Jwks(KEY_1)
        self.assertTrue(self.check(delivery([SIGNED_BY_1], ["k1"]), jwks))
        self.assertTrue(self.check(delivery([SIGNED_BY_1], ["k1"]), jwks))
        self.assertEqual(jwks.fetches, 1)

    def test_rejects(self):
        jwks = Jwks(KEY_1, KEY_2)
        for name, headers, body in [
            ("another body", delivery([SIGNED_BY_1], ["k1"]), BODY + b" "),
            ("the wrong key named", delivery([SIGNED_BY_1], ["k2"]), BODY),
            ("another timestamp", delivery([SIGNED_BY_1], ["k1"], t=NOW + 1), BODY),
            ("too old", delivery([SIGNED_BY_1], ["k1"], t=NOW - 301), BODY),
            ("v1 instead of v1a", {**delivery([], ["k1"]), "Webhook-Signature": f"v1,{SIGNED_BY_1}"}, BODY),
            ("no webhook-id", {k: v for k, v in delivery([SIGNED_BY_1], ["k1"]).items() if k != "Webhook-Id"}, BODY),
        ]:
            with self.subTest(name):
                self.assertFalse(self.check(headers, jwks, body))

    def test_during_a_rotation_either_signature_verifies_and_an_unknown_kid_refetches(self):
        jwks = Jwks(KEY_1)
        self.assertTrue(self.check(delivery([SIGNED_BY_1], ["k1"]), jwks))
        # The rotation: k2 is current, k1 still signs; the cached JWKS lacks k2, so it is fetched again.
        jwks.keys = [KEY_2, KEY_1]
        both = delivery([SIGNED_BY_2, SIGNED_BY_1], ["k2", "k1"])
        self.assertTrue(self.check(both, jwks))
        self.assertEqual(jwks.fetches, 2)
        # After it: only k2.
        jwks.keys = [KEY_2]
        self.assertTrue(self.check(delivery([SIGNED_BY_2], ["k2"]), jwks))
        self.assertFalse(self.check(delivery([SIGNED_BY_1], ["k9"]), jwks))

    def test_made_up_kids_fetch_the_jwks_again_at_most_once_in_5_seconds(self):
        jwks = Jwks(KEY_1)
        self.check(delivery([SIGNED_BY_1], ["k1"]), jwks)
        for kid in ["x1", "x2", "x3"]:
            self.assertFalse(self.check(delivery([SIGNED_BY_1], [kid]), jwks))
        self.assertEqual(jwks.fetches, 2)

    def test_without_webhook_key_id_every_listed_key_is_tried(self):
        headers = {k: v for k, v in delivery([SIGNED_BY_2], []).items() if k != "Webhook-Key-Id"}
        self.assertTrue(self.check(headers, Jwks(KEY_1, KEY_2)))

    def test_programming_errors_raise(self):
        with self.assertRaisesRegex(TypeError, "takes the request headers"):
            verify_webhook_with_jwks(BODY, f"v1a,{SIGNED_BY_1}", JWKS_URL)
        with self.assertRaisesRegex(ValueError, "verify_webhook_with_jwks"):
            verify_webhook(BODY, {}, "whsec_x", scheme="ed25519")


class HostileInput(unittest.TestCase):
    """What a request costs a receiver, counted in pure-Python Ed25519 checks, and that nothing raises."""

    def setUp(self):
        verify_module._jwks_cache.clear()
        self.checks = 0
        real = verify_module.ed25519.verify

        def counted(*args: bytes) -> bool:
            self.checks += 1
            return real(*args)

        patcher = mock.patch.object(verify_module.ed25519, "verify", counted)
        patcher.start()
        self.addCleanup(patcher.stop)

    @staticmethod
    def bogus(i: int) -> str:
        return base64.b64encode(bytes([i % 256]) * 64).decode()

    def test_150_bogus_signatures_are_refused_unread_and_under_the_cap_cost_one_check_per_listed_key(self):
        jwks = Jwks(KEY_1, KEY_2)
        many = delivery([self.bogus(i) for i in range(150)], ["k1"] * 150)
        self.assertGreater(len(many["Webhook-Signature"]), 2048)
        self.assertFalse(verify_webhook_with_jwks(BODY, many, JWKS_URL, now=NOW, fetch=jwks))
        self.assertEqual((self.checks, jwks.fetches), (0, 0))
        # Twenty, with no webhook-key-id (so every key is a candidate for each): two checks, as two keys are listed.
        few = {k: v for k, v in delivery([self.bogus(i) for i in range(20)], []).items() if k != "Webhook-Key-Id"}
        self.assertFalse(verify_webhook_with_jwks(BODY, few, JWKS_URL, now=NOW, fetch=jwks))
        self.assertEqual(self.checks, 2)

    def test_a_repeated_signature_is_checked_once(self):
        jwks = Jwks(KEY_1, KEY_2)
        repeated = delivery([SIGNED_BY_1] * 20, ["k1"] * 20)
        self.assertFalse(verify_webhook_with_jwks(BODY + b" ", repeated, JWKS_URL, now=NOW, fetch=jwks))
        self.assertEqual(self.checks, 1)
        self.assertTrue(verify_webhook_with_jwks(BODY, repeated, JWKS_URL, now=NOW, fetch=jwks))

    def test_a_malformed_key_is_passed_over_and_the_others_verify(self):
        malformed = [
            {"kty": "OKP", "crv": "Ed25519", "x": "not-32-bytes", "kid": "short"},
            {"kty": "OKP", "crv": "Ed25519", "x": "!" * 43, "kid": "bad"},
            {"kty": "OKP", "crv": "Ed25519", "kid": "no-x"},
            {"kty": "OKP", "crv": "Ed25519", "x": 7, "kid": "number"},
            None,
            "a string",
            ["a", "list"],
        ]
        jwks = Jwks(*malformed, KEY_1)  # type: ignore[arg-type]
        self.assertTrue(verify_webhook_with_jwks(BODY, delivery([SIGNED_BY_1], ["k1"]), JWKS_URL, now=NOW, fetch=jwks))
        for kid in ["short", "bad", "no-x", "number"]:
            with self.subTest(kid):
                self.assertFalse(verify_webhook_with_jwks(BODY, delivery([SIGNED_BY_1], [kid]), JWKS_URL, now=NOW, fetch=jwks))

    def test_a_document_that_is_no_key_set_raises_as_an_unreachable_one_does(self):
        for document in [b"not json", b'{"keys": "none"}', b"[]", b"null"]:
            with self.subTest(document), self.assertRaises(ValueError):
                verify_module._jwks_cache.clear()
                verify_webhook_with_jwks(BODY, delivery([SIGNED_BY_1], ["k1"]), JWKS_URL, now=NOW, fetch=lambda _url, d=document: (d, None))

    def test_while_the_host_fails_the_keys_it_served_last_keep_verifying(self):
        served = {"fail": False}

        def fetch(url: str) -> tuple[bytes, str | None]:
            if served["fail"]:
                raise TimeoutError("timed out")
            return json.dumps({"keys": [KEY_1]}).encode(), "max-age=0"

        self.assertTrue(verify_webhook_with_jwks(BODY, delivery([SIGNED_BY_1], ["k1"]), JWKS_URL, now=NOW, fetch=fetch))
        served["fail"] = True
        self.assertTrue(verify_webhook_with_jwks(BODY, delivery([SIGNED_BY_1], ["k1"]), JWKS_URL, now=NOW, fetch=fetch))
        self.assertFalse(verify_webhook_with_jwks(BODY + b" ", delivery([SIGNED_BY_1], ["k1"]), JWKS_URL, now=NOW, fetch=fetch))
        verify_module._jwks_cache.clear()
        with self.assertRaises(TimeoutError):
            verify_webhook_with_jwks(BODY, delivery([SIGNED_BY_1], ["k1"]), JWKS_URL, now=NOW, fetch=fetch)

    def test_any_headers_and_body_answer_a_bool(self):
        rng = random.Random(45)
        alphabet = "v1a, =+/k12\u0661\u0662\u00e9\x00\n" + SIGNED_BY_1[:8]
        names = ["Webhook-Id", "Webhook-Timestamp", "Webhook-Signature", "Webhook-Key-Id", "webhook-signature", "x"]
        values: list[object] = [None, 1780315200, ["v1a,x"], b"bytes", "\u0661\u0667\u0668\u0660", f"v1a,{SIGNED_BY_1}"]
        jwks = Jwks(KEY_1, KEY_2)
        for _ in range(500):
            headers: dict[object, object] = dict(delivery([SIGNED_BY_1], ["k1"]))
            for _ in range(rng.randint(1, 3)):
                name = rng.choice(names)
                headers[name] = rng.choice(values) if rng.random() < 0.3 else "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40)))
            if rng.random() < 0.05:
                headers[7] = "a key that is no string"
            body: object = rng.choice([BODY, BODY.decode(), 42, None, bytearray(BODY), "\ud800"])
            with self.subTest(headers=headers, body=body):
                answer = verify_webhook_with_jwks(body, headers, JWKS_URL, now=NOW, fetch=jwks)  # type: ignore[arg-type]
                self.assertIsInstance(answer, bool)
        for digits in ["\u0661\u0667\u0668\u0660\u0663\u0661\u0665\u0662\u0660\u0660"]:
            self.assertFalse(verify_webhook_with_jwks(BODY, {**delivery([SIGNED_BY_1], ["k1"]), "Webhook-Timestamp": digits}, JWKS_URL, now=NOW, fetch=jwks))
            self.assertFalse(verify_webhook(BODY, {"Webhook-Signature": f"t={digits},v1={'0' * 64}"}, "secret", now=NOW))


if __name__ == "__main__":
    unittest.main()
