"""HTTP for the SDK: authentication, JSON, deadlines, the exception classes, and retries with exponential
backoff and jitter, over kept-alive connections, for the blocking client (``http.client``) and the asyncio
one (``asyncio`` streams); standard library only.

Retried are connection failures and timeouts, 429, 5xx, and a 409 that carries ``Retry-After`` (an
idempotent POST whose first attempt is still running), waiting as long as ``Retry-After`` says when the
server says. Every request the SDK sends is safe to repeat: GET, PUT and DELETE are idempotent, and every
POST carries an ``Idempotency-Key`` (one per call, the same on each retry), so the server replays the first
result instead of creating twice. Redirects are never followed: the key must not reach another address.
"""
from __future__ import annotations

import asyncio
import contextvars
import copy
import functools
import http.client
import json
import logging
import os
import random
import socket
import ssl
import threading
import time
import urllib.parse
import uuid
import weakref
from dataclasses import dataclass, field
from .oauth import AsyncTokenRefresher, OAuth, TokenRefresher
from typing import IO, Any, AsyncGenerator, Awaitable, Callable, Dict, Generic, List, Mapping, Optional, Tuple, TypeVar, Union

from typing import ParamSpec

from ._files import CHUNK, Destination, Form, TemporaryFile, UploadFile
from ._errors import APIConnectionError, APITimeoutError, ErrorDetail, InvalidResponseError, error_for, retry_after_delay
from ._pagination import AsyncPage, Page

__all__ = ["Destination", "UploadFile", "retry_after_delay"]

VERSION = "0.3.0"

RETRY_BASE = 0.5
RETRY_CAP = 8.0
#: A longer Retry-After is not waited for: the error is raised at once.
RETRY_AFTER_LIMIT = 60.0
#: How much of a body that is not the API's JSON an exception keeps.
BODY_KEPT = 64 * 1024
#: Idle connections kept per client.
POOL_SIZE = 10

logger = logging.getLogger("bms_sdk")

T = TypeVar("T")
P = ParamSpec("P")
TransportT = TypeVar("TransportT", bound="_Base")


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
class APIResponse(Generic[T]):
    """A call's answer with what came with it: ``raw_response(bms.clients.get)(id)`` returns one."""

    status: int
    headers: Dict[str, str]
    #: The server's id of the request, to quote to support.
    request_id: Optional[str]
    #: The object's ETag, to pass as ``if_match``.
    etag: Optional[str]
    #: What the call returns without raw_response: the object, a Page, or bytes.
    data: T


_RAW: contextvars.ContextVar[bool] = contextvars.ContextVar("bms_sdk_raw", default=False)


def raw_response(method: Callable[P, T]) -> Callable[P, APIResponse[T]]:
    """``raw_response(bms.invoices.get)(id)``: the same call, answered with its status, headers, request id
    and ETag beside the data. Nothing is kept on the client between calls."""

    @functools.wraps(method)
    def call(*args: P.args, **kwargs: P.kwargs) -> APIResponse[T]:
        token = _RAW.set(True)
        try:
            return method(*args, **kwargs)  # type: ignore[return-value]
        finally:
            _RAW.reset(token)

    return call


def async_raw_response(method: Callable[P, Awaitable[T]]) -> Callable[P, Awaitable[APIResponse[T]]]:
    """The asyncio client's :func:`raw_response`: ``await async_raw_response(bms.invoices.get)(id)``."""

    @functools.wraps(method)
    async def call(*args: P.args, **kwargs: P.kwargs) -> APIResponse[T]:
        token = _RAW.set(True)
        try:
            return await method(*args, **kwargs)  # type: ignore[return-value]
        finally:
            _RAW.reset(token)

    return call


def retry_after_with_jitter(delay: float) -> float:
    """A Retry-After wait plus up to 10% (at most a second) more, so that the clients a 429 or a 503 turned
    away together do not all come back in the same instant."""
    return delay + random.random() * min(delay * 0.1, 1.0)


