"""A scripted HTTP server for what a real BMS never does: redirects, HTML from a proxy, a trickled body, a
409 while an idempotent request runs. Each request is answered by the next script entry (the last one
repeats), and every request's method, path and headers are recorded."""
from __future__ import annotations

import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Dict, List, Optional, Tuple

#: status, headers, body, and seconds to wait between the body's bytes (0: all at once).
Reply = Tuple[int, Dict[str, str], bytes, float]


class MockServer:
    def __init__(self, script: List[Reply]) -> None:
        self.requests: List[Tuple[str, str, Dict[str, str]]] = []
        self.connections = 0
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def setup(self) -> None:
                super().setup()
                server.connections += 1

            def log_message(self, format: str, *args: object) -> None:
                pass

            def _answer(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                if length:
                    self.rfile.read(length)
                server.requests.append((self.command, self.path, {k.lower(): v for k, v in self.headers.items()}))
                status, headers, body, trickle = script[min(len(server.requests), len(script)) - 1]
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if not trickle:
                    self.wfile.write(body)
                    return
                for byte in body:
                    self.wfile.write(bytes([byte]))
                    self.wfile.flush()
                    time.sleep(trickle)

            do_GET = do_POST = do_PUT = do_DELETE = _answer

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()


def json_reply(status: int, body: str, headers: Optional[Dict[str, str]] = None) -> Reply:
    return (status, {"Content-Type": "application/json", **(headers or {})}, body.encode(), 0.0)
