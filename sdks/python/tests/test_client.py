"""The Python SDK against a real BMS server, started by the repository's test harness (``npm test``),
which passes its address and keys in the environment."""
from __future__ import annotations

import asyncio
import os
import time
import unittest
from typing import List

import bms_sdk
from bms_sdk import AsyncBmsClient, BmsClient, async_raw_response, raw_response
from bms_sdk._transport import backoff_delay, retry_after_delay

from .flaky_proxy import FlakyProxy

BASE_URL = os.environ.get("BMS_BASE_URL", "")
API_KEY = os.environ.get("BMS_API_KEY", "")


OAUTH_CLIENT_ID = os.environ.get("BMS_OAUTH_CLIENT_ID", "")


@unittest.skipUnless(BASE_URL and OAUTH_CLIENT_ID, "needs a running server and an app's install: BMS_OAUTH_*")
class AppTokens(unittest.TestCase):
    def test_a_client_built_with_a_refresh_token_renews_it_and_hands_each_pair_to_on_tokens(self) -> None:
        pairs: List[bms_sdk.OAuthTokens] = []
        oauth = bms_sdk.OAuth(
            client_id=OAUTH_CLIENT_ID,
            client_secret=os.environ["BMS_OAUTH_CLIENT_SECRET"],
            refresh_token=os.environ["BMS_OAUTH_REFRESH_TOKEN"],
            on_tokens=pairs.append,
        )
        bms = BmsClient(base_url=BASE_URL, oauth=oauth)
        self.assertEqual(bms.clients.create(name="Made by an app")["name"], "Made by an app")
        self.assertEqual(len(pairs), 1)
        self.assertTrue(pairs[0].refresh_token.startswith("bmsrt_"))
        self.assertNotEqual(pairs[0].refresh_token, os.environ["BMS_OAUTH_REFRESH_TOKEN"])
        bms.clients.list()
        self.assertEqual(len(pairs), 1)
        self.assertNotIn("bmsrt_", repr(oauth) + repr(pairs[0]))
        # The newest refresh token works for a new client.
        fresh = BmsClient(base_url=BASE_URL, oauth=bms_sdk.OAuth(
            client_id=OAUTH_CLIENT_ID, client_secret=os.environ["BMS_OAUTH_CLIENT_SECRET"], refresh_token=pairs[0].refresh_token
        ))
        fresh.clients.list()


ASYNC_OAUTH_CLIENT_ID = os.environ.get("BMS_OAUTH_ASYNC_CLIENT_ID", "")


@unittest.skipUnless(BASE_URL and ASYNC_OAUTH_CLIENT_ID, "needs a running server and an app's install: BMS_OAUTH_ASYNC_*")
class AsyncAppTokens(unittest.IsolatedAsyncioTestCase):
    async def test_an_async_client_built_with_a_refresh_token_renews_it_and_hands_each_pair_to_on_tokens(self) -> None:
        pairs: List[bms_sdk.OAuthTokens] = []

        async def store(tokens: bms_sdk.OAuthTokens) -> None:
            pairs.append(tokens)

        secret = os.environ["BMS_OAUTH_ASYNC_CLIENT_SECRET"]
        first = os.environ["BMS_OAUTH_ASYNC_REFRESH_TOKEN"]
        oauth = bms_sdk.OAuth(client_id=ASYNC_OAUTH_CLIENT_ID, client_secret=secret, refresh_token=first, on_tokens=store)
        async with AsyncBmsClient(base_url=BASE_URL, oauth=oauth) as bms:
            # Tasks at once share one renewal.
            made, _listed = await asyncio.gather(bms.clients.create(name="Made by an async app"), bms.clients.list())
            self.assertEqual(made["name"], "Made by an async app")
            self.assertEqual(len(pairs), 1)
            self.assertTrue(pairs[0].refresh_token.startswith("bmsrt_"))
            self.assertNotEqual(pairs[0].refresh_token, first)
            await bms.clients.list()
            self.assertEqual(len(pairs), 1)
            self.assertNotIn("bmsrt_", repr(oauth) + repr(pairs[0]) + repr(bms))
        # A plain function works too, and the newest refresh token is the one that works.
        plain: List[bms_sdk.OAuthTokens] = []
        renewed = bms_sdk.OAuth(
            client_id=ASYNC_OAUTH_CLIENT_ID, client_secret=secret, refresh_token=pairs[0].refresh_token, on_tokens=plain.append
        )
        async with AsyncBmsClient(base_url=BASE_URL, oauth=renewed) as fresh:
            await fresh.clients.list()
        self.assertEqual(len(plain), 1)

    async def test_a_refused_refresh_token_is_an_authentication_error(self) -> None:
        oauth = bms_sdk.OAuth(client_id=ASYNC_OAUTH_CLIENT_ID, refresh_token="bmsrt_" + "x" * 40, client_secret="nope")
        async with AsyncBmsClient(base_url=BASE_URL, oauth=oauth) as bms:
            with self.assertRaises(bms_sdk.AuthenticationError):
                await bms.clients.list()


