"""An app's tokens (BMS's OAuth 2.1 server, contract §25): a client built with a refresh token asks for an
access token before its first call, again before the one it holds expires and after a 401, and hands every
new pair to ``on_tokens``: refresh tokens rotate at every use, so the app must keep the newest. Threads share
one renewal; the tokens are never shown in ``repr``."""
from __future__ import annotations

import base64
import json
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from typing import Callable, Optional

from ._errors import AuthenticationError

#: Renewed this long before the access token's expiry, in seconds.
_EARLY = 30.0


@dataclass(frozen=True)
class OAuthTokens:
    """A new pair: store ``refresh_token``, it replaces the one you had."""

    access_token: str = field(repr=False)
    refresh_token: str = field(repr=False)
    #: Seconds since the epoch.
    expires_at: float
    scope: str
    install_id: str
    account_id: str


@dataclass
class OAuth:
    """``client_id`` (the app's id), ``refresh_token``, and a confidential app's ``client_secret``."""

    client_id: str
    refresh_token: str = field(repr=False)
    client_secret: Optional[str] = field(default=None, repr=False)
    access_token: Optional[str] = field(default=None, repr=False)
    expires_at: Optional[float] = None
    on_tokens: Optional[Callable[[OAuthTokens], None]] = None


class TokenRefresher:
    def __init__(self, oauth: OAuth, base_url: str, timeout: float) -> None:
        self._oauth = oauth
        self._base_url = base_url
        self._timeout = timeout
        self._refresh_token = oauth.refresh_token
        self._access_token = oauth.access_token
        self._expires_at = oauth.expires_at if oauth.expires_at is not None else (float("inf") if oauth.access_token else 0.0)
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"<TokenRefresher {self._oauth.client_id}>"

    def access_token(self) -> str:
        """The access token to send now, renewed first when it is missing or about to expire."""
        with self._lock:
            if self._access_token is not None and time.time() < self._expires_at - _EARLY:
                return self._access_token
            return self._refresh()

    def renew(self, rejected: str) -> str:
        """A new pair after ``rejected`` was refused (401); another thread's renewal is used when it came first."""
        with self._lock:
            if self._access_token is not None and self._access_token != rejected:
                return self._access_token
            return self._refresh()

    def _refresh(self) -> str:
        form = {"grant_type": "refresh_token", "refresh_token": self._refresh_token}
        headers = {"Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"}
        if self._oauth.client_secret is None:
            form["client_id"] = self._oauth.client_id
        else:
            pair = f"{urllib.parse.quote(self._oauth.client_id, safe='')}:{urllib.parse.quote(self._oauth.client_secret, safe='')}"
            headers["Authorization"] = "Basic " + base64.b64encode(pair.encode()).decode()
        request = urllib.request.Request(
            f"{self._base_url}/oauth/token", data=urllib.parse.urlencode(form).encode(), headers=headers, method="POST"
        )
        try:
            with urllib.request.urlopen(request, timeout=self._timeout) as response:
                status, text = response.status, response.read().decode("utf-8")
        except urllib.error.HTTPError as error:
            status, text = error.code, error.read().decode("utf-8", "replace")
        try:
            body = json.loads(text)
        except ValueError:
            body = {}
        if status != 200 or not isinstance(body.get("access_token"), str) or not isinstance(body.get("refresh_token"), str):
            reason = body.get("error", status)
            raise AuthenticationError(
                f"BMS refused to renew the access token: {reason}.",
                status=status,
                code="INVALID_API_KEY",
                request_id=(body.get("meta") or {}).get("request_id"),
            )
        tokens = OAuthTokens(
            access_token=body["access_token"],
            refresh_token=body["refresh_token"],
            expires_at=time.time() + float(body.get("expires_in", 3600)),
            scope=str(body.get("scope", "")),
            install_id=str(body.get("install_id", "")),
            account_id=str(body.get("account_id", "")),
        )
        self._refresh_token = tokens.refresh_token
        self._access_token = tokens.access_token
        self._expires_at = tokens.expires_at
        if self._oauth.on_tokens is not None:
            self._oauth.on_tokens(tokens)
        return tokens.access_token
