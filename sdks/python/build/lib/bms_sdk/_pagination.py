"""A list call returns a Page: its ``data`` is the first page, and iterating it walks every object
across all pages, following ``next_cursor`` one request at a time."""
from __future__ import annotations

from typing import Callable, Generic, Iterator, List, Optional, TypeVar

T = TypeVar("T")


class Page(Generic[T]):
    def __init__(
        self,
        data: List[T],
        has_more: bool,
        next_cursor: Optional[str],
        request_id: Optional[str],
        fetch_page: Callable[[str], "Page[T]"],
    ) -> None:
        #: The objects on this page.
        self.data = data
        self.has_more = has_more
        #: Pass as ``cursor`` to get the next page; None on the last page.
        self.next_cursor = next_cursor
        self.request_id = request_id
        self._fetch_page = fetch_page

    def next_page(self) -> Optional[Page[T]]:
        """The following page, or None when this is the last one."""
        if not self.has_more or self.next_cursor is None:
            return None
        return self._fetch_page(self.next_cursor)

    def __iter__(self) -> Iterator[T]:
        """Every object from this page to the end of the list."""
        page: Optional[Page[T]] = self
        while page is not None:
            yield from page.data
            page = page.next_page()

    def __repr__(self) -> str:
        return f"<Page of {len(self.data)} has_more={self.has_more}>"