def backoff_delay(attempt: int) -> float:
    """Exponential backoff with jitter: 0.25–0.5 s, then 0.5–1 s, ..., capped at 4–8 s."""
    ceiling: float = min(RETRY_CAP, RETRY_BASE * 2.0**attempt)
    return ceiling / 2 + random.random() * ceiling / 2


def _query_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return ",".join(str(each) for each in value)
    return str(value)


def _describe(headers: Mapping[str, str], body: bytes) -> str:
    kind = headers.get("content-type", "no content type").split(";")[0]
    return "an empty body" if not body else f"a {kind} body of {len(body)} bytes that is not the API's JSON"


@dataclass
class _Prepared:
    """One call's request, built once and sent as is on every attempt."""

    method: str
    target: str
    headers: Dict[str, str]
    #: JSON or text; an upload's multipart form, read from its start on each attempt.
    data: Union[bytes, Form, None]
    timeout: float
    max_retries: int
    accept: str
    #: If-None-Match was sent: a 304 is the answer asked for (the copy the caller holds is current).
    conditional: bool = False
    #: A call that got no answer may be sent again: false for a POST without an Idempotency-Key, which
    #: may have been carried out.
    retry_unanswered: bool = True


@dataclass
class _Retry:
    delay: float


@dataclass
class _Answer:
    status: int
    headers: Dict[str, str]
    body: Any = field(repr=False)


