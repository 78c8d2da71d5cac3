"""Server-sent events: the framing of a streamed answer, and the deterministic fragments it is cut into.

A streamed answer is the same answer as the JSON one, cut into events. Where the real API cuts text and
argument strings is the model's business (token boundaries); the stand-in cuts them at points drawn from
a generator seeded by the answer's id, so they fall anywhere (inside a key, between a backslash and the
character it escapes) yet the same script always gives the same bytes.
"""

from __future__ import annotations

import json
import random
from typing import Any, NamedTuple

MAX_FRAGMENT = 7
"""The longest fragment a string is cut into, in characters."""


class Event(NamedTuple):
    """One server-sent event: an optional `event:` name and its `data:` (a JSON object, or a bare string)."""

    name: str | None
    data: dict[str, Any] | str


def fragments(text: str, seed: str) -> list[str]:
    """`text` cut at reproducible, arbitrary points into pieces of 1 to MAX_FRAGMENT characters ('' is one piece)."""
    if not text:
        return [""]
    rng = random.Random(seed)
    pieces, start = [], 0
    while start < len(text):
        end = min(len(text), start + rng.randint(1, MAX_FRAGMENT))
        pieces.append(text[start:end])
        start = end
    return pieces


def encode(event: Event) -> bytes:
    """The event as it goes on the wire: `event: name` (if any), `data: ...`, then a blank line."""
    data = event.data if isinstance(event.data, str) else json.dumps(event.data)
    head = f"event: {event.name}\n" if event.name else ""
    return f"{head}data: {data}\n\n".encode()


def decode(raw: bytes) -> list[Event]:
    """Parse a whole event stream back into events (JSON data parsed, `[DONE]` kept as a string)."""
    events = []
    for block in raw.decode("utf-8").split("\n\n"):
        if not block.strip():
            continue
        name, data = None, []
        for line in block.split("\n"):
            field, _, value = line.partition(": ")
            if field == "event":
                name = value
            elif field == "data":
                data.append(value)
        text = "\n".join(data)
        events.append(Event(name, text if text == "[DONE]" else json.loads(text)))
    return events
