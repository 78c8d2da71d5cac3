"""Plain-HTTP access to a stand-in, and the request pieces many tests share."""

from __future__ import annotations

import json
import socket
import urllib.error
import urllib.request
from typing import Any

from course_lib.standin import StandIn


def call(
    server: StandIn, path: str, body: Any, method: str = "POST"
) -> tuple[int, dict[str, Any], dict[str, str]]:
    """Send one request with urllib; return (status, decoded body, headers)."""
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    request = urllib.request.Request(
        server.base + path, data=data if method == "POST" else None, method=method
    )
    request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.load(response), dict(response.headers)
    except urllib.error.HTTPError as error:
        return error.code, json.load(error), dict(error.headers)


def raw_exchange(server: StandIn, request: bytes, *, shut_write: bool = True) -> bytes:
    """Send raw bytes over a socket and return everything the server answers before closing."""
    with socket.create_connection(("127.0.0.1", server.port), timeout=15) as sock:
        sock.sendall(request)
        if shut_write:
            sock.shutdown(socket.SHUT_WR)
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


USER = [{"role": "user", "content": "Weather in Paris?"}]
PARIS = '{"city": "Paris", "unit": "celsius"}'
CHAT_TOOLS = [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}]
RESPONSES_TOOLS = [{"type": "function", "name": "get_weather", "parameters": {"type": "object"}}]
