"""The transport against scripted servers: what a real BMS never does, and what a client must survive."""
from __future__ import annotations

import asyncio
import logging
import os
import time
import unittest
from typing import List
from unittest import mock

import bms_sdk
from bms_sdk import AsyncBmsClient, BmsClient, async_raw_response, raw_response
from bms_sdk._errors import retry_after_delay

from .mock_server import MockServer, Reply, json_reply

KEY = "bms_" + "k" * 40
CLIENT = '{"data": {"id": "c1", "object": "client", "name": "Jane"}}'


class Scripted(unittest.TestCase):
    def serve(self, *script: Reply) -> MockServer:
        server = MockServer(list(script))
        self.addCleanup(server.close)
        return server

    def test_a_redirect_is_never_followed_and_the_key_never_leaves(self) -> None:
        elsewhere = self.serve(json_reply(200, '{"data": []}'))
        server = self.serve((301, {"Location": f"{elsewhere.url}/v1/clients"}, b"", 0.0))
        with self.assertRaises(bms_sdk.RedirectError) as raised:
            BmsClient(api_key=KEY, base_url=server.url).clients.create(name="Jane")
        self.assertEqual(raised.exception.status, 301)
        self.assertEqual(raised.exception.location, f"{elsewhere.url}/v1/clients")
        self.assertIn("does not follow", str(raised.exception))
        self.assertEqual([method for method, _, _ in server.requests], ["POST"], "not retried, not turned into a GET")
        self.assertEqual(elsewhere.requests, [], "the other origin never saw the request or the key")

    def test_a_200_that_is_not_json_is_an_invalid_response_error_with_the_body_kept(self) -> None:
        page = b"<html><body>" + b"Gateway says hello " * 500 + b"</body></html>"
        server = self.serve((200, {"Content-Type": "text/html"}, page, 0.0))
        with self.assertRaises(bms_sdk.InvalidResponseError) as raised:
            BmsClient(api_key=KEY, base_url=server.url).clients.get("c1")
        self.assertLess(len(str(raised.exception)), 200, "the page is not in the message")
        self.assertIn("text/html", str(raised.exception))
        self.assertEqual((raised.exception.body or "")[:12], "<html><body>")
        truncated = self.serve((200, {"Content-Type": "application/json"}, b'{"data": {"id": "c', 0.0))
        with self.assertRaises(bms_sdk.InvalidResponseError):
            BmsClient(api_key=KEY, base_url=truncated.url).clients.get("c1")

    def test_an_html_error_page_is_described_briefly(self) -> None:
        server = self.serve((502, {"Content-Type": "text/html"}, b"<html>" + b"x" * 5000 + b"</html>", 0.0))
        with self.assertRaises(bms_sdk.ServerError) as raised:
            BmsClient(api_key=KEY, base_url=server.url, max_retries=0).clients.get("c1")
        self.assertEqual((raised.exception.status, raised.exception.code), (502, "HTTP_502"))
        self.assertLess(len(raised.exception.message), 200)
        self.assertTrue((raised.exception.body or "").startswith("<html>"))

    def test_a_409_with_retry_after_is_retried_with_the_same_idempotency_key(self) -> None:
        busy = '{"error": {"code": "CONFLICT", "message": "still being processed"}, "meta": {}}'
        server = self.serve(json_reply(409, busy, {"Retry-After": "0"}), json_reply(201, CLIENT))
        self.assertEqual(BmsClient(api_key=KEY, base_url=server.url).clients.create(name="Jane")["id"], "c1")
        keys = [headers["idempotency-key"] for _, _, headers in server.requests]
        self.assertEqual(len(keys), 2)
        self.assertEqual(keys[0], keys[1])
        plain = self.serve(json_reply(409, '{"error": {"code": "CONFLICT", "message": "taken"}, "meta": {}}'))
        with self.assertRaises(bms_sdk.ConflictError):
            BmsClient(api_key=KEY, base_url=plain.url).clients.create(name="Jane")
        self.assertEqual(len(plain.requests), 1, "a 409 without Retry-After is final")

    def test_timeout_is_a_deadline_per_attempt_even_for_a_trickled_body(self) -> None:
        server = self.serve((200, {"Content-Type": "application/json"}, CLIENT.encode(), 0.2))
        started = time.monotonic()
        with self.assertRaises(bms_sdk.APITimeoutError) as raised:
            BmsClient(api_key=KEY, base_url=server.url, timeout=1.0, max_retries=0).clients.get("c1")
        self.assertLess(time.monotonic() - started, 2.0, "not a read timeout per byte")
        self.assertIsInstance(raised.exception, bms_sdk.APIConnectionError)
        self.assertEqual(raised.exception.code, "TIMEOUT")

    def test_connections_are_kept_alive(self) -> None:
        server = self.serve(json_reply(200, CLIENT))
        bms = BmsClient(api_key=KEY, base_url=server.url)
        for _ in range(20):
            bms.clients.get("c1")
        self.assertEqual(len(server.requests), 20)
        self.assertEqual(server.connections, 1)

    def test_per_call_and_with_options_retries(self) -> None:
        unavailable = json_reply(503, '{"error": {"code": "SERVICE_UNAVAILABLE", "message": "busy"}, "meta": {}}', {"Retry-After": "0"})
        server = self.serve(unavailable)
        bms = BmsClient(api_key=KEY, base_url=server.url, max_retries=3)
        with self.assertRaises(bms_sdk.ServerError):
            bms.clients.get("c1", max_retries=0)
        self.assertEqual(len(server.requests), 1)
        with self.assertRaises(bms_sdk.ServerError):
            bms.with_options(max_retries=1).clients.get("c1")
        self.assertEqual(len(server.requests), 3)

    def test_the_key_is_not_in_repr_and_env_gives_the_defaults(self) -> None:
        server = self.serve(json_reply(200, CLIENT))
        with mock.patch.dict(os.environ, {"BMS_API_KEY": KEY, "BMS_BASE_URL": server.url}):
            bms = BmsClient()
        self.assertNotIn(KEY, repr(bms))
        self.assertNotIn(KEY, repr(bms._transport))
        self.assertEqual(bms.clients.get("c1")["name"], "Jane")
        self.assertEqual(server.requests[0][2]["authorization"], f"Bearer {KEY}")

    def test_each_attempt_is_logged_without_the_key(self) -> None:
        server = self.serve(json_reply(503, '{"error": {"code": "SERVICE_UNAVAILABLE", "message": "busy"}, "meta": {}}', {"Retry-After": "0"}), json_reply(200, CLIENT))
        with self.assertLogs("bms_sdk", logging.DEBUG) as logs:
            BmsClient(api_key=KEY, base_url=server.url).clients.get("c1")
        self.assertEqual(len(logs.output), 2)
        self.assertIn("GET /v1/clients/c1 attempt 1: 503", logs.output[0])
        self.assertIn("attempt 2: 200", logs.output[1])
        self.assertFalse(any(KEY in line for line in logs.output))

    def test_list_filters_take_a_list(self) -> None:
        server = self.serve(json_reply(200, '{"data": [], "meta": {"pagination": {"has_more": false, "next_cursor": null}}}'))
        BmsClient(api_key=KEY, base_url=server.url).invoices.list(status=["sent", "paid"])
        self.assertEqual(server.requests[0][1], "/v1/invoices?status=sent%2Cpaid")

    def test_a_v1_suffix_of_base_url_is_dropped(self) -> None:
        server = self.serve(json_reply(200, CLIENT))
        with BmsClient(api_key=KEY, base_url=f"{server.url}/v1/") as bms:
            self.assertEqual(bms.clients.get("c1")["id"], "c1")
        self.assertEqual(server.requests[0][1], "/v1/clients/c1")

    def test_a_base_url_that_is_not_http_is_refused_at_once_not_retried(self) -> None:
        for bad in ["localhost:3000", "bms.example.com", "ftp://bms.example.com", "http://"]:
            for kind in (BmsClient, AsyncBmsClient):
                with self.assertRaises(ValueError, msg=f"{kind.__name__}({bad!r})") as raised:
                    kind(api_key=KEY, base_url=bad)
                self.assertIn("http", str(raised.exception))

    def test_retry_after_is_waited_with_up_to_ten_percent_of_jitter(self) -> None:
        from bms_sdk._transport import retry_after_with_jitter

        waits = [retry_after_with_jitter(2.0) for _ in range(50)]
        self.assertTrue(all(2.0 <= wait <= 2.2 for wait in waits), waits)
        self.assertGreater(len(set(waits)), 1)
        self.assertLessEqual(retry_after_with_jitter(60.0), 61.0)
        # And a retry waits that: Retry-After 2 with the largest jitter is 2.2 s.
        server = self.serve(json_reply(503, '{"error": {"code": "SERVICE_UNAVAILABLE", "message": "busy"}, "meta": {}}', {"Retry-After": "2"}), json_reply(200, CLIENT))
        with mock.patch("bms_sdk._transport.random.random", return_value=1.0), mock.patch("bms_sdk._transport.time.sleep") as slept:
            BmsClient(api_key=KEY, base_url=server.url).clients.get("c1")
        self.assertEqual([call.args[0] for call in slept.call_args_list], [2.2])

    def test_retry_after_as_an_http_date(self) -> None:
        error = bms_sdk.RateLimitError("slow down", status=429, code="RATE_LIMITED", headers={"retry-after": "Thu, 01 Jan 2099 00:00:00 GMT"})
        self.assertGreater(error.retry_after or 0, 86400)
        self.assertEqual(retry_after_delay("Thu, 01 Jan 1970 00:00:10 GMT", now=4.0), 6.0)