@unittest.skipUnless(BASE_URL and API_KEY, "needs a running server: BMS_BASE_URL and BMS_API_KEY")
class AgainstServer(unittest.TestCase):
    def setUp(self) -> None:
        self.bms = BmsClient(api_key=API_KEY, base_url=BASE_URL)

    def test_import_csv_uploads_a_file_and_waits_for_the_import_to_end(self) -> None:
        csv = "name,external_id\r\nPython Import,PY-1\r\n"
        ended = self.bms.import_csv("client", csv, poll_interval=0.05)
        self.assertEqual(ended["status"], "completed")
        self.assertEqual(ended["counts"]["created"], 1)
        self.assertEqual(self.bms.clients.list(external_id="PY-1").data[0]["name"], "Python Import")

    def test_async_import_csv(self) -> None:
        async def main() -> None:
            async with AsyncBmsClient(api_key=API_KEY, base_url=BASE_URL) as bms:
                ended = await bms.import_csv("client", "name\r\nAsync Import\r\n", dry_run=True, poll_interval=0.05)
                self.assertEqual(ended["status"], "completed")
                self.assertTrue(ended["dry_run"])
                self.assertEqual(ended["counts"]["created"], 1)

        asyncio.run(main())

    def test_every_endpoint_from_request_to_sent_invoice(self) -> None:
        bms = self.bms
        created = raw_response(bms.clients.create)(name="Jane Cooper", email="jane@example.com", address={"city": "Springfield"})
        client = created.data
        self.assertEqual(client["object"], "client")
        self.assertEqual((client["address"] or {}).get("city"), "Springfield")
        self.assertEqual(created.status, 201)
        self.assertTrue((created.request_id or "").startswith("req_"))
        self.assertEqual(bms.clients.get(client["id"])["name"], "Jane Cooper")
        self.assertEqual(bms.clients.update(client["id"], phone="+1 555 0100")["phone"], "+1 555 0100")
        self.assertEqual(bms.clients.update(client["id"], phone=None)["phone"], None)
        self.assertIn(client["id"], [c["id"] for c in bms.clients.list(q="Jane Cooper").data])

        request = bms.service_requests.create(client_id=client["id"], title="Leaking tap", source="phone")
        self.assertEqual(bms.service_requests.get(request["id"])["title"], "Leaking tap")
        self.assertEqual(bms.service_requests.update(request["id"], status="assessed")["status"], "assessed")
        self.assertIn(request["id"], [r["id"] for r in bms.service_requests.list(client_id=client["id"]).data])

        lines: List[bms_sdk.QuoteLineItemParams] = [
            {"description": "Replace faucet", "quantity": 1.5, "unit_amount": 12000, "tax_rate": 8.875}
        ]
        quote = bms.quotes.create(client_id=client["id"], request_id=request["id"], line_items=lines)
        self.assertEqual(quote["total_amount"], 19598)
        self.assertEqual(bms.quotes.get(quote["id"])["status"], "draft")
        sent_quote = bms.quotes.send(quote["id"], message="As discussed.")
        self.assertEqual(sent_quote["status"], "sent")
        self.assertTrue((sent_quote["number"] or "").startswith("Q-"))
        self.assertEqual(bms.quotes.update(quote["id"], status="approved")["status"], "approved")
        self.assertEqual(len(bms.quotes.list(client_id=client["id"]).data), 1)
        spare = bms.quotes.create(client_id=client["id"])
        self.assertEqual(bms.quotes.delete(spare["id"]), {"id": spare["id"], "deleted": True})

        job = bms.jobs.create(quote_id=quote["id"])
        self.assertEqual(job["total_amount"], 19598)
        self.assertEqual(bms.jobs.get(job["id"])["status"], "scheduled")
        self.assertEqual(bms.jobs.update(job["id"], status="completed")["status"], "completed")
        self.assertIn(job["id"], [j["id"] for j in bms.jobs.list(client_id=client["id"], status="completed").data])
        spare_job = bms.jobs.create(client_id=client["id"], title="Spare")
        self.assertTrue(bms.jobs.delete(spare_job["id"])["deleted"])

        invoice = bms.invoices.create(job_id=job["id"])
        self.assertEqual(invoice["amount_due"], 19598)
        self.assertEqual(bms.invoices.get(invoice["id"])["status"], "draft")
        self.assertEqual(bms.invoices.update(invoice["id"], notes="Thanks!")["notes"], "Thanks!")
        sent = bms.invoices.send(invoice["id"])
        self.assertEqual(sent["status"], "sent")
        self.assertTrue((sent["number"] or "").startswith("INV-"))
        self.assertEqual([i["id"] for i in bms.invoices.list(client_id=client["id"], status="sent").data], [invoice["id"]])
        spare_invoice = bms.invoices.create(client_id=client["id"])
        self.assertTrue(bms.invoices.delete(spare_invoice["id"])["deleted"])

        deposit = bms.payments.create(invoice_id=invoice["id"], amount=5000, method="bank_transfer", reference="PY-DEP-1")
        self.assertEqual(bms.invoices.get(invoice["id"])["amount_due"], 14598)
        self.assertEqual(bms.payments.get(deposit["id"])["reference"], "PY-DEP-1")
        self.assertEqual(bms.payments.update(deposit["id"], notes="Deposit")["notes"], "Deposit")
        refunded = bms.payments.refund(deposit["id"], amount=1000, reason="Goodwill")
        self.assertEqual([refunded["amount_refunded"], len(refunded["refunds"])], [1000, 1])
        self.assertEqual([p["id"] for p in bms.payments.list(invoice_id=invoice["id"]).data], [deposit["id"]])
        with self.assertRaises(bms_sdk.ConflictError):
            bms.payments.create(invoice_id=invoice["id"], amount=1, method="cash", reference="PY-DEP-1")

        loner = bms.clients.create(name="Gone Soon")
        self.assertTrue(bms.clients.delete(loner["id"])["deleted"])
        with self.assertRaises(bms_sdk.NotFoundError):
            bms.clients.get(loner["id"])

    def test_list_returns_the_first_page_and_iterates_every_page(self) -> None:
        tag = f"paging-{time.time_ns()}"
        created = [self.bms.clients.create(name=f"{tag} {i}")["id"] for i in range(7)]
        first = self.bms.clients.list(q=tag, limit=3, sort="created_at")
        self.assertEqual([c["id"] for c in first.data], created[:3])
        self.assertTrue(first.has_more)
        second = first.next_page()
        assert second is not None
        self.assertEqual([c["id"] for c in second.data], created[3:6])
        self.assertEqual([c["id"] for c in self.bms.clients.list(q=tag, limit=3, sort="created_at")], created)

    def test_validation_error_has_status_code_details_and_request_id(self) -> None:
        with self.assertRaises(bms_sdk.ValidationError) as raised:
            self.bms.clients.create(name="", email="not-an-email")
        error = raised.exception
        self.assertEqual(error.status, 422)
        self.assertEqual(error.code, "VALIDATION_ERROR")
        self.assertEqual(sorted(detail["field"] for detail in error.details), ["email", "name"])
        self.assertTrue((error.request_id or "").startswith("req_"))
        self.assertIsInstance(error, bms_sdk.InvalidRequestError)

    def test_error_kinds(self) -> None:
        with self.assertRaises(bms_sdk.AuthenticationError) as unknown:
            BmsClient(api_key="bms_" + "x" * 40, base_url=BASE_URL).clients.list()
        self.assertEqual(unknown.exception.status, 401)
        read_only = os.environ.get("BMS_READ_ONLY_API_KEY", "")
        with self.assertRaises(bms_sdk.PermissionDeniedError) as denied:
            BmsClient(api_key=read_only, base_url=BASE_URL).clients.create(name="X")
        self.assertEqual(denied.exception.code, "INSUFFICIENT_SCOPE")

        created = raw_response(self.bms.clients.create)(name="Stale")
        client, etag = created.data, created.etag
        self.bms.clients.update(client["id"], phone="1")
        with self.assertRaises(bms_sdk.PreconditionFailedError):
            self.bms.clients.update(client["id"], phone="2", if_match=etag)
        fresh = raw_response(self.bms.clients.get)(client["id"]).etag
        self.assertEqual(self.bms.clients.update(client["id"], phone="3", if_match=fresh)["phone"], "3")

        invoice = self.bms.invoices.create(client_id=client["id"])
        with self.assertRaises(bms_sdk.InvalidStateError) as state:
            self.bms.invoices.update(invoice["id"], status="paid")
        self.assertEqual(state.exception.status, 409)
        self.assertIsInstance(state.exception, bms_sdk.ConflictError)

    def test_429_is_retried_after_retry_after(self) -> None:
        limited = os.environ.get("BMS_LIMITED_API_KEY", "")
        BmsClient(api_key=limited, base_url=BASE_URL).clients.list(limit=1)
        with self.assertRaises(bms_sdk.RateLimitError) as raised:
            BmsClient(api_key=limited, base_url=BASE_URL, max_retries=0).clients.list(limit=1)
        self.assertEqual(raised.exception.retry_after, 1.0)
        started = time.monotonic()
        patient = BmsClient(api_key=limited, base_url=BASE_URL)
        self.assertEqual(raw_response(patient.clients.list)(limit=1).status, 200)
        self.assertGreaterEqual(time.monotonic() - started, 0.9)

    def test_reset_connection_is_retried(self) -> None:
        proxy = FlakyProxy(BASE_URL, "reset")
        try:
            flaky = BmsClient(api_key=API_KEY, base_url=proxy.url)
            self.assertEqual(raw_response(flaky.clients.list)(limit=1).status, 200)
            self.assertEqual(proxy.connections, 2)
        finally:
            proxy.close()

    def test_post_whose_response_was_lost_creates_once(self) -> None:
        proxy = FlakyProxy(BASE_URL, "drop-response")
        tag = f"once-{time.time_ns()}"
        try:
            flaky = BmsClient(api_key=API_KEY, base_url=proxy.url)
            answer = raw_response(flaky.clients.create)(name=tag)
            created = answer.data
            self.assertEqual(answer.headers.get("idempotent-replayed"), "true")
            self.assertEqual(proxy.connections, 2)
        finally:
            proxy.close()
        self.assertEqual([c["id"] for c in self.bms.clients.list(q=tag)], [created["id"]])

    def test_an_api_key_is_created_and_rolled_and_each_secret_works(self) -> None:
        # Creating and rolling a key take no Idempotency-Key: the SDK sends none.
        created = raw_response(self.bms.api_keys.create)(name=f"Bookkeeper {time.time_ns()}", scopes=["clients:read"])
        self.assertEqual(created.status, 201)
        self.assertTrue(created.data["secret"].startswith("bms_"))
        self.assertEqual(created.data["scopes"], ["clients:read"])
        reader = BmsClient(api_key=created.data["secret"], base_url=BASE_URL, max_retries=0)
        self.assertEqual(raw_response(reader.clients.list)(limit=1).status, 200)
        rolled = raw_response(self.bms.api_keys.roll)(created.data["id"])
        self.assertEqual(rolled.status, 200)
        self.assertEqual(rolled.data["id"], created.data["id"])
        self.assertNotEqual(rolled.data["secret"], created.data["secret"])
        renewed = BmsClient(api_key=rolled.data["secret"], base_url=BASE_URL)
        self.assertEqual(raw_response(renewed.clients.list)(limit=1).status, 200)
        with self.assertRaises(bms_sdk.AuthenticationError):
            reader.clients.list(limit=1)
        self.bms.api_keys.revoke(created.data["id"])

    def test_a_key_create_whose_response_was_lost_is_not_sent_again(self) -> None:
        proxy = FlakyProxy(BASE_URL, "drop-response")
        name = f"Once {time.time_ns()}"
        try:
            flaky = BmsClient(api_key=API_KEY, base_url=proxy.url)
            with self.assertRaises(bms_sdk.APIConnectionError):
                flaky.api_keys.create(name=name, scopes=["clients:read"])
            self.assertEqual(proxy.connections, 1)
        finally:
            proxy.close()
        made = [key for key in self.bms.api_keys.list() if key["name"] == name]
        self.assertEqual(len(made), 1)
        self.bms.api_keys.revoke(made[0]["id"])

    def test_no_server_raises_api_connection_error(self) -> None:
        proxy = FlakyProxy(BASE_URL, "reset")
        proxy.close()
        with self.assertRaises(bms_sdk.APIConnectionError) as raised:
            BmsClient(api_key=API_KEY, base_url=proxy.url, max_retries=1).clients.list()
        self.assertIsNone(raised.exception.status)
        self.assertEqual(raised.exception.code, "CONNECTION_ERROR")


    def test_a_reused_idempotency_key_is_its_own_error(self) -> None:
        key = f"reuse-{time.time_ns()}"
        self.bms.clients.create(name="First", idempotency_key=key)
        with self.assertRaises(bms_sdk.IdempotencyKeyReusedError) as raised:
            self.bms.clients.create(name="Second", idempotency_key=key)
        self.assertEqual(raised.exception.status, 422)
        self.assertIsInstance(raised.exception, bms_sdk.InvalidRequestError)
        self.assertNotIsInstance(raised.exception, bms_sdk.ValidationError)


