"""The client against a real local gateway (HOOKGATE_URL), and verify_webhook against its real deliveries.

`npm test` boots the gateway and runs these (test/integration/python-client.test.ts); without
HOOKGATE_URL they are skipped, and that test fails on any skip.
"""

import http.server
import urllib.request
import json
import os
import socket
import threading
import time
import unittest
import uuid

from hookgate import Hookgate, HookgateError, verify_webhook, verify_webhook_with_jwks

GATEWAY_URL = os.environ.get("HOOKGATE_URL")


class Sink:
    """A local destination that records every delivery and answers 200."""

    def __init__(self) -> None:
        self.received: list[tuple[str, dict[str, str], bytes]] = []
        self._arrived = threading.Condition()
        sink = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("content-length") or 0))
                self.send_response(200)
                self.end_headers()
                with sink._arrived:
                    sink.received.append((self.path, {k.lower(): v for k, v in self.headers.items()}, body))
                    sink._arrived.notify_all()

            def log_message(self, *args: object) -> None:
                pass

        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    def wait_for(self, path: str, timeout: float = 20.0) -> tuple[dict[str, str], bytes]:
        with self._arrived:
            found = self._arrived.wait_for(lambda: [r for r in self.received if r[0] == path], timeout)
        if not found:
            raise AssertionError(f"no delivery to {path} within {timeout} s")
        _, headers, body = found[0]
        return headers, body

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()


def eventually(read, done, timeout: float = 20.0):
    deadline = time.monotonic() + timeout
    while True:
        value = read()
        if done(value) or time.monotonic() > deadline:
            return value
        time.sleep(0.2)


class WithoutAnAnswer(unittest.TestCase):
    """A gateway that cannot be reached raises HookgateError with status 0, not urllib's URLError."""

    @classmethod
    def setUpClass(cls) -> None:
        closed = socket.create_server(("127.0.0.1", 0))
        cls.closed_url = f"http://127.0.0.1:{closed.getsockname()[1]}"
        closed.close()
        # Accepts connections and never answers.
        cls.silent = socket.create_server(("127.0.0.1", 0))
        cls.silent_url = f"http://127.0.0.1:{cls.silent.getsockname()[1]}"
        # Reads the request, then hangs up halfway through an answer.
        cls.cutting = socket.create_server(("127.0.0.1", 0))
        cls.cutting_url = f"http://127.0.0.1:{cls.cutting.getsockname()[1]}"

        def cut() -> None:
            while True:
                try:
                    connection, _ = cls.cutting.accept()
                except OSError:
                    return
                with connection:
                    connection.recv(65536)
                    connection.sendall(b'HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\n{"data":')

        threading.Thread(target=cut, daemon=True).start()

    @classmethod
    def tearDownClass(cls) -> None:
        cls.silent.close()
        cls.cutting.close()

    def test_raises_hookgate_error_with_status_0_naming_the_url_and_the_cause(self):
        cases = [
            ("a refused connection", lambda: Hookgate(self.closed_url), rf"^cannot reach {self.closed_url}/v1/account: Connection refused$"),
            ("a host that does not resolve", lambda: Hookgate("http://gateway.hookgate.invalid"), r"^cannot reach http://gateway\.hookgate\.invalid/v1/account: \S"),
            ("no answer in time", lambda: Hookgate(self.silent_url, timeout=0.2), rf"^cannot reach {self.silent_url}/v1/account: no answer within 0\.2 s$"),
            ("an answer cut short", lambda: Hookgate(self.cutting_url), rf"^cannot reach {self.cutting_url}/v1/account: \S"),
            ("the timeout kept by with_api_key", lambda: Hookgate(self.silent_url, timeout=0.1).with_api_key("hk_x"), r"no answer within 0\.1 s$"),
        ]
        for name, client, message in cases:
            with self.subTest(name), self.assertRaises(HookgateError) as raised:
                client().account.get()
            error = raised.exception
            self.assertEqual((error.status, error.body), (0, None), name)
            self.assertRegex(error.message, message)
            self.assertEqual(str(error), error.message)
            self.assertIsInstance(error.__cause__, Exception)


