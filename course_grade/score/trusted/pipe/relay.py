"""The stand-in, reached from the learner's process through the pipe.

The stand-in of the loop exercises runs on the trusted side (the test cells reset and read it). The
learner's process may live in a network namespace of its own, where the trusted side's loopback port is not
reachable, so it listens on its own loopback at the same port and forwards every HTTP request over the
pipe (`listen`); the trusted side replays it against the real stand-in and sends the answer back (`answer`).
Where the learner shares the trusted side's network, the port is taken, nothing listens, and the learner's
requests go to the stand-in directly.
"""

from __future__ import annotations

import contextlib
import http.client
import threading
from collections.abc import Callable, Iterable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

MAX_BODY_BYTES = 2 * 1024 * 1024
"""The largest request or response body relayed (the stand-in refuses far smaller requests itself)."""

METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS")

HOP_BY_HOP = {
    "connection",
    "keep-alive",
    "transfer-encoding",
    "content-length",
    "proxy-connection",
    "upgrade",
}

Exchange = Callable[[dict[str, Any]], dict[str, Any]]
"""Send one relayed request over the pipe and wait for its answer (the learner's side)."""


def listen(ports: Iterable[int], exchange: Exchange) -> list[ThreadingHTTPServer]:
    """A loopback listener per free port, each forwarding through `exchange` (taken ports are skipped)."""
    servers = []
    for port in ports:
        try:
            server = ThreadingHTTPServer(("127.0.0.1", port), _handler(port, exchange))
        except OSError:  # the stand-in itself is there: the learner reaches it directly
            continue
        server.daemon_threads = True
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
    return servers


def _handler(port: int, exchange: Exchange) -> type[BaseHTTPRequestHandler]:
    class Relay(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _forward(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            if length > MAX_BODY_BYTES or length < 0:
                self.send_error(413)
                return
            body = self.rfile.read(length) if length else b""
            headers = [[k, v] for k, v in self.headers.items() if k.lower() not in HOP_BY_HOP]
            reply = exchange(
                {"op": "http", "port": port, "method": self.command, "path": self.path, "headers": headers,
                 "body": body.decode("latin-1")}
            )  # fmt: skip
            data = str(reply.get("body", "")).encode("latin-1")
            self.send_response(int(reply.get("status", 502)))
            for key, value in reply.get("headers") or []:
                if str(key).lower() not in HOP_BY_HOP:
                    self.send_header(str(key), str(value))
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(data)

        do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_OPTIONS = _forward

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Relay


def answer(message: dict[str, Any], ports: Iterable[int], timeout: float) -> dict[str, Any]:
    """Replay one relayed request against the trusted side's stand-in (only at its ports); the reply message."""
    port, method, path = message.get("port"), message.get("method"), message.get("path")
    headers, body = message.get("headers"), message.get("body")
    if port not in set(ports) or method not in METHODS or type(path) is not str or not path.startswith("/"):
        return _refusal(502, "the relay reaches only the stand-in")
    if type(headers) is not list or type(body) is not str or len(body) > MAX_BODY_BYTES:
        return _refusal(400, "a relayed request that is not well formed")
    connection = http.client.HTTPConnection("127.0.0.1", int(port), timeout=timeout)
    try:
        connection.putrequest(method, path, skip_host=False, skip_accept_encoding=True)
        for pair in headers:
            if type(pair) is list and len(pair) == 2 and str(pair[0]).lower() not in HOP_BY_HOP | {"host"}:
                connection.putheader(str(pair[0]), str(pair[1]))
        data = body.encode("latin-1")
        connection.putheader("Content-Length", str(len(data)))
        connection.endheaders(data)
        response = connection.getresponse()
        content = response.read(MAX_BODY_BYTES + 1)[:MAX_BODY_BYTES]
        return {
            "op": "http-reply", "status": response.status, "body": content.decode("latin-1"),
            "headers": [[k, v] for k, v in response.getheaders() if k.lower() not in HOP_BY_HOP],
        }  # fmt: skip
    except (OSError, ValueError, http.client.HTTPException) as error:
        return _refusal(502, f"the stand-in could not be reached: {type(error).__name__}")
    finally:
        with contextlib.suppress(Exception):
            connection.close()


def _refusal(status: int, text: str) -> dict[str, Any]:
    return {"op": "http-reply", "status": status, "headers": [["Content-Type", "text/plain"]], "body": text}