class _Base:
    """What the blocking and the asyncio transports share: settings, requests, and what an answer means."""

    def __init__(
        self, api_key: Optional[str], base_url: Optional[str], timeout: float, max_retries: int, oauth: Optional[OAuth] = None
    ) -> None:
        key = api_key if api_key is not None or oauth is not None else os.environ.get("BMS_API_KEY")
        if oauth is None and (not isinstance(key, str) or key == ""):
            raise TypeError("BmsClient needs an api_key (or the BMS_API_KEY environment variable), or oauth.")
        self.__api_key = key or ""
        self.base_url = (base_url or os.environ.get("BMS_BASE_URL") or "http://localhost:3000").strip().rstrip("/")
        # Every path starts with /v1, and https://bms.example.com/v1 is a natural thing to paste.
        if self.base_url.endswith("/v1"):
            self.base_url = self.base_url[: -len("/v1")]
        #: An app's tokens instead of a key (contract §25), renewed with its refresh token.
        self._tokens = TokenRefresher(oauth, self.base_url, timeout) if oauth is not None else None
        parsed = urllib.parse.urlsplit(self.base_url)
        if parsed.scheme not in ("http", "https") or not parsed.hostname:
            raise ValueError(f"base_url must be an http or https address, not {self.base_url!r}.")
        self._scheme = parsed.scheme
        self._host = parsed.hostname
        self._port = parsed.port or (443 if parsed.scheme == "https" else 80)
        self._base_path = parsed.path
        self.timeout = timeout
        self.max_retries = max_retries
        if os.environ.get("BMS_LOG") == "debug" and not logger.handlers:
            logger.addHandler(logging.StreamHandler())
            logger.setLevel(logging.DEBUG)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.base_url}>"

    def _bearer(self) -> str:
        """The credential a request carries: the key, or the app's access token (renewed first when due)."""
        return self._tokens.access_token() if self._tokens is not None else self.__api_key

    def with_options(self: TransportT, timeout: Optional[float], max_retries: Optional[int]) -> TransportT:
        """A copy with other defaults that shares this one's key and connections (a shallow copy)."""
        other = copy.copy(self)
        other.timeout = self.timeout if timeout is None else timeout
        other.max_retries = self.max_retries if max_retries is None else max_retries
        return other

    def _prepare(
        self,
        method: str,
        path: str,
        *,
        body: Optional[Mapping[str, Any]] = None,
        query: Optional[Mapping[str, Any]] = None,
        idempotency_key: Optional[str] = None,
        if_match: Optional[str] = None,
        if_none_match: Optional[str] = None,
        extra_headers: Optional[Mapping[str, str]] = None,
        extra_query: Optional[Mapping[str, Any]] = None,
        timeout: Optional[float] = None,
        max_retries: Optional[int] = None,
        accept: str = "application/json",
        unkeyed: bool = False,
        text: Optional[Tuple[str, str]] = None,
        form: Optional[Tuple[UploadFile, Mapping[str, Any]]] = None,
    ) -> _Prepared:
        headers = {
            "Host": self._host if self._port in (80, 443) else f"{self._host}:{self._port}",
            "Authorization": f"Bearer {self._bearer()}",
            "Accept": accept,
            "User-Agent": f"bms-sdk-python/{VERSION}",
        }
        data: Union[bytes, Form, None] = None
        if body is not None:
            headers["Content-Type"] = "application/json"
            data = json.dumps(body).encode("utf-8")
        if text is not None:
            # A body that is not JSON (an import's CSV file): its text and content type, sent as they are.
            headers["Content-Type"] = text[1]
            data = text[0].encode("utf-8")
        if form is not None:
            # An upload: the fields, then the file, streamed as the request is sent.
            data = Form("file", form[1], form[0])
            headers["Content-Type"] = data.content_type
        if isinstance(data, Form) and data.length is None:
            headers["Transfer-Encoding"] = "chunked"
        else:
            headers["Content-Length"] = str(data.length if isinstance(data, Form) else len(data or b""))
        if isinstance(data, Form) and not data.replayable:
            max_retries = 0
        # A POST that takes no Idempotency-Key (creating or rolling an API key: the server keeps no secret to
        # replay) sends none unless the caller names one.
        if method == "POST" and (idempotency_key is not None or not unkeyed):
            headers["Idempotency-Key"] = idempotency_key or str(uuid.uuid4())
        if if_match is not None:
            headers["If-Match"] = if_match
        if if_none_match is not None:
            headers["If-None-Match"] = if_none_match
        for name, value in (extra_headers or {}).items():
            # More headers for this call; the key and the message's framing stay the client's.
            if name.lower() in _KEPT_HEADERS:
                continue
            for existing in [key for key in headers if key.lower() == name.lower()]:
                del headers[existing]
            headers[name] = value
        merged = {**(query or {}), **(extra_query or {})}
        pairs = [(name, _query_value(value)) for name, value in merged.items() if value is not None]
        target = self._base_path + path + ("?" + urllib.parse.urlencode(pairs) if pairs else "")
        return _Prepared(
            method,
            target,
            headers,
            data,
            self.timeout if timeout is None else timeout,
            self.max_retries if max_retries is None else max_retries,
            accept,
            "If-None-Match" in headers,
            not unkeyed,
        )

    def _failed(self, prepared: _Prepared, attempt: int, error: BaseException, timed_out: bool, started: float) -> float:
        """A retry's delay after an attempt that got no answer; raises when no retry is left."""
        reason = f"timed out after {prepared.timeout} s" if timed_out else (str(error) or type(error).__name__)
        if attempt < prepared.max_retries and prepared.retry_unanswered:
            delay = backoff_delay(attempt)
            self._log(prepared, attempt, None, None, started, f"{reason}; retrying in {delay:.2f} s")
            return delay
        self._log(prepared, attempt, None, None, started, reason)
        kind = APITimeoutError if timed_out else APIConnectionError
        raise kind(f"Could not reach BMS at {self.base_url} ({reason}).", status=None, code="TIMEOUT" if timed_out else "CONNECTION_ERROR") from error

    def _answered(self, prepared: _Prepared, attempt: int, status: int, headers: Dict[str, str], body: bytes, started: float) -> Union[_Retry, _Answer]:
        """What an answer means: a retry after a delay, the parsed success, or an exception raised."""
        request_id = headers.get("x-request-id")
        if status == 304 and prepared.conditional and prepared.accept != "application/json":
            # Not Modified, as asked: the copy the caller holds (its ETag was If-None-Match) is current.
            self._log(prepared, attempt, status, request_id, started, None)
            return _Answer(status, headers, b"")
        if 200 <= status < 300:
            self._log(prepared, attempt, status, request_id, started, None)
            if prepared.accept != "application/json":
                return _Answer(status, headers, body)
            try:
                payload = json.loads(body)
                if not isinstance(payload, dict) or not isinstance(payload.get("data"), (dict, list)):
                    raise ValueError("The body has no data.")
            except ValueError as error:
                raise InvalidResponseError(
                    f"BMS answered {status} with {_describe(headers, body)}.",
                    status=status,
                    code="INVALID_RESPONSE",
                    request_id=request_id,
                    headers=headers,
                    body=body[:BODY_KEPT].decode("utf-8", "replace"),
                ) from error
            return _Answer(status, headers, payload)
        retry_after = retry_after_delay(headers.get("retry-after"))
        retryable = status == 429 or status >= 500 or (status == 409 and retry_after is not None)
        if retryable and attempt < prepared.max_retries:
            delay = backoff_delay(attempt) if retry_after is None else retry_after_with_jitter(retry_after)
            if delay <= RETRY_AFTER_LIMIT:
                self._log(prepared, attempt, status, request_id, started, f"retrying in {delay:.2f} s")
                return _Retry(delay)
        self._log(prepared, attempt, status, request_id, started, None)
        code, message, details, kept = _parse_error(body, status, headers)
        raise error_for(status, code, message, details, request_id, headers, kept)

    def _result(self, answer: _Answer) -> Any:
        """What a call returns: the envelope's data (or the bytes), wrapped in an APIResponse under raw_response."""
        data = answer.body["data"] if isinstance(answer.body, dict) else answer.body
        if not _RAW.get():
            return data
        headers = answer.headers
        return APIResponse(answer.status, headers, headers.get("x-request-id"), headers.get("etag"), data)

    def _log(self, prepared: _Prepared, attempt: int, status: Optional[int], request_id: Optional[str], started: float, note: Optional[str]) -> None:
        if logger.isEnabledFor(logging.DEBUG):
            path = prepared.target.split("?")[0]
            took = (time.monotonic() - started) * 1000
            logger.debug("%s %s attempt %d: %s %s %.0f ms%s", prepared.method, path, attempt + 1, status or "no answer", request_id or "-", took, f" ({note})" if note else "")


