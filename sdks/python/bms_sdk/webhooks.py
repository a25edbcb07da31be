"""Verifying the webhooks BMS sends (Standard Webhooks).

The signature is an HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>" keyed by the endpoint's
secret, and the timestamp must be within 5 minutes. The comparison is constant-time.
"""
from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import time
from typing import TYPE_CHECKING, Mapping, Optional, Union, cast

if TYPE_CHECKING:
    from ._generated import Event

__all__ = ["WebhookVerificationError", "verify"]


class WebhookVerificationError(Exception):
    """The delivery is not one BMS signed with this secret, or it is too old or too new."""


def _header(headers: Mapping[str, str], name: str) -> Optional[str]:
    for key, value in headers.items():
        if key.lower() == name:
            return value
    return None


def verify(
    payload: Union[str, bytes],
    headers: Mapping[str, str],
    secret: str,
    *,
    tolerance: int = 300,
    now: Optional[float] = None,
) -> Event:
    """Checks a delivery and returns its event (typed by its ``type``: ``event["data"]["object"]``).

    `payload` is the raw body exactly as received; `headers` the request's headers; `secret` the
    endpoint's `whsec_...` secret. Raises WebhookVerificationError when a header is missing, the timestamp
    is more than `tolerance` seconds off, or no signature matches. De-duplicate on the event's `id` (the
    webhook-id): a delivery may come more than once.
    """
    webhook_id = _header(headers, "webhook-id")
    timestamp = _header(headers, "webhook-timestamp")
    signatures = _header(headers, "webhook-signature")
    if not webhook_id or not timestamp or not signatures:
        raise WebhookVerificationError("Missing webhook-id, webhook-timestamp or webhook-signature header.")
    if not timestamp.isdigit():
        raise WebhookVerificationError("The webhook-timestamp header is not a Unix time.")
    current = time.time() if now is None else now
    if abs(current - int(timestamp)) > tolerance:
        raise WebhookVerificationError("The webhook-timestamp is too far from now: refusing a possible replay.")
    # The signature covers the bytes as sent; they are decoded only once it matches, so a body that is not
    # UTF-8 is refused like any other forgery instead of raising UnicodeDecodeError in the receiver.
    body = payload if isinstance(payload, bytes) else payload.encode("utf-8")
    try:
        key = base64.b64decode(secret[len("whsec_"):] if secret.startswith("whsec_") else secret, validate=True)
    except binascii.Error as error:
        raise WebhookVerificationError("The secret is not a whsec_ secret.") from error
    expected = hmac.new(key, f"{webhook_id}.{timestamp}.".encode("utf-8") + body, hashlib.sha256).digest()
    for entry in signatures.split(" "):
        version, _, signature = entry.partition(",")
        if version != "v1":
            continue
        try:
            candidate = base64.b64decode(signature, validate=True)
        except binascii.Error:
            continue
        if hmac.compare_digest(candidate, expected):
            try:
                return cast("Event", json.loads(body.decode("utf-8")))
            except (UnicodeDecodeError, ValueError) as error:
                raise WebhookVerificationError("The signed body is not UTF-8 JSON.") from error
    raise WebhookVerificationError("No signature matches: the secret is wrong or the body was changed.")