class EscapeHatches(unittest.TestCase):
    """Per-call headers and query parameters, a raw request method, and PDFs with If-None-Match."""

    def serve(self, *script: Reply) -> MockServer:
        server = MockServer(list(script))
        self.addCleanup(server.close)
        return server

    def test_extra_headers_and_query_per_call_but_never_another_key(self) -> None:
        server = self.serve(json_reply(200, CLIENT), json_reply(200, '{"data": [], "meta": {"pagination": {"has_more": false, "next_cursor": null}}}'))
        bms = BmsClient(api_key=KEY, base_url=server.url, max_retries=0)
        bms.clients.get("c1", extra_headers={"X-Trace": "t-1", "authorization": "Bearer stolen", "User-Agent": "mine/1"}, extra_query={"expand": "all"})
        _, path, headers = server.requests[0]
        self.assertEqual(path, "/v1/clients/c1?expand=all")
        self.assertEqual(headers["x-trace"], "t-1")
        self.assertEqual(headers["authorization"], f"Bearer {KEY}", "the key cannot be replaced")
        self.assertEqual(headers["user-agent"], "mine/1", "other headers can")
        bms.clients.list(q="jane", extra_query={"q": "ada", "beta": True})
        self.assertEqual(server.requests[1][1], "/v1/clients?q=ada&beta=true", "extra_query overrides the method's own")

    def test_request_sends_anything_with_the_clients_key_retries_and_errors(self) -> None:
        busy = json_reply(503, '{"error": {"code": "SERVICE_UNAVAILABLE", "message": "busy"}, "meta": {}}', {"Retry-After": "0"})
        server = self.serve(busy, json_reply(201, CLIENT), json_reply(404, '{"error": {"code": "NOT_FOUND", "message": "No such thing."}, "meta": {}}'))
        bms = BmsClient(api_key=KEY, base_url=server.url)
        created = raw_response(bms.request)("POST", "/v1/things", body={"name": "Jane"}, query={"dry_run": True}, extra_headers={"X-Trace": "t-2"})
        self.assertEqual((created.status, created.data["id"]), (201, "c1"))
        (method, path, first), (_, _, second) = server.requests[0], server.requests[1]
        self.assertEqual((method, path), ("POST", "/v1/things?dry_run=true"))
        self.assertEqual(first["idempotency-key"], second["idempotency-key"], "retried with the same key")
        self.assertEqual((second["authorization"], second["x-trace"]), (f"Bearer {KEY}", "t-2"))
        with self.assertRaises(bms_sdk.NotFoundError):
            bms.request("GET", "/v1/things/x")

    def test_a_pdf_with_if_none_match_answers_304_as_empty_bytes(self) -> None:
        pdf = (200, {"Content-Type": "application/pdf", "ETag": '"pdf-1"'}, b"%PDF-1.7 ...", 0.0)
        server = self.serve(pdf, (304, {"ETag": '"pdf-1"'}, b"", 0.0))
        bms = BmsClient(api_key=KEY, base_url=server.url, max_retries=0)
        first = raw_response(bms.invoices.get_pdf)("i1")
        self.assertEqual((first.status, first.etag, first.data[:5]), (200, '"pdf-1"', b"%PDF-"))
        again = raw_response(bms.invoices.get_pdf)("i1", if_none_match=first.etag)
        self.assertEqual(server.requests[1][2]["if-none-match"], '"pdf-1"')
        self.assertEqual((again.status, again.etag, again.data), (304, '"pdf-1"', b""))
        self.assertEqual(bms.quotes.get_pdf("q1", if_none_match='"pdf-1"'), b"", "without raw_response: the empty bytes")

    def test_a_304_nobody_asked_for_says_so_not_a_redirect_to_nowhere(self) -> None:
        server = self.serve((304, {}, b"", 0.0))
        with self.assertRaises(bms_sdk.BmsError) as raised:
            BmsClient(api_key=KEY, base_url=server.url).clients.get("c1")
        self.assertEqual((raised.exception.status, raised.exception.code), (304, "HTTP_304"))
        self.assertNotIn("nowhere", str(raised.exception))
        self.assertIn("304 Not Modified", str(raised.exception))

    def test_the_sdks_http_codes_are_every_http_status_from_300_to_599(self) -> None:
        import http
        from typing import get_args

        from bms_sdk import HttpErrorCode

        self.assertEqual(set(get_args(HttpErrorCode)), {f"HTTP_{status.value}" for status in http.HTTPStatus if 300 <= status.value < 600})


