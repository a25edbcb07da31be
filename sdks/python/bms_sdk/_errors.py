"""One exception class per kind of failure, each carrying the API's error envelope."""
from __future__ import annotations

import email.utils
import time
from typing import Dict, List, Literal, Mapping, Optional, TypedDict, Union, cast

from ._error_codes import ERROR_CODES, ErrorCode

#: The code of an answer without the API's envelope (a proxy's page, a bare 502): ``HTTP_<status>``, for
#: each status of ``http.HTTPStatus`` from 300 to 599 (a test keeps the list equal to it; a status outside it
#: arrives all the same, as ``HTTP_520``).
HttpErrorCode = Literal[
    "HTTP_300", "HTTP_301", "HTTP_302", "HTTP_303", "HTTP_304", "HTTP_305", "HTTP_307", "HTTP_308",
    "HTTP_400", "HTTP_401", "HTTP_402", "HTTP_403", "HTTP_404", "HTTP_405", "HTTP_406", "HTTP_407", "HTTP_408",
    "HTTP_409", "HTTP_410", "HTTP_411", "HTTP_412", "HTTP_413", "HTTP_414", "HTTP_415", "HTTP_416", "HTTP_417",
    "HTTP_418", "HTTP_421", "HTTP_422", "HTTP_423", "HTTP_424", "HTTP_425", "HTTP_426", "HTTP_428", "HTTP_429",
    "HTTP_431", "HTTP_451", "HTTP_500", "HTTP_501", "HTTP_502", "HTTP_503", "HTTP_504", "HTTP_505", "HTTP_506",
    "HTTP_507", "HTTP_508", "HTTP_510", "HTTP_511",
]

#: The codes the SDK sets itself: no response (``CONNECTION_ERROR``, ``TIMEOUT``), a success that is not the
#: API's JSON (``INVALID_RESPONSE``), or an answer without the API's envelope (``HttpErrorCode``).
SdkErrorCode = Union[Literal["CONNECTION_ERROR", "TIMEOUT", "INVALID_RESPONSE"], HttpErrorCode]

#: What ``BmsError.code`` can be: the API's closed set (``ErrorCode``, generated from the OpenAPI document) or
#: one the SDK sets. Under ``mypy --strict``, comparing it with a string that is neither is an error.
BmsErrorCode = Union[ErrorCode, SdkErrorCode]


class ErrorDetail(TypedDict):
    """One offending field: its path (such as ``line_items[2].quantity``) and what is wrong with it."""

    field: str
    message: str


class BmsError(Exception):
    """Base class of every error the SDK raises."""

    def __init__(
        self,
        message: str,
        *,
        status: Optional[int],
        code: BmsErrorCode,
        details: Optional[List[ErrorDetail]] = None,
        request_id: Optional[str] = None,
        headers: Optional[Mapping[str, str]] = None,
        body: Optional[str] = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        #: The HTTP status; None when no response arrived.
        self.status = status
        #: The machine-readable code, such as ``VALIDATION_ERROR``: one of the API's codes (``ErrorCode``) or one
        #: the SDK sets (``SdkErrorCode``). A newer server may answer with a code this version does not list; it
        #: arrives as sent.
        self.code: BmsErrorCode = code
        self.details: List[ErrorDetail] = list(details or [])
        #: The server's id of the request (the ``X-Request-Id`` header).
        self.request_id = request_id
        self.headers: Dict[str, str] = dict(headers or {})
        #: The response body when it was not the API's JSON envelope (at most 64 KB); else None.
        self.body = body

    def __str__(self) -> str:
        suffix = f" (request {self.request_id})" if self.request_id else ""
        return f"{self.code}: {self.message}{suffix}"


class APIConnectionError(BmsError):
    """The request never got an answer: refused or reset connection, DNS failure. ``__cause__`` is the
    network error."""


class APITimeoutError(APIConnectionError):
    """An attempt took longer than ``timeout`` (connecting, sending and reading the whole body)."""


class RedirectError(BmsError):
    """The server answered with a redirect, which the SDK never follows: the API key must not go to another
    address, and a POST must not turn into a GET. Fix ``base_url``."""

    @property
    def location(self) -> Optional[str]:
        return self.headers.get("location")


class InvalidResponseError(BmsError):
    """A success status whose body is not the API's JSON (a proxy's HTML page, a cut-off body); see ``body``."""


class InvalidRequestError(BmsError):
    """400, 405, 413, 415 and other refusals of the request as sent."""


class ValidationError(InvalidRequestError):
    """422 (and 400 INVALID_JSON): see ``details`` for each field."""


class IdempotencyKeyReusedError(InvalidRequestError):
    """422 IDEMPOTENCY_KEY_REUSED: the ``idempotency_key`` was used before with a different request."""


class AuthenticationError(BmsError):
    """401: the API key is missing, unknown, revoked or expired."""


class PermissionDeniedError(BmsError):
    """403: the key lacks the scope the endpoint needs."""


class NotFoundError(BmsError):
    """404."""


class ConflictError(BmsError):
    """409: the request conflicts with the stored state."""


class InvalidStateError(ConflictError):
    """409 INVALID_STATE: the status does not allow this change."""


class PreconditionFailedError(ConflictError):
    """412: the object changed since the ETag passed as ``if_match``."""


class RateLimitError(BmsError):
    """429 after the retries ran out."""

    @property
    def retry_after(self) -> Optional[float]:
        """Seconds the server asked to wait (delta-seconds or an HTTP date), when it said."""
        return retry_after_delay(self.headers.get("retry-after"))


class ServerError(BmsError):
    """5xx after the retries ran out."""


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


def error_for(
    status: int,
    code: str,
    message: str,
    details: Optional[List[ErrorDetail]],
    request_id: Optional[str],
    headers: Mapping[str, str],
    body: Optional[str] = None,
) -> BmsError:
    """The exception for an error response: chosen by the status the API documents for the code
    (ERROR_CODES, generated from the OpenAPI document), else by the response's status."""
    documented = ERROR_CODES.get(code)
    kind_status = documented if documented is not None else status
    kind: type
    if code == "IDEMPOTENCY_KEY_REUSED":
        kind = IdempotencyKeyReusedError
    elif kind_status == 422 or code == "INVALID_JSON":
        kind = ValidationError
    elif kind_status == 401:
        kind = AuthenticationError
    elif kind_status == 403:
        kind = PermissionDeniedError
    elif kind_status == 404:
        kind = NotFoundError
    elif kind_status == 409:
        kind = InvalidStateError if code == "INVALID_STATE" else ConflictError
    elif kind_status == 412:
        kind = PreconditionFailedError
    elif kind_status == 429:
        kind = RateLimitError
    elif 300 <= kind_status < 400:
        kind = RedirectError
    elif kind_status >= 500:
        kind = ServerError
    else:
        kind = InvalidRequestError
    error: BmsError = kind(message, status=status, code=cast(BmsErrorCode, code), details=details, request_id=request_id, headers=headers, body=body)
    return error
