"""The official Python client for the BMS API."""
from ._client import BmsClient
from ._errors import (
    APIConnectionError,
    AuthenticationError,
    BmsError,
    ConflictError,
    ErrorDetail,
    InvalidRequestError,
    InvalidStateError,
    NotFoundError,
    PermissionDeniedError,
    PreconditionFailedError,
    RateLimitError,
    ServerError,
    ValidationError,
)
from ._generated import *  # noqa: F401,F403  (the object and parameter types)
from ._pagination import Page
from ._transport import NOT_GIVEN, VERSION, NotGiven, ResponseInfo
from . import webhooks
from .webhooks import WebhookVerificationError

__version__ = VERSION

__all__ = [
    "APIConnectionError",
    "AuthenticationError",
    "BmsClient",
    "BmsError",
    "ConflictError",
    "ErrorDetail",
    "InvalidRequestError",
    "InvalidStateError",
    "NOT_GIVEN",
    "NotFoundError",
    "NotGiven",
    "Page",
    "PermissionDeniedError",
    "PreconditionFailedError",
    "RateLimitError",
    "ResponseInfo",
    "ServerError",
    "ValidationError",
    "WebhookVerificationError",
    "webhooks",
]
