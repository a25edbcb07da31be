"""The official Python client for the BMS API."""
from ._client import AsyncBmsClient, BmsClient
from ._errors import (
    APIConnectionError,
    APITimeoutError,
    AuthenticationError,
    BmsError,
    BmsErrorCode,
    ConflictError,
    ErrorDetail,
    HttpErrorCode,
    IdempotencyKeyReusedError,
    InvalidRequestError,
    InvalidResponseError,
    InvalidStateError,
    NotFoundError,
    PermissionDeniedError,
    PreconditionFailedError,
    RateLimitError,
    RedirectError,
    SdkErrorCode,
    ServerError,
    ValidationError,
)
from ._error_codes import *  # noqa: F401,F403  (ERROR_CODES and ErrorCode)
from ._generated import *  # noqa: F401,F403  (the object and parameter types)
from ._files import Destination, UploadFile
from ._pagination import AsyncPage, AsyncPagePromise, Page
from ._transport import NOT_GIVEN, VERSION, APIResponse, NotGiven, async_raw_response, raw_response
from . import custom_fields, webhooks
from .oauth import OAuth, OAuthTokens
from .webhooks import WebhookVerificationError

__version__ = VERSION

__all__ = [
    "OAuth",
    "OAuthTokens",
    "APIConnectionError",
    "APIResponse",
    "APITimeoutError",
    "AsyncBmsClient",
    "AsyncPage",
    "AsyncPagePromise",
    "AuthenticationError",
    "BmsClient",
    "BmsError",
    "BmsErrorCode",
    "ConflictError",
    "Destination",
    "ErrorDetail",
    "HttpErrorCode",
    "IdempotencyKeyReusedError",
    "InvalidRequestError",
    "InvalidResponseError",
    "InvalidStateError",
    "NOT_GIVEN",
    "NotFoundError",
    "NotGiven",
    "Page",
    "PermissionDeniedError",
    "PreconditionFailedError",
    "RateLimitError",
    "RedirectError",
    "SdkErrorCode",
    "ServerError",
    "UploadFile",
    "ValidationError",
    "WebhookVerificationError",
    "async_raw_response",
    "raw_response",
    "custom_fields",
    "webhooks",
]
