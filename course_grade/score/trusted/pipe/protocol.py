"""Length-prefixed JSON messages over a pair of pipes, with a size limit on every message and a deadline on every read.

A message is 4 bytes of big-endian length, then that many bytes of UTF-8 JSON (ASCII in practice: every
string is escaped). A reader refuses a length over its limit before reading the body, and gives up at its
deadline, so a peer that floods, stalls, dies or prints garbage makes a `ProtocolError`, never a hang.
"""

from __future__ import annotations

import json
import os
import select
import struct
import time
from typing import Any

HEADER = struct.Struct(">I")

MAX_MESSAGE_BYTES = 16 * 1024 * 1024
"""The largest message either side sends or accepts (the largest published test input is far smaller)."""


class ProtocolError(Exception):
    """The peer broke the message protocol: too large, not JSON, cut short, silent past a deadline, or gone."""


def send(fd: int, message: Any, limit: int = MAX_MESSAGE_BYTES) -> None:
    """Write one message; one that would be larger than `limit` is refused before anything is written."""
    body = json.dumps(message, ensure_ascii=True, allow_nan=False, separators=(",", ":")).encode("ascii")
    if len(body) > limit:
        raise ProtocolError(f"a message of {len(body)} bytes is over the {limit}-byte limit")
    data = memoryview(HEADER.pack(len(body)) + body)
    while data:
        try:
            written = os.write(fd, data)
        except (BrokenPipeError, OSError) as error:
            raise ProtocolError(f"the other side is gone ({type(error).__name__})") from None
        data = data[written:]


def receive(fd: int, deadline: float | None, limit: int = MAX_MESSAGE_BYTES) -> Any:
    """Read one message, waiting until `deadline` (a `time.monotonic()` value; None: forever)."""
    (length,) = HEADER.unpack(_exactly(fd, HEADER.size, deadline))
    if length > limit:
        raise ProtocolError(f"a message of {length} bytes is over the {limit}-byte limit")
    body = _exactly(fd, length, deadline)
    try:
        return json.loads(body.decode("ascii"))
    except (UnicodeDecodeError, ValueError) as error:
        raise ProtocolError(f"a message that is not JSON: {str(error)[:80]}") from None


def _exactly(fd: int, count: int, deadline: float | None) -> bytes:
    """`count` bytes from `fd`, or a ProtocolError at end of file or at the deadline."""
    chunks, missing = [], count
    while missing:
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                raise ProtocolError("no answer before the deadline")
        try:
            chunk = os.read(fd, min(missing, 1 << 20))
        except OSError as error:
            raise ProtocolError(f"the other side is gone ({type(error).__name__})") from None
        if not chunk:
            raise ProtocolError("the other side closed the connection")
        chunks.append(chunk)
        missing -= len(chunk)
    return b"".join(chunks)
