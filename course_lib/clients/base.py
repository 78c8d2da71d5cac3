"""What the four given adapters share: the request count, the `tools` field of their API, and a history in
the API's own format that `start` begins with the user's message.

Each adapter adds `reply` (the results as its API answers calls), `_send` (one request, read back into a turn)
and `close`. 07's exercise, `course_lib.adapters.ChatAdapter`, does not build on this: a key stays readable
on its own, and a learners' edition can leave it out.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from course_lib.tools import Tool
from course_lib.turns import Item, tools_field

__all__ = ["GivenAdapter"]


class GivenAdapter:
    """A `ModelClient` (see `course_lib.turns`) without its API: the parts every given adapter has."""

    api: str
    """The adapter's name in `course_lib.turns.APIS`."""

    def __init__(self, tools: Sequence[Tool], model: str) -> None:
        self.model, self.requests = model, 0
        self.tools = tools_field(self.api, tools)
        self.history: list[dict[str, Any]] = []
        """The conversation as the API carries it: chat and Anthropic `messages`, Responses `input` items."""

    def start(self, user_text: str, *, timeout: float) -> list[Item]:
        """Send the user's request; return the first turn."""
        self.history = [{"role": "user", "content": user_text}]
        return self._send(timeout)

    def _send(self, timeout: float) -> list[Item]:
        """Send the history; return the model's turn (each API its own way)."""
        raise NotImplementedError
