"""Notebook 07, Part F: the Chat Completions adapter, the reference of the exercise.

A `ModelClient` (see `course_lib.turns`) over Chat Completions by hand: `messages` in, `choices[0].message`
out, results as role "tool" messages matched by `tool_call_id`. The other four adapters are given
(`course_lib.clients`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from course_lib.errors import ModelTurnError
from course_lib.loops import MODEL, post_json
from course_lib.tools import Tool
from course_lib.turns import Item, ToolResult, call_item, final_turn, tools_field

__all__ = ["ChatAdapter"]


class ChatAdapter:
    """Chat Completions over plain HTTP: `messages` in, `choices[0].message` out, results as role "tool"."""

    api = "chat"

    def __init__(self, base: str, tools: Sequence[Tool], *, model: str = MODEL) -> None:
        self.base, self.model, self.requests = base, model, 0
        self.tools = tools_field(self.api, tools)
        self.messages: list[dict[str, Any]] = []

    def start(self, user_text: str, *, timeout: float) -> list[Item]:
        """Send the user's request; return the first turn."""
        self.messages = [{"role": "user", "content": user_text}]
        return self._send(timeout)

    def reply(self, results: Sequence[ToolResult], *, timeout: float) -> list[Item]:
        """One role "tool" message per call, matched by tool_call_id; then the next turn."""
        self.messages += [{"role": "tool", "tool_call_id": r.id, "content": r.content} for r in results]
        return self._send(timeout)

    def _send(self, timeout: float) -> list[Item]:
        body: dict[str, Any] = {"model": self.model, "messages": self.messages}
        if self.tools:
            body["tools"] = self.tools
        self.requests += 1
        answer = post_json(self.base, "/chat/completions", body, timeout=max(timeout, 0.001))
        try:
            choice = answer["choices"][0]
            message, finish = choice["message"], choice.get("finish_reason")
            calls = [c for c in message.get("tool_calls") or [] if c.get("type") == "function"]
            turn = [call_item(c["id"], c["function"]["name"], c["function"]["arguments"]) for c in calls]
        except (KeyError, IndexError, TypeError, AttributeError):
            raise ModelTurnError("the answer is not a well-formed chat.completion") from None
        if finish == "length":
            raise ModelTurnError("the model's turn was cut off (finish_reason 'length'); nothing in it ran")
        self.messages.append(message)  # the assistant turn exactly as it came back
        return turn or final_turn(message.get("content"))

    def close(self) -> None:
        """Nothing to release: every request opens its own connection."""
