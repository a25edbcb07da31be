"""webhooks.verify against deliveries signed by the independent Standard Webhooks library.

The JavaScript test harness signs them with the `standardwebhooks` package and passes the file in
BMS_WEBHOOK_FIXTURE; without it (run on its own) the signing is done here with the standard library.
"""
import base64
import hashlib
import hmac
import json
import os
import time
import unittest

import bms_sdk
from bms_sdk import webhooks


def _local_fixture() -> dict:
    secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
    payload = json.dumps({"id": "evt", "object": "event", "type": "invoice.paid", "data": {"object": {"id": "x", "amount_due": 0}}})

    def sign(at: int, key: str = secret) -> dict:
        digest = hmac.new(base64.b64decode(key[len("whsec_"):]), f"evt.{at}.{payload}".encode(), hashlib.sha256).digest()
        return {"webhook-id": "evt", "webhook-timestamp": str(at), "webhook-signature": "v1," + base64.b64encode(digest).decode()}

    other = "whsec_" + base64.b64encode(b"another secret of thirty-two bytes!").decode()
    now = int(time.time())
    rotated = sign(now, other)
    rotated["webhook-signature"] += " " + sign(now)["webhook-signature"]
    return {"secret": secret, "payload": payload, "headers": sign(now), "rotated": rotated, "stale": sign(now - 301), "wrongSecret": sign(now, other)}


class VerifyTest(unittest.TestCase):
    def setUp(self) -> None:
        path = os.environ.get("BMS_WEBHOOK_FIXTURE")
        if path:
            with open(path, encoding="utf-8") as file:
                self.fixture = json.load(file)
        else:
            self.fixture = _local_fixture()

    def test_accepts_a_signed_delivery(self) -> None:
        f = self.fixture
        event = bms_sdk.webhooks.verify(f["payload"], f["headers"], f["secret"])
        self.assertEqual(event["type"], "invoice.paid")
        self.assertEqual(webhooks.verify(f["payload"].encode(), f["rotated"], f["secret"])["id"], event["id"])

    def test_refuses_tampering_replays_and_other_secrets(self) -> None:
        f = self.fixture
        cases = [
            (f["payload"].replace('"amount_due":0', '"amount_due":1').replace('"amount_due": 0', '"amount_due": 1'), f["headers"]),
            (f["payload"], f["stale"]),
            (f["payload"], f["wrongSecret"]),
            (f["payload"], {"webhook-id": f["headers"]["webhook-id"]}),
        ]
        for payload, headers in cases:
            with self.assertRaises(bms_sdk.WebhookVerificationError):
                webhooks.verify(payload, headers, f["secret"])
        self.assertEqual(webhooks.verify(f["payload"], f["stale"], f["secret"], tolerance=600)["type"], "invoice.paid")

    def test_refuses_a_body_that_is_not_utf8_without_crashing(self) -> None:
        f = self.fixture
        for body in (b"\xff\xfe\x00", f["payload"].encode() + b"\xff"):
            with self.assertRaises(bms_sdk.WebhookVerificationError):
                webhooks.verify(body, f["headers"], f["secret"])


if __name__ == "__main__":
    unittest.main()
