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
from bms_sdk import AsyncBmsClient, BmsClient, raw_response
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

    def test_retry_after_is_waited_with_up_to_ten_percent_of_jitter(self) -> None:
        from bms_sdk._transport import retry_after_with_jitter

        waits = [retry_after_with_jitter(2.0) for _ in range(50)]
        self.assertTrue(all(2.0 <= wait <= 2.2 for wait in waits), waits)
        self.assertGreater(len(set(waits)), 1)
        self.assertLessEqual(retry_after_with_jitter(60.0), 61.0)

    def test_retry_after_as_an_http_date(self) -> None:
        error = bms_sdk.RateLimitError("slow down", status=429, code="RATE_LIMITED", headers={"retry-after": "Thu, 01 Jan 2099 00:00:00 GMT"})
        self.assertGreater(error.retry_after or 0, 86400)
        self.assertEqual(retry_after_delay("Thu, 01 Jan 1970 00:00:10 GMT", now=4.0), 6.0)


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
