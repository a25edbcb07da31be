"""Files for the SDK: an upload's multipart body, read in chunks as it is sent (never whole in memory for a path
or a stream), and a download's file, written under a temporary name beside its destination, flushed to disk and
renamed over it, or removed if anything fails."""
from __future__ import annotations

import json
import mimetypes
import os
import uuid
from typing import IO, Any, Iterator, Mapping, Optional, Union

#: What an upload method takes: a path (``str`` or ``pathlib.Path``), bytes, or a binary file object (``open(p,
#: "rb")``, a socket's ``makefile("rb")``, ``io.BytesIO``). A path, bytes or a seekable file are sent with their
#: length and retried like any call; a file that cannot seek is sent chunked, once.
UploadFile = Union[str, "os.PathLike[str]", bytes, bytearray, memoryview, IO[bytes]]

#: Where a download goes: a path.
Destination = Union[str, "os.PathLike[str]"]

CHUNK = 64 * 1024

#: The media types an upload is declared as, beside Python's own table (which may lack HEIC, by platform). The
#: server detects the type from the bytes anyway; text must be declared text/plain or text/csv.
_TYPES = {".heic": "image/heic", ".heif": "image/heif", ".webp": "image/webp", ".csv": "text/csv", ".txt": "text/plain"}


def _quoted(text: str) -> str:
    return "".join(f"%{ord(character):02X}" if character in '\r\n"\\' else character for character in text)


def _field(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (dict, list)):
        return json.dumps(value)
    return str(value)


class Form:
    """An upload's ``multipart/form-data`` body: the text fields, then the file as the part ``part``, named after
    the path, the file object's name or ``fields["filename"]``, and typed by its extension."""

    def __init__(self, part: str, fields: Mapping[str, Any], file: UploadFile) -> None:
        boundary = f"bms-{uuid.uuid4()}"
        name: Optional[str] = fields.get("filename")
        self._path: Optional[str] = None
        self._bytes: Optional[memoryview] = None
        self._stream: Optional[IO[bytes]] = None
        self._start: Optional[int] = None
        size: Optional[int]
        if isinstance(file, (str, os.PathLike)):
            self._path = os.fspath(file)
            name = name or os.path.basename(self._path)
            size = os.path.getsize(self._path)
        elif isinstance(file, (bytes, bytearray, memoryview)):
            self._bytes = memoryview(file).cast("B")
            size = self._bytes.nbytes
        else:
            self._stream = file
            own = getattr(file, "name", None)
            name = name or (os.path.basename(own) if isinstance(own, str) else None)
            size = None
            if file.seekable():
                self._start = file.tell()
                size = file.seek(0, os.SEEK_END) - self._start
                file.seek(self._start)
        name = name or "file"
        extension = os.path.splitext(name)[1].lower()
        content_type = _TYPES.get(extension) or mimetypes.guess_type(name)[0] or "application/octet-stream"
        head = "".join(
            f'--{boundary}\r\nContent-Disposition: form-data; name="{_quoted(key)}"\r\n\r\n{_field(value)}\r\n'
            for key, value in fields.items()
        )
        head += f'--{boundary}\r\nContent-Disposition: form-data; name="{_quoted(part)}"; filename="{_quoted(name)}"\r\nContent-Type: {content_type}\r\n\r\n'
        self._head = head.encode("utf-8")
        self._tail = f"\r\n--{boundary}--\r\n".encode("ascii")
        self.content_type = f"multipart/form-data; boundary={boundary}"
        #: None: sent chunked (a stream of unknown length).
        self.length = None if size is None else len(self._head) + size + len(self._tail)
        #: A stream that cannot seek is read once: its upload is not retried.
        self.replayable = self._stream is None or self._start is not None

    def chunks(self) -> Iterator[Union[bytes, memoryview]]:
        """The body, from its start (again on a retry)."""
        yield self._head
        if self._path is not None:
            with open(self._path, "rb") as file:
                while chunk := file.read(CHUNK):
                    yield chunk
        elif self._bytes is not None:
            yield self._bytes
        elif self._stream is not None:
            if self._start is not None:
                self._stream.seek(self._start)
            while chunk := self._stream.read(CHUNK):
                yield chunk
        yield self._tail


class TemporaryFile:
    """A download's file: written under a temporary name beside ``destination`` (one disk, so the rename is
    atomic), flushed to disk and renamed over it when the block ends without an exception; removed otherwise."""

    def __init__(self, destination: Destination) -> None:
        self.destination = os.fspath(destination)
        directory, base = os.path.split(os.path.abspath(self.destination))
        self.path = os.path.join(directory, f".{base}.{uuid.uuid4().hex}.part")
        # Created with the usual mode (0666 less the umask), as the destination would be.
        self.file = os.fdopen(os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666), "wb")

    def fresh(self) -> IO[bytes]:
        """The file, emptied: each attempt of a retried download writes it from the start."""
        self.file.seek(0)
        self.file.truncate()
        return self.file

    def __enter__(self) -> "TemporaryFile":
        return self

    def __exit__(self, kind: Any, *rest: Any) -> None:
        try:
            if kind is None:
                self.file.flush()
                os.fsync(self.file.fileno())
            self.file.close()
            if kind is None:
                os.replace(self.path, self.destination)
                return
        except BaseException:
            self._remove()
            raise
        self._remove()

    def _remove(self) -> None:
        self.file.close()
        try:
            os.unlink(self.path)
        except FileNotFoundError:
            pass