class AsyncEscapeHatches(unittest.IsolatedAsyncioTestCase):
    async def test_request_headers_query_and_a_304_pdf(self) -> None:
        server = MockServer([json_reply(200, CLIENT), (304, {"ETag": '"pdf-1"'}, b"", 0.0)])
        self.addCleanup(server.close)
        async with AsyncBmsClient(api_key=KEY, base_url=server.url, max_retries=0) as bms:
            answer = await async_raw_response(bms.request)("GET", "/v1/clients/c1", query={"expand": "all"}, extra_headers={"X-Trace": "t-3"})
            self.assertEqual((answer.status, answer.data["name"]), (200, "Jane"))
            self.assertEqual(server.requests[0][1], "/v1/clients/c1?expand=all")
            self.assertEqual(server.requests[0][2]["x-trace"], "t-3")
            again = await async_raw_response(bms.invoices.get_pdf)("i1", if_none_match='"pdf-1"', extra_headers={"X-Trace": "t-4"})
            self.assertEqual((again.status, again.data), (304, b""))


#: Every way an asyncio program ends with a client: left unclosed, used under two event loops one after the
#: other, dropped while its loop runs, and closed by ``async with`` (the README's way).
UNCLOSED = """
import asyncio, gc, sys
sys.path.insert(0, "tests")
from mock_server import MockServer, json_reply
from bms_sdk import AsyncBmsClient, BmsClient
server = MockServer([json_reply(200, '{"data": {"id": "c1", "object": "client", "name": "Jane"}}')])
KEY = "bms_" + "k" * 40
shared = AsyncBmsClient(api_key=KEY, base_url=server.url)

async def unclosed() -> None:
    print((await shared.clients.get("c1"))["name"])

async def dropped() -> None:
    bms = AsyncBmsClient(api_key=KEY, base_url=server.url)
    await bms.clients.get("c1")
    del bms
    gc.collect()
    await asyncio.sleep(0.05)

async def closed() -> None:
    async with AsyncBmsClient(api_key=KEY, base_url=server.url) as bms:
        await bms.clients.get("c1")

asyncio.run(unclosed())
asyncio.run(unclosed())
asyncio.run(dropped())
asyncio.run(closed())
BmsClient(api_key=KEY, base_url=server.url).clients.get("c1")
gc.collect()
print("done")
"""


