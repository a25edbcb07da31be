"""A list call returns a page: its ``data`` is the first page, and iterating it (``for``, or ``async for``
with the asyncio client) walks every object across all pages, following ``next_cursor`` one request at a
time."""
from __future__ import annotations

from typing import Any, AsyncIterator, Awaitable, Callable, Dict, Generator, Generic, Iterator, List, Optional, TypeVar

T = TypeVar("T")


class _PageBase(Generic[T]):
    def __init__(
        self,
        data: List[T],
        has_more: bool,
        next_cursor: Optional[str],
        request_id: Optional[str],
        fetch_page: Callable[[str], object],
        *,
        status: int = 200,
        headers: Optional[Dict[str, str]] = None,
    ) -> None:
        #: The objects on this page: at most ``limit``, possibly fewer, even none, while ``has_more`` is true.
        self.data = data
        self.has_more = has_more
        #: Pass as ``cursor`` to get the next page; None on the last page.
        self.next_cursor = next_cursor
        self.request_id = request_id
        self.status = status
        self.headers: Dict[str, str] = dict(headers or {})
        self._fetch_page = fetch_page

    def __repr__(self) -> str:
        return f"<{type(self).__name__} of {len(self.data)} has_more={self.has_more}>"


class Page(_PageBase[T]):
    def next_page(self) -> Optional[Page[T]]:
        """The following page, or None when this is the last one."""
        if not self.has_more or self.next_cursor is None:
            return None
        page: Page[T] = self._fetch_page(self.next_cursor)  # type: ignore[assignment]
        return page

    def __iter__(self) -> Iterator[T]:
        """Every object from this page to the end of the list."""
        page: Optional[Page[T]] = self
        while page is not None:
            yield from page.data
            page = page.next_page()


class AsyncPage(_PageBase[T]):
    async def next_page(self) -> Optional[AsyncPage[T]]:
        """The following page, or None when this is the last one."""
        if not self.has_more or self.next_cursor is None:
            return None
        fetch: Callable[[str], Awaitable[AsyncPage[T]]] = self._fetch_page  # type: ignore[assignment]
        return await fetch(self.next_cursor)

    async def __aiter__(self) -> AsyncIterator[T]:
        """Every object from this page to the end of the list."""
        page: Optional[AsyncPage[T]] = self
        while page is not None:
            for item in page.data:
                yield item
            page = await page.next_page()


class AsyncPagePromise(Generic[T]):
    """What an asyncio client's ``list`` returns: ``await`` it for the first page (an ``AsyncPage``), or
    ``async for`` over it to walk every object across all pages. The request is made on first use."""

    def __init__(self, load: Callable[[], Awaitable[AsyncPage[T]]]) -> None:
        self._load = load
        self._page: Optional[AsyncPage[T]] = None

    async def _first(self) -> AsyncPage[T]:
        if self._page is None:
            self._page = await self._load()
        return self._page

    def __await__(self) -> Generator[Any, None, AsyncPage[T]]:
        return self._first().__await__()

    async def __aiter__(self) -> AsyncIterator[T]:
        async for item in await self._first():
            yield item