#: Headers that ``extra_headers`` cannot replace: the key, and the message's framing.
_KEPT_HEADERS = frozenset(("authorization", "host", "content-length", "transfer-encoding"))


def _headers_of(pairs: List[Tuple[str, str]]) -> Dict[str, str]:
    headers: Dict[str, str] = {}
    for name, value in pairs:
        key = name.lower()
        headers[key] = f"{headers[key]}, {value}" if key in headers else value
    return headers


class _StaleConnection(Exception):
    """A kept-alive connection the server had closed: the request is sent again on a new one."""


class Transport(_Base):
    """The blocking transport: ``http.client`` connections kept alive in a small pool (thread-safe), and a
    deadline per attempt that covers connecting, sending and reading the whole body."""

    def __init__(
        self, api_key: Optional[str], base_url: Optional[str], timeout: float, max_retries: int, oauth: Optional[OAuth] = None
    ) -> None:
        super().__init__(api_key, base_url, timeout, max_retries, oauth)
        self._idle: List[http.client.HTTPConnection] = []
        self._lock = threading.Lock()
        weakref.finalize(self, _close_connections, self._idle)

    def close(self) -> None:
        with self._lock:
            # Emptied in place: the finalizer holds this list.
            idle = self._idle[:]
            self._idle.clear()
        for connection in idle:
            connection.close()

    def request(self, method: str, path: str, **options: Any) -> Any:
        """One call: ``body``, ``query``, ``idempotency_key``, ``if_match``, ``if_none_match``,
        ``extra_headers``, ``extra_query``, ``timeout``, ``max_retries`` and ``accept``, as ``_prepare`` takes."""
        answer = self._send(self._prepare(method, path, **options))
        return self._result(answer)

    def request_to_file(self, destination: Destination, method: str, path: str, **options: Any) -> Any:
        """A binary answer streamed to the file ``destination`` (a temporary name beside it, flushed, renamed;
        nothing is left behind on failure): returns the destination's path."""
        with TemporaryFile(destination) as file:
            answer = self._send(self._prepare(method, path, **options), file.fresh)
        return self._result(_Answer(answer.status, answer.headers, file.destination))

    def list(self, path: str, query: Mapping[str, Any], **options: Any) -> Any:
        raw = _RAW.get()

        def load(cursor: Optional[str]) -> Page[Any]:
            parameters = dict(query) if cursor is None else {**query, "cursor": cursor}
            answer = self._send(self._prepare("GET", path, query=parameters, **options))
            return _page(Page, answer, load)

        token = _RAW.set(False)
        try:
            first = load(None)
        finally:
            _RAW.reset(token)
        return APIResponse(first.status, first.headers, first.request_id, None, first) if raw else first

    def _send(self, prepared: _Prepared, sink: Optional[Callable[[], IO[bytes]]] = None) -> _Answer:
        attempt = 0
        renewed = False
        while True:
            started = time.monotonic()
            timed_out = threading.Event()
            try:
                status, headers, body = self._exchange(prepared, timed_out, sink)
            except (OSError, http.client.HTTPException) as error:
                time.sleep(self._failed(prepared, attempt, error, timed_out.is_set(), started))
                attempt += 1
                continue
            # An app's access token revoked or expired early: one renewal, then the same request again.
            if status == 401 and self._tokens is not None and not renewed:
                renewed = True
                rejected = prepared.headers["Authorization"][len("Bearer ") :]
                prepared.headers["Authorization"] = f"Bearer {self._tokens.renew(rejected)}"
                continue
            outcome = self._answered(prepared, attempt, status, headers, body, started)
            if isinstance(outcome, _Answer):
                return outcome
            time.sleep(outcome.delay)
            attempt += 1

    def _connect(self, timeout: float) -> http.client.HTTPConnection:
        if self._scheme == "https":
            return http.client.HTTPSConnection(self._host, self._port, timeout=timeout, context=ssl.create_default_context())
        return http.client.HTTPConnection(self._host, self._port, timeout=timeout)

    def _exchange(self, prepared: _Prepared, timed_out: threading.Event, sink: Optional[Callable[[], IO[bytes]]]) -> Tuple[int, Dict[str, str], bytes]:
        # A stream read once goes on a new connection: a kept one the server had closed would need it twice.
        once = isinstance(prepared.data, Form) and not prepared.data.replayable
        with self._lock:
            connection = self._idle.pop() if self._idle and not once else None
        if connection is not None:
            try:
                return self._over(connection, prepared, timed_out, sink, reused=True)
            except _StaleConnection:
                pass
        return self._over(self._connect(prepared.timeout), prepared, timed_out, sink, reused=False)

    def _over(
        self,
        connection: http.client.HTTPConnection,
        prepared: _Prepared,
        timed_out: threading.Event,
        sink: Optional[Callable[[], IO[bytes]]],
        reused: bool,
    ) -> Tuple[int, Dict[str, str], bytes]:
        def expire() -> None:
            timed_out.set()
            if connection.sock is not None:
                try:
                    connection.sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

        deadline = threading.Timer(prepared.timeout, expire)
        deadline.daemon = True
        deadline.start()
        received = False
        try:
            connection.timeout = prepared.timeout
            data = prepared.data
            if isinstance(data, Form):
                try:
                    connection.request(prepared.method, prepared.target, body=data.chunks(), headers=prepared.headers, encode_chunked=data.length is None)
                except OSError:
                    # The server may answer before it has read the whole upload (a refusal: 413, 422) and close:
                    # its answer, if it came, is read below rather than the broken pipe reported.
                    pass
            else:
                connection.request(prepared.method, prepared.target, body=data, headers=prepared.headers)
            response = connection.getresponse()
            received = True
            if sink is not None and 200 <= response.status < 300:
                # A download to a file: the body goes to disk as it arrives.
                file = sink()
                written = 0
                while chunk := response.read(CHUNK):
                    file.write(chunk)
                    written += len(chunk)
                # read(amount) ends quietly at a body cut short: the length says whether it was.
                expected = response.getheader("content-length")
                if expected is not None and written != int(expected):
                    raise http.client.IncompleteRead(b"", int(expected) - written)
                body = b""
            else:
                body = response.read()
        except (OSError, http.client.HTTPException) as error:
            connection.close()
            if timed_out.is_set():
                raise socket.timeout("timed out") from error
            if reused and not received:
                raise _StaleConnection() from error
            raise
        finally:
            deadline.cancel()
        if timed_out.is_set():
            connection.close()
            raise socket.timeout("timed out")
        if response.will_close:
            connection.close()
        else:
            with self._lock:
                if len(self._idle) < POOL_SIZE:
                    self._idle.append(connection)
                    connection = None  # type: ignore[assignment]
            if connection is not None:
                connection.close()
        return response.status, _headers_of(response.getheaders()), body


