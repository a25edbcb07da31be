"""HTTP for the SDK: authentication, JSON, timeouts, the exception classes, and retries with exponential
backoff and jitter.

Retried are connection failures, 429 and 5xx, waiting as long as ``Retry-After`` says when the server
says. Every request the SDK sends is safe to repeat: GET, PUT and DELETE are idempotent, and every POST
carries an ``Idempotency-Key`` (one per call, the same on each retry), so the server replays the first
result instead of creating twice.
"""
from __future__ import annotations

import email.utils
import http.client
import json
import random
import socket
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from dataclasses import dataclass, field
from typing import Any, Dict, Mapping, Optional

from ._errors import APIConnectionError, ErrorDetail, error_for
from ._pagination import Page

VERSION = "0.1.0"

RETRY_BASE = 0.5
RETRY_CAP = 8.0
#: A longer Retry-After is not waited for: the error is raised at once.
RETRY_AFTER_LIMIT = 60.0


class NotGiven:
    """The default of optional parameters, so that None can mean "clear this field"."""

    def __bool__(self) -> bool:
        return False

    def __repr__(self) -> str:
        return "NOT_GIVEN"


NOT_GIVEN = NotGiven()


def given(**values: Any) -> Dict[str, Any]:
    """The parameters that were passed."""
    return {name: value for name, value in values.items() if not isinstance(value, NotGiven)}


@dataclass
class ResponseInfo:
    """What came with a response besides its data."""

    status: int
    request_id: Optional[str]
    #: The object's ETag, to pass as ``if_match``.
    etag: Optional[str]
    headers: Dict[str, str] = field(default_factory=dict)


def backoff_delay(attempt: int) -> float:
    """Exponential backoff with jitter: 0.25–0.5 s, then 0.5–1 s, ..., capped at 4–8 s."""
    ceiling = min(RETRY_CAP, RETRY_BASE * 2**attempt)
    return ceiling / 2 + random.random() * ceiling / 2


def retry_after_delay(value: Optional[str], now: Optional[float] = None) -> Optional[float]:
    """Retry-After in seconds (delta-seconds or an HTTP date), or None when absent or unreadable."""
    if value is None or value.strip() == "":
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        date = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, date.timestamp() - (time.time() if now is None else now))


def _query_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


class Transport:
    def __init__(self, api_key: str, base_url: str, timeout: float, max_retries: int) -> None:
        if not isinstance(api_key, str) or api_key == "":
            raise TypeError("BmsClient needs an api_key.")
        self.api_key = api_key
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self.max_retries = max_retries
        self._local = threading.local()

    @property
    def last_response(self) -> Optional[ResponseInfo]:
        """The latest response received on this thread."""
        return getattr(self._local, "last_response", None)

    def request(
        self,
        method: str,
        path: str,
        *,
        body: Optional[Mapping[str, Any]] = None,
        query: Optional[Mapping[str, Any]] = None,
        idempotency_key: Optional[str] = None,
        if_match: Optional[str] = None,
        timeout: Optional[float] = None,
    ) -> Any:
        return self._send(method, path, body, query, idempotency_key, if_match, timeout)["data"]

    def list(self, path: str, query: Mapping[str, Any], *, timeout: Optional[float] = None) -> Page[Any]:
        def load(cursor: Optional[str]) -> Page[Any]:
            parameters = dict(query) if cursor is None else {**query, "cursor": cursor}
            payload = self._send("GET", path, None, parameters, None, None, timeout)
            pagination = payload["meta"]["pagination"]
            request_id = self.last_response.request_id if self.last_response else None
            return Page(payload["data"], pagination["has_more"], pagination["next_cursor"], request_id, load)

        return load(None)

    def _url(self, path: str, query: Optional[Mapping[str, Any]]) -> str:
        pairs = [(name, _query_value(value)) for name, value in (query or {}).items() if value is not None]
        return self.base_url + path + ("?" + urllib.parse.urlencode(pairs) if pairs else "")

    def _send(
        self,
        method: str,
        path: str,
        body: Optional[Mapping[str, Any]],
        query: Optional[Mapping[str, Any]],
        idempotency_key: Optional[str],
        if_match: Optional[str],
        timeout: Optional[float],
    ) -> Any:
        headers = {
            "Authorization": f"Bearer {self.api_key}",
            "Accept": "application/json",
            "User-Agent": f"bms-sdk-python/{VERSION}",
        }
        data = None
        if body is not None:
            headers["Content-Type"] = "application/json"
            data = json.dumps(body).encode("utf-8")
        if method == "POST":
            headers["Idempotency-Key"] = idempotency_key or str(uuid.uuid4())
        if if_match is not None:
            headers["If-Match"] = if_match
        url = self._url(path, query)
        seconds = self.timeout if timeout is None else timeout

        attempt = 0
        while True:
            retries_left = attempt < self.max_retries
            request = urllib.request.Request(url, data=data, headers=headers, method=method)
            try:
                with urllib.request.urlopen(request, timeout=seconds) as response:
                    status, text, response_headers = response.status, response.read(), response.headers
            except urllib.error.HTTPError as error:
                status, text, response_headers = error.code, error.read(), error.headers
            except (urllib.error.URLError, http.client.HTTPException, socket.timeout, OSError) as error:
                if retries_left:
                    time.sleep(backoff_delay(attempt))
                    attempt += 1
                    continue
                reason = getattr(error, "reason", None) or error
                raise APIConnectionError(
                    f"Could not reach BMS at {self.base_url} ({reason}).", status=None, code="CONNECTION_ERROR"
                ) from error

            header_map = {name.lower(): value for name, value in response_headers.items()}
            request_id = header_map.get("x-request-id")
            self._local.last_response = ResponseInfo(status, request_id, header_map.get("etag"), header_map)
            if 200 <= status < 300:
                return json.loads(text)
            if (status == 429 or status >= 500) and retries_left:
                delay = retry_after_delay(header_map.get("retry-after"))
                delay = backoff_delay(attempt) if delay is None else delay
                if delay <= RETRY_AFTER_LIMIT:
                    time.sleep(delay)
                    attempt += 1
                    continue
            code, message, details = _parse_error(text, status)
            raise error_for(status, code, message, details, request_id, header_map)


def _parse_error(text: bytes, status: int) -> "tuple[str, str, list[ErrorDetail]]":
    try:
        error = json.loads(text)["error"]
        return str(error["code"]), str(error["message"]), list(error.get("details") or [])
    except (ValueError, KeyError, TypeError):
        return f"HTTP_{status}", text[:500].decode("utf-8", "replace") or f"HTTP {status}", []
