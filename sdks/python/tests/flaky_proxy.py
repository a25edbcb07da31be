"""A TCP proxy in front of the real server that fails the first connection, to test retries.

``reset`` resets it before the request reaches the server; ``drop-response`` lets the request through
and resets the connection as the response comes back, so the server has acted but the client never
hears of it. Later connections pass through untouched.
"""
from __future__ import annotations

import socket
import struct
import threading
from typing import Optional, Tuple
from urllib.parse import urlparse


def _reset(connection: socket.socket) -> None:
    connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    connection.close()


class FlakyProxy:
    def __init__(self, target: str, mode: str) -> None:
        parsed = urlparse(target)
        self._target: Tuple[str, int] = (parsed.hostname or "127.0.0.1", parsed.port or 80)
        self._mode = mode
        self.connections = 0
        self._listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._listener.bind(("127.0.0.1", 0))
        self._listener.listen()
        self.url = f"http://127.0.0.1:{self._listener.getsockname()[1]}"
        threading.Thread(target=self._accept, daemon=True).start()

    def close(self) -> None:
        self._listener.close()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            self.connections += 1
            first = self.connections == 1
            if first and self._mode == "reset":
                _reset(client)
                continue
            upstream = socket.create_connection(self._target)
            threading.Thread(target=self._pump, args=(client, upstream, None), daemon=True).start()
            threading.Thread(target=self._pump, args=(upstream, client, client if first else None), daemon=True).start()

    @staticmethod
    def _pump(source: socket.socket, destination: socket.socket, reset_on_data: Optional[socket.socket]) -> None:
        try:
            while True:
                data = source.recv(65536)
                if not data:
                    break
                if reset_on_data is not None:
                    _reset(reset_on_data)
                    break
                destination.sendall(data)
        except OSError:
            pass
        finally:
            for connection in (source, destination):
                try:
                    connection.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
