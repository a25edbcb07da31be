"""The entry points: ``BmsClient(api_key=..., base_url=...)`` and ``AsyncBmsClient`` (or either with no
arguments, reading ``BMS_API_KEY`` and ``BMS_BASE_URL``), with one attribute per resource."""
from __future__ import annotations

import asyncio
import time
from typing import Any, Dict, Literal, Mapping, Optional

from ._generated import AsyncResources, Resources
from .oauth import OAuth
from ._transport import AsyncTransport, Transport


#: The methods ``request`` sends.
HttpMethod = Literal["GET", "POST", "PUT", "PATCH", "DELETE"]


class BmsClient(Resources):
    """The blocking client. Safe to share between threads; its connections are kept alive and reused."""

    def __init__(
        self,
        api_key: Optional[str] = None,
        base_url: Optional[str] = None,
        *,
        timeout: float = 30.0,
        max_retries: int = 2,
        oauth: Optional[OAuth] = None,
    ) -> None:
        """``timeout`` is a deadline per attempt, in seconds; ``max_retries`` counts retries after the first.
        ``oauth``: an app's tokens instead of a key, renewed with its refresh token (``bms_sdk.OAuth``)."""
        self._transport = Transport(api_key, base_url, timeout, max_retries, oauth)
        super().__init__(self._transport)

    @classmethod
    def _over(cls, transport: Transport) -> "BmsClient":
        client = cls.__new__(cls)
        client._transport = transport
        Resources.__init__(client, transport)
        return client

    def request(
        self,
        method: HttpMethod,
        path: str,
        *,
        body: Optional[Mapping[str, Any]] = None,
        query: Optional[Mapping[str, Any]] = None,
        idempotency_key: Optional[str] = None,
        if_match: Optional[str] = None,
        extra_headers: Optional[Mapping[str, str]] = None,
        timeout: Optional[float] = None,
        max_retries: Optional[int] = None,
    ) -> Any:
        """Any request, for what the SDK has no method for yet (an endpoint newer than this version): ``path``
        starts with ``/v1``; the answer's ``data`` is returned, with the same authentication, retries,
        idempotency key and exceptions as every method. ``raw_response(bms.request)(...)`` gives the status and
        headers too."""
        return self._transport.request(
            method,
            path,
            body=body,
            query=query,
            idempotency_key=idempotency_key,
            if_match=if_match,
            extra_headers=extra_headers,
            timeout=timeout,
            max_retries=max_retries,
        )

    def import_csv(
        self,
        kind: Literal["client", "property", "product", "invoice"],
        csv: str,
        *,
        dry_run: bool = False,
        mapping: Optional[Mapping[str, Optional[str]]] = None,
        options: Optional[Mapping[str, Any]] = None,
        poll_interval: float = 0.5,
        wait_timeout: float = 600.0,
    ) -> Any:
        """Imports a CSV file and waits for it to end (contract section 26): makes the import, uploads ``csv``
        as ``text/csv``, then reads the import every ``poll_interval`` seconds until it is completed, failed or
        canceled, and returns it as it ended (``counts``, ``error``; its report: ``bms.imports.list_rows(id)``).
        Past ``wait_timeout`` seconds it raises ``TimeoutError``, leaving the import to go on."""
        body: Dict[str, Any] = {"kind": kind, "dry_run": dry_run}
        if mapping is not None:
            body["mapping"] = dict(mapping)
        if options is not None:
            body["options"] = dict(options)
        made = self._transport.request("POST", "/v1/imports", body=body)
        path = f"/v1/imports/{made['id']}"
        self._transport.request("PUT", f"{path}/file", text=(csv, "text/csv"))
        deadline = time.monotonic() + wait_timeout
        while True:
            current = self._transport.request("GET", path)
            if current["status"] in ("completed", "failed", "canceled"):
                return current
            if time.monotonic() > deadline:
                raise TimeoutError(f"The import {made['id']} has not ended yet (status {current['status']}).")
            time.sleep(poll_interval)

    def with_options(self, *, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> "BmsClient":
        """A client with other defaults that shares this one's key and connections:
        ``bms.with_options(max_retries=0).clients.list()``."""
        return BmsClient._over(self._transport.with_options(timeout, max_retries))

    @property
    def base_url(self) -> str:
        return self._transport.base_url

    def close(self) -> None:
        """Closes the kept-alive connections (they are closed at exit anyway)."""
        self._transport.close()

    def __enter__(self) -> "BmsClient":
        return self

    def __exit__(self, *exception: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<BmsClient {self.base_url}>"


class AsyncBmsClient(AsyncResources):
    """The asyncio client: every method is a coroutine; lists return an AsyncPage (``async for``). Use it
    from one event loop."""

    def __init__(
        self,
        api_key: Optional[str] = None,
        base_url: Optional[str] = None,
        *,
        timeout: float = 30.0,
        max_retries: int = 2,
        oauth: Optional[OAuth] = None,
    ) -> None:
        """As ``BmsClient``'s; ``oauth``'s ``on_tokens`` may be a coroutine function, which is awaited."""
        self._transport = AsyncTransport(api_key, base_url, timeout, max_retries, oauth)
        super().__init__(self._transport)

    @classmethod
    def _over(cls, transport: AsyncTransport) -> "AsyncBmsClient":
        client = cls.__new__(cls)
        client._transport = transport
        AsyncResources.__init__(client, transport)
        return client

    async def request(
        self,
        method: HttpMethod,
        path: str,
        *,
        body: Optional[Mapping[str, Any]] = None,
        query: Optional[Mapping[str, Any]] = None,
        idempotency_key: Optional[str] = None,
        if_match: Optional[str] = None,
        extra_headers: Optional[Mapping[str, str]] = None,
        timeout: Optional[float] = None,
        max_retries: Optional[int] = None,
    ) -> Any:
        """Any request, as :meth:`BmsClient.request` (a coroutine)."""
        return await self._transport.request(
            method,
            path,
            body=body,
            query=query,
            idempotency_key=idempotency_key,
            if_match=if_match,
            extra_headers=extra_headers,
            timeout=timeout,
            max_retries=max_retries,
        )

    async def import_csv(
        self,
        kind: Literal["client", "property", "product", "invoice"],
        csv: str,
        *,
        dry_run: bool = False,
        mapping: Optional[Mapping[str, Optional[str]]] = None,
        options: Optional[Mapping[str, Any]] = None,
        poll_interval: float = 0.5,
        wait_timeout: float = 600.0,
    ) -> Any:
        """Imports a CSV file and waits for it to end (contract section 26): makes the import, uploads ``csv``
        as ``text/csv``, then reads the import every ``poll_interval`` seconds until it is completed, failed or
        canceled, and returns it as it ended (``counts``, ``error``; its report: ``bms.imports.list_rows(id)``).
        Past ``wait_timeout`` seconds it raises ``TimeoutError``, leaving the import to go on."""
        body: Dict[str, Any] = {"kind": kind, "dry_run": dry_run}
        if mapping is not None:
            body["mapping"] = dict(mapping)
        if options is not None:
            body["options"] = dict(options)
        made = await self._transport.request("POST", "/v1/imports", body=body)
        path = f"/v1/imports/{made['id']}"
        await self._transport.request("PUT", f"{path}/file", text=(csv, "text/csv"))
        deadline = time.monotonic() + wait_timeout
        while True:
            current = await self._transport.request("GET", path)
            if current["status"] in ("completed", "failed", "canceled"):
                return current
            if time.monotonic() > deadline:
                raise TimeoutError(f"The import {made['id']} has not ended yet (status {current['status']}).")
            await asyncio.sleep(poll_interval)

    def with_options(self, *, timeout: Optional[float] = None, max_retries: Optional[int] = None) -> "AsyncBmsClient":
        """A client with other defaults that shares this one's key and connections."""
        return AsyncBmsClient._over(self._transport.with_options(timeout, max_retries))

    @property
    def base_url(self) -> str:
        return self._transport.base_url

    async def close(self) -> None:
        """Closes the kept-alive connections. A client that is never closed leaves none open either: each event
        loop closes the client's connections as it shuts down (``asyncio.run`` does)."""
        await self._transport.close()

    async def __aenter__(self) -> "AsyncBmsClient":
        return self

    async def __aexit__(self, *exception: Any) -> None:
        await self.close()

    def __repr__(self) -> str:
        return f"<AsyncBmsClient {self.base_url}>"
