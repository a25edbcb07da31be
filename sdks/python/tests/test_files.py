"""Uploads and downloads against a real BMS server (contract section 30): a file uploaded from a path, a file
object, a stream that cannot seek, and bytes, each downloaded to a file whose sha256 is the source's; a failed
download leaves no file behind and the destination as it was."""
from __future__ import annotations

import asyncio
import hashlib
import io
import os
import socket
import tempfile
import threading
import unittest
from typing import List

from bms_sdk import AsyncBmsClient, BmsClient, NotFoundError, ValidationError, raw_response

BASE_URL = os.environ.get("BMS_BASE_URL", "")
API_KEY = os.environ.get("BMS_API_KEY", "")

#: About 2.8 MB of text: several times the chunk the SDK reads and sends at once.
TEXT = "".join(f"line {n}: gutters cleared, downpipes checked\n" for n in range(60_000)).encode("utf-8")
SHA256 = hashlib.sha256(TEXT).hexdigest()


def sha256_of(path: str) -> str:
    with open(path, "rb") as file:
        return hashlib.sha256(file.read()).hexdigest()


class OnlyReads(io.RawIOBase):
    """A stream that cannot seek (a pipe, a socket): its upload is sent chunked."""

    def __init__(self, data: bytes) -> None:
        self._data = io.BytesIO(data)

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: "memoryview") -> int:  # type: ignore[override]
        chunk = self._data.read(min(len(buffer), 10_000))
        buffer[: len(chunk)] = chunk
        return len(chunk)