def _close_connections(idle: List[http.client.HTTPConnection]) -> None:
    for connection in idle:
        connection.close()


class AsyncTransport(_Base):
    """The asyncio transport: HTTP/1.1 over ``asyncio`` streams, connections kept alive, and a deadline per
    attempt (``asyncio.wait_for``) that covers connecting, sending and reading the whole body."""

    def __init__(
        self, api_key: Optional[str], base_url: Optional[str], timeout: float, max_retries: int, oauth: Optional[OAuth] = None
    ) -> None:
        super().__init__(api_key, base_url, timeout, max_retries, oauth)
        # Shared with the copies with_options makes (a shallow copy).
        self._connections = _AsyncPool()
        #: An app's tokens, renewed without blocking the event loop (shared by the copies too).
        self._async_tokens = AsyncTokenRefresher(self._tokens) if self._tokens is not None else None

    def _bearer(self) -> str:
        # An app's token is set by _send, which may await its renewal; _prepare cannot.
        return "" if self._tokens is not None else super()._bearer()

    async def close(self) -> None:
        await self._connections.close()

    async def request(self, method: str, path: str, **options: Any) -> Any:
        """One call; the options are those of :meth:`Transport.request`."""
        answer = await self._send(self._prepare(method, path, **options))
        return self._result(answer)

    async def request_to_file(self, destination: Destination, method: str, path: str, **options: Any) -> Any:
        """As :meth:`Transport.request_to_file` (the file is written from the event loop, a chunk at a time)."""
        with TemporaryFile(destination) as file:
            answer = await self._send(self._prepare(method, path, **options), file.fresh)
        return self._result(_Answer(answer.status, answer.headers, file.destination))

    async def list(self, path: str, query: Mapping[str, Any], **options: Any) -> Any:
        raw = _RAW.get()

        async def load(cursor: Optional[str]) -> AsyncPage[Any]:
            parameters = dict(query) if cursor is None else {**query, "cursor": cursor}
            answer = await self._send(self._prepare("GET", path, query=parameters, **options))
            return _page(AsyncPage, answer, load)

        token = _RAW.set(False)
        try:
            first = await load(None)
        finally:
            _RAW.reset(token)
        return APIResponse(first.status, first.headers, first.request_id, None, first) if raw else first

    async def _send(self, prepared: _Prepared, sink: Optional[Callable[[], IO[bytes]]] = None) -> _Answer:
        attempt = 0
        renewed = False
        if self._async_tokens is not None:
            prepared.headers["Authorization"] = f"Bearer {await self._async_tokens.access_token()}"
        while True:
            started = time.monotonic()
            try:
                status, headers, body = await asyncio.wait_for(self._exchange(prepared, sink), prepared.timeout)
            except asyncio.TimeoutError as error:
                await asyncio.sleep(self._failed(prepared, attempt, error, True, started))
                attempt += 1
                continue
            except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ValueError) as error:
                await asyncio.sleep(self._failed(prepared, attempt, error, False, started))
                attempt += 1
                continue
            # An app's access token revoked or expired early: one renewal, then the same request again.
            if status == 401 and self._async_tokens is not None and not renewed:
                renewed = True
                rejected = prepared.headers["Authorization"][len("Bearer ") :]
                prepared.headers["Authorization"] = f"Bearer {await self._async_tokens.renew(rejected)}"
                continue
            outcome = self._answered(prepared, attempt, status, headers, body, started)
            if isinstance(outcome, _Answer):
                return outcome
            await asyncio.sleep(outcome.delay)
            attempt += 1

    async def _exchange(self, prepared: _Prepared, sink: Optional[Callable[[], IO[bytes]]]) -> Tuple[int, Dict[str, str], bytes]:
        idle = await self._connections.idle()
        # A stream read once goes on a new connection: a kept one the server had closed would need it twice.
        if idle and not (isinstance(prepared.data, Form) and not prepared.data.replayable):
            reader, writer = idle.pop()
            try:
                return await self._over(reader, writer, prepared, sink, reused=True)
            except _StaleConnection:
                pass
        reader, writer = await asyncio.open_connection(self._host, self._port, ssl=ssl.create_default_context() if self._scheme == "https" else None)
        return await self._over(reader, writer, prepared, sink, reused=False)

    async def _over(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        prepared: _Prepared,
        sink: Optional[Callable[[], IO[bytes]]],
        reused: bool,
    ) -> Tuple[int, Dict[str, str], bytes]:
        head = f"{prepared.method} {prepared.target} HTTP/1.1\r\n" + "".join(f"{name}: {value}\r\n" for name, value in prepared.headers.items()) + "\r\n"
        data = prepared.data
        try:
            if isinstance(data, Form):
                # An upload: written a chunk at a time, waiting for the socket between chunks.
                writer.write(head.encode("latin-1"))
                for chunk in data.chunks():
                    writer.write(b"%X\r\n%s\r\n" % (len(chunk), chunk) if data.length is None else chunk)
                    await writer.drain()
                if data.length is None:
                    writer.write(b"0\r\n\r\n")
            else:
                writer.write(head.encode("latin-1") + (data or b""))
            await writer.drain()
            lines = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
        except (OSError, asyncio.IncompleteReadError) as error:
            writer.close()
            if reused:
                raise _StaleConnection() from error
            raise
        except BaseException:
            writer.close()
            raise
        try:
            status = int(lines[0].split(" ", 2)[1])
            headers = _headers_of([(name, value.strip()) for name, _, value in (line.partition(":") for line in lines[1:] if line)])
            body = await _read_body(reader, status, headers, sink() if sink is not None and 200 <= status < 300 else None)
        except BaseException:
            writer.close()
            raise
        if headers.get("connection", "").lower() == "close" or ("content-length" not in headers and "chunked" not in headers.get("transfer-encoding", "")):
            writer.close()
        elif len(self._connections.connections) < POOL_SIZE:
            self._connections.connections.append((reader, writer))
        else:
            writer.close()
        return status, headers, body