class Unclosed(unittest.TestCase):
    def test_an_async_client_never_closed_leaves_no_resource_warning(self) -> None:
        import subprocess
        import sys
        from pathlib import Path

        root = Path(__file__).resolve().parent.parent
        env = {**os.environ, "PYTHONPATH": str(root), "PYTHONDONTWRITEBYTECODE": "1"}
        result = subprocess.run([sys.executable, "-X", "dev", "-W", "default", "-c", UNCLOSED], cwd=root, env=env, capture_output=True, text=True, timeout=60)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stdout.split(), ["Jane", "Jane", "done"])
        self.assertNotIn("ResourceWarning", result.stderr)
        self.assertNotIn("Error", result.stderr)


class AsyncScripted(unittest.IsolatedAsyncioTestCase):
    async def test_the_async_client_keeps_alive_times_out_and_refuses_redirects(self) -> None:
        server = MockServer([json_reply(200, CLIENT)])
        self.addCleanup(server.close)
        async with AsyncBmsClient(api_key=KEY, base_url=server.url) as bms:
            names = await asyncio.gather(*(bms.clients.get("c1") for _ in range(5)))
            self.assertEqual([each["name"] for each in names], ["Jane"] * 5)
            for _ in range(5):
                await bms.clients.get("c1")
            self.assertLessEqual(server.connections, 5, "sequential calls reuse a connection")
        slow = MockServer([(200, {"Content-Type": "application/json"}, CLIENT.encode(), 0.2)])
        self.addCleanup(slow.close)
        started = time.monotonic()
        with self.assertRaises(bms_sdk.APITimeoutError):
            await AsyncBmsClient(api_key=KEY, base_url=slow.url, timeout=1.0, max_retries=0).clients.get("c1")
        self.assertLess(time.monotonic() - started, 2.0)
        moved = MockServer([(308, {"Location": "http://127.0.0.1:9/"}, b"", 0.0)])
        self.addCleanup(moved.close)
        with self.assertRaises(bms_sdk.RedirectError):
            await AsyncBmsClient(api_key=KEY, base_url=moved.url).clients.delete("c1")


if __name__ == "__main__":
    unittest.main()