@unittest.skipUnless(BASE_URL, "needs a running server: BMS_BASE_URL and BMS_API_KEY")
class Files(unittest.TestCase):
    def setUp(self) -> None:
        self.bms = BmsClient(api_key=API_KEY, base_url=BASE_URL)
        self.client = self.bms.clients.create(name="Files Client")
        self.directory = tempfile.mkdtemp(prefix="bms-sdk-files-")
        self.source = os.path.join(self.directory, "notes.txt")
        with open(self.source, "wb") as file:
            file.write(TEXT)

    def left(self) -> List[str]:
        return sorted(name for name in os.listdir(self.directory) if name.endswith(".part"))

    def test_upload_from_a_path_a_file_a_stream_and_bytes_then_download_each_to_a_file(self) -> None:
        bms = self.bms
        parent = self.client["id"]
        with open(self.source, "rb") as opened:
            uploads = [
                raw_response(bms.attachments.create)(self.source, parent_type="client", parent_id=parent, caption="From a path", metadata='{"source":"path"}'),
                raw_response(bms.attachments.create)(opened, parent_type="client", parent_id=parent),
                raw_response(bms.attachments.create)(io.BufferedReader(OnlyReads(TEXT)), parent_type="client", parent_id=parent, filename="stream.txt"),
                raw_response(bms.attachments.create)(TEXT, parent_type="client", parent_id=parent, filename="bytes.txt", visible_on_hub=True),
            ]
        self.assertEqual([upload.status for upload in uploads], [201, 201, 201, 201])
        made = [upload.data for upload in uploads]
        self.assertEqual([attachment["filename"] for attachment in made], ["notes.txt", "notes.txt", "stream.txt", "bytes.txt"])
        for attachment in made:
            self.assertEqual(attachment["content_type"], "text/plain")
            self.assertEqual(attachment["size_bytes"], len(TEXT))
            self.assertEqual(attachment["sha256"], SHA256)
        self.assertEqual(made[0]["caption"], "From a path")
        self.assertEqual(made[0]["metadata"], {"source": "path"})
        self.assertTrue(made[3]["visible_on_hub"])
        for attachment in made:
            destination = os.path.join(self.directory, f"{attachment['id']}.txt")
            answered = raw_response(bms.attachments.download_to_file)(attachment["id"], destination)
            self.assertEqual(answered.status, 200)
            self.assertEqual(answered.data, destination)
            self.assertEqual(sha256_of(destination), SHA256)
        self.assertEqual(self.left(), [])

    def test_an_upload_refused_before_its_bytes_are_read_answers_the_refusal(self) -> None:
        with self.assertRaises(ValidationError) as refused:
            self.bms.attachments.create(self.source, parent_type="client", parent_id="00000000-0000-4000-8000-000000000000")
        self.assertEqual(refused.exception.status, 422)

    def test_a_failed_download_leaves_no_file_and_the_destination_as_it_was(self) -> None:
        destination = os.path.join(self.directory, "kept.txt")
        with open(destination, "wb") as file:
            file.write(b"the earlier copy")
        with self.assertRaises(NotFoundError):
            self.bms.attachments.download_to_file("00000000-0000-4000-8000-000000000000", destination)
        with open(destination, "rb") as file:
            self.assertEqual(file.read(), b"the earlier copy")
        missing = os.path.join(self.directory, "missing.txt")
        with self.assertRaises(NotFoundError):
            self.bms.attachments.download_to_file("00000000-0000-4000-8000-000000000000", missing)
        self.assertFalse(os.path.exists(missing))
        self.assertEqual(self.left(), [])

    def test_a_download_cut_off_mid_body_leaves_no_partial_file(self) -> None:
        attachment = self.bms.attachments.create(TEXT, parent_type="client", parent_id=self.client["id"], filename="cut.txt")
        cut = CuttingProxy(BASE_URL, after=100_000)
        try:
            proxied = BmsClient(api_key=API_KEY, base_url=cut.url, max_retries=0)
            destination = os.path.join(self.directory, "cut.txt")
            with self.assertRaises(Exception):
                proxied.attachments.download_to_file(attachment["id"], destination)
            self.assertFalse(os.path.exists(destination))
            self.assertEqual(self.left(), [])
        finally:
            cut.close()

    def test_async_upload_from_a_path_and_a_stream_then_download_to_a_file(self) -> None:
        async def main() -> None:
            async with AsyncBmsClient(api_key=API_KEY, base_url=BASE_URL) as bms:
                parent = self.client["id"]
                from_path = await bms.attachments.create(self.source, parent_type="client", parent_id=parent)
                from_stream = await bms.attachments.create(io.BufferedReader(OnlyReads(TEXT)), parent_type="client", parent_id=parent, filename="async.txt")
                for attachment in (from_path, from_stream):
                    self.assertEqual(attachment["sha256"], SHA256)
                    destination = os.path.join(self.directory, f"async-{attachment['id']}.txt")
                    self.assertEqual(await bms.attachments.download_to_file(attachment["id"], destination), destination)
                    self.assertEqual(sha256_of(destination), SHA256)
                with self.assertRaises(NotFoundError):
                    await bms.attachments.download_to_file("00000000-0000-4000-8000-000000000000", os.path.join(self.directory, "none.txt"))
            self.assertFalse(os.path.exists(os.path.join(self.directory, "none.txt")))
            self.assertEqual(self.left(), [])

        asyncio.run(main())


class CuttingProxy:
    """Passes one connection's request to the server and only the first ``after`` bytes of its answer back, then
    closes: a download cut off mid-body."""

    def __init__(self, target: str, after: int) -> None:
        host, port = target.split("://", 1)[1].split(":")
        self._target = (host, int(port))
        self._after = after
        self._listener = socket.socket()
        self._listener.bind(("127.0.0.1", 0))
        self._listener.listen()
        self.url = f"http://127.0.0.1:{self._listener.getsockname()[1]}"
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        try:
            incoming, _ = self._listener.accept()
        except OSError:
            return
        with incoming, socket.create_connection(self._target) as outgoing:
            request = incoming.recv(65536)
            outgoing.sendall(request)
            sent = 0
            while sent < self._after:
                chunk = outgoing.recv(65536)
                if not chunk:
                    break
                incoming.sendall(chunk[: self._after - sent])
                sent += len(chunk)

    def close(self) -> None:
        self._listener.close()


if __name__ == "__main__":
    unittest.main()