_Connection = Tuple[asyncio.StreamReader, asyncio.StreamWriter]


class _AsyncPool:
    """The asyncio transport's idle connections. A connection belongs to the event loop that opened it: on a
    new loop (a second ``asyncio.run``) the old ones are dropped, and each loop closes its own as it shuts
    down, so a client that was never closed leaves no socket open (and no ResourceWarning) behind."""

    def __init__(self) -> None:
        self.connections: List[_Connection] = []
        self._loop: Optional[asyncio.AbstractEventLoop] = None
        self._closer: Optional[AsyncGenerator[None, None]] = None

    async def idle(self) -> List[_Connection]:
        """The idle connections, for the running loop."""
        loop = asyncio.get_running_loop()
        if self._loop is not loop:
            for _, writer in self.connections:
                _drop(writer)
            self.connections.clear()
            self._loop = loop
            # An async generator that the loop finalises as it shuts down (asyncio.run calls
            # shutdown_asyncgens), or as soon as the pool is collected while the loop still runs. It holds the
            # list, not the pool, so that the pool is freed at once and the connections wait for it.
            self._closer = _close_at_shutdown(self.connections)
            await self._closer.asend(None)
        return self.connections

    async def close(self) -> None:
        await _close_all(self.connections)


async def _close_at_shutdown(connections: List[_Connection]) -> AsyncGenerator[None, None]:
    try:
        yield
    finally:
        await _close_all(connections)