@unittest.skipUnless(GATEWAY_URL, "HOOKGATE_URL is not set: run through npm test")
class AgainstTheGateway(unittest.TestCase):
    @classmethod
    def setUpClass(cls) -> None:
        created = Hookgate(GATEWAY_URL).accounts.create({"name": "Python client"})
        cls.account = created["account"]
        cls.hookgate = Hookgate(GATEWAY_URL, created["api_key"]["key"])
        cls.sink = Sink()

    @classmethod
    def tearDownClass(cls) -> None:
        cls.sink.close()

    def test_creates_an_account_whose_key_works(self):
        self.assertEqual(self.account["name"], "Python client")
        self.assertEqual(self.hookgate.account.get()["id"], self.account["id"])

    def test_publishes_to_a_routed_destination_whose_delivery_verifies(self):
        destination = self.hookgate.destinations.create({"name": "py", "url": f"{self.sink.url}/hookgate"})
        self.assertIn(destination["id"], [d["id"] for d in self.hookgate.destinations.list()])
        route = self.hookgate.routes.create({"destination_id": destination["id"], "event_type_pattern": "py.hookgate"})
        self.assertEqual(self.hookgate.routes.get(route["id"])["event_type_pattern"], "py.hookgate")

        published = self.hookgate.outbound_events.publish({"payload": {"invoice": "in_1"}, "event_type": "py.hookgate"})
        self.assertEqual(published["status"], "queued")
        headers, body = self.sink.wait_for("/hookgate")
        self.assertEqual(body, b'{"invoice":"in_1"}')
        self.assertEqual(headers["x-hookgate-event-id"], published["id"])
        secret = destination["signing_secret"]
        self.assertTrue(verify_webhook(body, headers, secret))
        self.assertFalse(verify_webhook(body, headers, secret + "x"))
        self.assertFalse(verify_webhook(body.replace(b"in_1", b"in_2"), headers, secret))
        self.assertFalse(verify_webhook(body, headers, secret, now=time.time() + 301))

        detail = eventually(lambda: self.hookgate.outbound_events.get(published["id"]), lambda d: d["event"]["status"] == "delivered")
        self.assertEqual(detail["event"]["status"], "delivered")
        self.assertEqual(detail["event"]["body"], '{"invoice":"in_1"}')
        self.assertEqual([a["outcome"] for a in detail["attempts"]], ["success"])

        page = self.hookgate.outbound_events.list(event_type="py.hookgate", limit=10)
        self.assertEqual([e["id"] for e in page.data], [published["id"]])
        self.assertIsNone(page.next_cursor)

    def test_publishes_with_an_ordering_key_to_a_per_key_destination(self):
        destination = self.hookgate.destinations.create({"name": "py-ordered", "url": f"{self.sink.url}/ordered", "ordering": "per_key"})
        self.assertEqual(destination["ordering"], "per_key")
        self.hookgate.routes.create({"destination_id": destination["id"], "event_type_pattern": "py.ordered"})
        published = self.hookgate.outbound_events.publish({"payload": {"n": 1}, "event_type": "py.ordered", "ordering_key": "py-key"})
        self.sink.wait_for("/ordered")
        detail = eventually(lambda: self.hookgate.outbound_events.get(published["id"]), lambda d: d["event"]["status"] == "delivered")
        self.assertEqual((detail["event"]["status"], detail["event"]["ordering_key"]), ("delivered", "py-key"))

    def test_signs_standard_webhooks_deliveries_that_verify(self):
        destination = self.hookgate.destinations.create(
            {"name": "py-standard", "url": f"{self.sink.url}/standard", "signature_scheme": "standard_webhooks"}
        )
        self.hookgate.routes.create({"destination_id": destination["id"], "event_type_pattern": "py.standard"})
        published = self.hookgate.outbound_events.publish({"payload": '{"n":1}', "event_type": "py.standard"})
        headers, body = self.sink.wait_for("/standard")
        self.assertEqual(headers["webhook-id"], published["id"])
        secret = destination["signing_secret"]
        verify = lambda b, h, s=secret, **kw: verify_webhook(b, h, s, scheme="standard_webhooks", **kw)
        self.assertTrue(verify(body, headers))
        self.assertFalse(verify(body, headers, "whsec_" + "A" * 43 + "="))
        self.assertFalse(verify(body + b" ", headers))
        self.assertFalse(verify(body, headers, now=time.time() + 301))
        self.assertFalse(verify_webhook(body, headers, secret))

    def test_signs_ed25519_deliveries_that_verify_with_the_jwks_across_a_rotation(self):
        jwks_url = self.hookgate.account.get()["jwks_url"]
        self.assertEqual(jwks_url, f"{GATEWAY_URL}/.well-known/jwks/{self.account['id']}.json")
        destination = self.hookgate.destinations.create(
            {"name": "py-ed25519", "url": f"{self.sink.url}/ed25519", "signature_scheme": "ed25519"}
        )
        self.hookgate.routes.create({"destination_id": destination["id"], "event_type_pattern": "py.ed25519"})
        self.hookgate.outbound_events.publish({"payload": '{"n":1}', "event_type": "py.ed25519"})
        headers, body = self.sink.wait_for("/ed25519")
        self.assertTrue(headers["webhook-signature"].startswith("v1a,"))
        self.assertTrue(verify_webhook_with_jwks(body, headers, jwks_url))
        self.assertFalse(verify_webhook_with_jwks(body + b" ", headers, jwks_url))
        self.assertFalse(verify_webhook_with_jwks(body, headers, jwks_url, now=time.time() + 301))

        rotated = self.hookgate.signing_keys.rotate()
        self.assertEqual([k["kid"] for k in rotated["keys"]][1], headers["webhook-key-id"])
        self.assertEqual(set(rotated["keys"][0]), {"kid", "x", "created_at", "retires_at"})
        self.hookgate.outbound_events.publish({"payload": '{"n":2}', "event_type": "py.ed25519"})
        second = eventually(lambda: [r for r in self.sink.received if r[0] == "/ed25519"], lambda found: len(found) == 2)[1]
        _, headers, body = second
        self.assertEqual(headers["webhook-key-id"], " ".join(k["kid"] for k in rotated["keys"]))
        # The cached JWKS lacks the new key: the verifier fetches it again.
        self.assertTrue(verify_webhook_with_jwks(body, headers, jwks_url))

    def test_lists_pages_and_gets_inbound_events(self):
        source = self.hookgate.sources.create({"name": "py-provider"})
        ids = []
        for n in range(3):
            request = urllib.request.Request(
                source["ingest_url"], data=json.dumps({"n": n}).encode(), headers={"content-type": "application/json"}, method="POST"
            )
            with urllib.request.urlopen(request) as answer:
                self.assertEqual(answer.status, 202)
                ids.append(json.loads(answer.read())["data"]["id"])
        first = self.hookgate.events.list(source_id=source["id"], limit=2)
        self.assertEqual(len(first.data), 2)
        self.assertIsInstance(first.next_cursor, str)
        self.assertEqual(sorted(e["id"] for e in self.hookgate.events.all(source_id=source["id"], limit=2)), sorted(ids))
        detail = self.hookgate.events.get(ids[0])
        self.assertEqual(detail["event"]["body"], '{"n": 0}')
        self.assertEqual(detail["event"]["source_id"], source["id"])

    def test_erases_a_data_subject_and_keeps_the_tombstone(self):
        published = self.hookgate.outbound_events.publish({"payload": {"email": "py-erased@example.com"}, "subject": "py-user-1"})
        kept = self.hookgate.outbound_events.publish({"payload": {"email": "py-kept@example.com"}, "subject": "py-user-2"})
        started = self.hookgate.erasures.create("py-user-1")
        self.assertEqual(started["status"], "running")
        done = eventually(lambda: self.hookgate.erasures.get(started["id"]), lambda e: e["status"] == "done")
        self.assertEqual((done["events"], done["request_bodies"]), (1, 1))
        erased = self.hookgate.outbound_events.get(published["id"])["event"]
        self.assertEqual((erased["payload_erased"], erased["body"], erased["payload_hash"]), (True, None, None))
        with self.assertRaises(HookgateError) as refused:
            self.hookgate.outbound_events.replay(published["id"])
        self.assertEqual((refused.exception.status, refused.exception.message), (409, "payload erased"))
        self.assertEqual(self.hookgate.outbound_events.get(kept["id"])["event"]["body"], '{"email":"py-kept@example.com"}')

    def test_proves_a_destinations_endpoint_with_the_challenge_it_received(self):
        destination = self.hookgate.destinations.create({"name": "py-proving", "url": f"{self.sink.url}/proving", "verify_ownership": True})
        self.assertEqual(destination["status"], "pending_verification")
        headers, body = self.sink.wait_for("/proving")
        self.assertTrue(verify_webhook(body, headers, destination["signing_secret"]))
        challenge = json.loads(body)["challenge"]
        self.assertNotIn(challenge, json.dumps(self.hookgate.destinations.get(destination["id"])))
        with self.assertRaises(HookgateError) as wrong:
            self.hookgate.destinations.verify(destination["id"], "not-the-challenge")
        self.assertEqual((wrong.exception.status, wrong.exception.message), (400, "challenge does not match the one last sent to the endpoint"))
        self.assertEqual(self.hookgate.destinations.verify(destination["id"], challenge)["status"], "active")
        with self.assertRaises(HookgateError) as done:
            self.hookgate.destinations.resend_verification(destination["id"])
        self.assertEqual(done.exception.message, "the destination is not waiting for verification")

    def test_raises_hookgate_error_with_the_status_and_exact_message(self):
        with self.assertRaises(HookgateError) as anonymous:
            Hookgate(GATEWAY_URL).sources.list()
        self.assertEqual((anonymous.exception.status, anonymous.exception.message), (401, "Unauthorized"))
        with self.assertRaises(HookgateError) as invalid:
            self.hookgate.routes.create({"destination_id": "nope"})
        self.assertEqual((invalid.exception.status, str(invalid.exception)), (400, "invalid destination_id"))
        with self.assertRaises(HookgateError) as missing:
            self.hookgate.events.get(str(uuid.uuid4()))
        self.assertEqual(missing.exception.status, 404)
        self.assertEqual(missing.exception.message, "Not found")
        self.assertEqual(missing.exception.body["error"], "Not found")
        with self.assertRaises(TypeError):
            self.hookgate.request("getEvent")


    def test_aws_connections_and_listen_sessions(self):
        connection = self.hookgate.aws_connections.create({"aws_account_id": "123456789012"})
        self.assertTrue(connection["external_id"].startswith("hookgate-"))
        self.assertEqual(self.hookgate.aws_connections.get(connection["id"])["id"], connection["id"])
        self.assertIn(connection["id"], [c["id"] for c in self.hookgate.aws_connections.list()])
        self.assertIn("Resources", self.hookgate.aws_connections.template(connection["id"]))
        self.hookgate.aws_connections.delete(connection["id"])
        with self.assertRaises(HookgateError) as gone:
            self.hookgate.aws_connections.get(connection["id"])
        self.assertEqual(gone.exception.status, 404)

        session = self.hookgate.listen_sessions.open({"session_id": "python-client-1", "event_type_pattern": "invoice.*"})
        self.assertFalse(session["resumed"])
        self.assertTrue(self.hookgate.listen_sessions.open({"session_id": "python-client-1", "event_type_pattern": "invoice.*"})["resumed"])
        self.hookgate.listen_sessions.close("python-client-1")
        with self.assertRaises(HookgateError) as closed:
            self.hookgate.listen_sessions.close("python-client-1")
        self.assertEqual(closed.exception.status, 404)


if __name__ == "__main__":
    unittest.main()
