"""An app's tokens (BMS's OAuth 2.1 server, contract §25): a client built with a refresh token asks for an
access token before its first call, again before the one it holds expires and after a 401, and hands every
new pair to ``on_tokens``: refresh tokens rotate at every use, so the app must keep the newest. Threads share
one renewal (``TokenRefresher``); so do the tasks of an asyncio client (``AsyncTokenRefresher``), whose
renewal runs in a thread so the event loop never waits on it. The tokens are never shown in ``repr``."""
from __future__ import annotations

import asyncio
import base64
import inspect
import json
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable, Optional, Union

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
    #: Called with every new pair; an asyncio client also awaits it when it is a coroutine function.
    on_tokens: Optional[Callable[[OAuthTokens], Union[None, Awaitable[None]]]] = None


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

    def current(self) -> Optional[str]:
        """The access token held, while it is not about to expire; else None."""
        if self._access_token is not None and time.time() < self._expires_at - _EARLY:
            return self._access_token
        return None

    def held(self) -> Optional[str]:
        """The access token held, whatever its expiry."""
        return self._access_token

    def access_token(self) -> str:
        """The access token to send now, renewed first when it is missing or about to expire."""
        with self._lock:
            current = self.current()
            return current if current is not None else self._refresh()

    def renew(self, rejected: str) -> str:
        """A new pair after ``rejected`` was refused (401); another thread's renewal is used when it came first."""
        with self._lock:
            if self._access_token is not None and self._access_token != rejected:
                return self._access_token
            return self._refresh()

    def _refresh(self) -> str:
        tokens = self.request_pair()
        self.adopt(tokens)
        if self._oauth.on_tokens is not None:
            self._oauth.on_tokens(tokens)
        return tokens.access_token

    def adopt(self, tokens: OAuthTokens) -> None:
        """Holds a new pair: its refresh token is the one the next renewal presents."""
        self._refresh_token = tokens.refresh_token
        self._access_token = tokens.access_token
        self._expires_at = tokens.expires_at

    @property
    def on_tokens(self) -> Optional[Callable[[OAuthTokens], Union[None, Awaitable[None]]]]:
        return self._oauth.on_tokens

    def request_pair(self) -> OAuthTokens:
        """Asks the token endpoint for a new pair with the refresh token held (blocking); changes nothing here."""
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
        return OAuthTokens(
            access_token=body["access_token"],
            refresh_token=body["refresh_token"],
            expires_at=time.time() + float(body.get("expires_in", 3600)),
            scope=str(body.get("scope", "")),
            install_id=str(body.get("install_id", "")),
            account_id=str(body.get("account_id", "")),
        )


class AsyncTokenRefresher:
    """The asyncio client's refresher: ``TokenRefresher``'s rules, one renewal shared by the client's tasks (an
    ``asyncio.Lock``), the request made in a thread, and ``on_tokens`` called (and awaited, when it is a
    coroutine function) in the event loop."""

    def __init__(self, tokens: TokenRefresher) -> None:
        self._tokens = tokens
        self._lock: Optional[asyncio.Lock] = None

    def __repr__(self) -> str:
        return f"<AsyncTokenRefresher {self._tokens._oauth.client_id}>"

    def _guard(self) -> asyncio.Lock:
        if self._lock is None:
            self._lock = asyncio.Lock()
        return self._lock

    async def access_token(self) -> str:
        """The access token to send now, renewed first when it is missing or about to expire."""
        async with self._guard():
            current = self._tokens.current()
            return current if current is not None else await self._refresh()

    async def renew(self, rejected: str) -> str:
        """A new pair after ``rejected`` was refused (401); another task's renewal is used when it came first."""
        async with self._guard():
            held = self._tokens.held()
            if held is not None and held != rejected:
                return held
            return await self._refresh()

    async def _refresh(self) -> str:
        tokens = await asyncio.to_thread(self._tokens.request_pair)
        self._tokens.adopt(tokens)
        callback = self._tokens.on_tokens
        if callback is not None:
            outcome: Any = callback(tokens)
            if inspect.isawaitable(outcome):
                await outcome
        return tokens.access_token