async def _close_all(connections: List[_Connection]) -> None:
    idle = connections[:]
    connections.clear()
    for _, writer in idle:
        writer.close()
    for _, writer in idle:
        try:
            await writer.wait_closed()
        except (OSError, RuntimeError):
            pass


def _drop(writer: asyncio.StreamWriter) -> None:
    """Closes a connection of an event loop that is no longer running (its own loop closed it already, or
    cannot any more): the socket is closed directly."""
    try:
        writer.close()
    except RuntimeError:
        socket_ = writer.get_extra_info("socket")
        if socket_ is not None:
            socket_.close()


async def _read_body(reader: asyncio.StreamReader, status: int, headers: Mapping[str, str], sink: Optional[IO[bytes]] = None) -> bytes:
    """The body; with ``sink`` (a download to a file), written there a chunk at a time, and b"" answered."""
    if status in (204, 304) or 100 <= status < 200:
        return b""
    chunks: List[bytes] = []
    keep: Callable[[bytes], object] = chunks.append if sink is None else sink.write
    if "chunked" in headers.get("transfer-encoding", "").lower():
        while True:
            size = int((await reader.readuntil(b"\r\n")).split(b";")[0].strip(), 16)
            if size == 0:
                while (await reader.readuntil(b"\r\n")) != b"\r\n":
                    pass
                return b"".join(chunks)
            keep((await reader.readexactly(size + 2))[:-2])
    if "content-length" in headers:
        left = int(headers["content-length"])
        while left > 0:
            chunk = await reader.readexactly(min(left, CHUNK))
            keep(chunk)
            left -= len(chunk)
        return b"".join(chunks)
    while chunk := await reader.read(CHUNK):
        keep(chunk)
    return b"".join(chunks)


