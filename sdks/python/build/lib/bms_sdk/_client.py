"""The entry point: ``BmsClient(api_key=..., base_url=...)``, with one attribute per resource."""
from __future__ import annotations

from typing import Optional

from ._generated import Resources
from ._transport import ResponseInfo, Transport


class BmsClient(Resources):
    def __init__(
        self,
        api_key: str,
        base_url: str = "http://localhost:3000",
        *,
        timeout: float = 30.0,
        max_retries: int = 2,
    ) -> None:
        """``timeout`` is per attempt, in seconds; ``max_retries`` counts retries after the first attempt."""
        self._transport = Transport(api_key, base_url, timeout, max_retries)
        super().__init__(self._transport)

    @property
    def last_response(self) -> Optional[ResponseInfo]:
        """Status, request id, ETag and headers of the latest response on this thread."""
        return self._transport.last_response