@unittest.skipUnless(BASE_URL and API_KEY, "needs a running server: BMS_BASE_URL and BMS_API_KEY")
class AsyncAgainstServer(unittest.IsolatedAsyncioTestCase):
    async def test_the_async_client_creates_reads_pages_and_answers_raw(self) -> None:
        tag = f"async-{time.time_ns()}"
        async with AsyncBmsClient(api_key=API_KEY, base_url=BASE_URL) as bms:
            created = [await bms.clients.create(name=f"{tag} {i}") for i in range(5)]
            answer = await async_raw_response(bms.clients.get)(created[0]["id"])
            self.assertEqual((answer.status, answer.data["name"]), (200, f"{tag} 0"))
            self.assertTrue((answer.etag or "").startswith('"'))
            updated = await bms.clients.update(created[0]["id"], phone="1", if_match=answer.etag)
            self.assertEqual(updated["phone"], "1")
            with self.assertRaises(bms_sdk.PreconditionFailedError):
                await bms.clients.update(created[0]["id"], phone="2", if_match=answer.etag)
            first = await bms.clients.list(q=tag, limit=2, sort="created_at")
            self.assertEqual(len(first.data), 2)
            walked = [each["id"] async for each in first]
            self.assertEqual(walked, [each["id"] for each in created])
            without_await = [each["id"] async for each in bms.clients.list(q=tag, limit=2, sort="created_at")]
            self.assertEqual(without_await, [each["id"] for each in created], "async for needs no await first")
            listed = await async_raw_response(bms.clients.list)(q=tag, limit=2)
            self.assertEqual((listed.status, len(listed.data.data)), (200, 2))
            with self.assertRaises(bms_sdk.NotFoundError):
                await bms.clients.get("019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f01")


class RetryTiming(unittest.TestCase):
    def test_backoff_grows_with_jitter_and_is_capped(self) -> None:
        for attempt, (low, high) in enumerate([(0.25, 0.5), (0.5, 1.0), (1.0, 2.0), (2.0, 4.0), (4.0, 8.0), (4.0, 8.0)]):
            delays = [backoff_delay(attempt) for _ in range(50)]
            self.assertTrue(all(low <= delay <= high for delay in delays), (attempt, delays))
            self.assertGreater(len(set(delays)), 1)

    def test_retry_after_as_seconds_or_http_date(self) -> None:
        self.assertEqual(retry_after_delay("2"), 2.0)
        self.assertEqual(retry_after_delay("Thu, 01 Jan 1970 00:00:10 GMT", now=4.0), 6.0)
        self.assertIsNone(retry_after_delay(None))
        self.assertIsNone(retry_after_delay("soon"))


if __name__ == "__main__":
    unittest.main()