PageT = TypeVar("PageT", Page[Any], AsyncPage[Any])


def _page(kind: Callable[..., PageT], answer: _Answer, load: Any) -> PageT:
    payload = answer.body
    pagination = (payload.get("meta") or {}).get("pagination") if isinstance(payload, dict) else None
    if not isinstance(pagination, dict) or not isinstance(payload.get("data"), list):
        raise InvalidResponseError(f"BMS answered {answer.status} to a list without a page.", status=answer.status, code="INVALID_RESPONSE", headers=answer.headers)
    return kind(payload["data"], pagination["has_more"], pagination["next_cursor"], answer.headers.get("x-request-id"), load, status=answer.status, headers=answer.headers)


def _parse_error(body: bytes, status: int, headers: Mapping[str, str]) -> "Tuple[str, str, List[ErrorDetail], Optional[str]]":
    try:
        error = json.loads(body)["error"]
        if isinstance(error.get("code"), str) and isinstance(error.get("message"), str):
            return error["code"], error["message"], list(error.get("details") or []), None
    except (ValueError, KeyError, TypeError, AttributeError):
        pass
    if status == 304:
        message = "BMS answered 304 Not Modified: pass if_none_match only where the method takes it (get_pdf)."
    elif 300 <= status < 400:
        message = f"BMS answered {status}, a redirect to {headers.get('location', 'nowhere')}, which the SDK does not follow: check base_url."
    else:
        message = f"BMS answered {status} with {_describe(headers, body)}."
    return f"HTTP_{status}", message, [], body[:BODY_KEPT].decode("utf-8", "replace")
