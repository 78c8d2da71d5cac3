"""Notebook 07's given adapter for Anthropic Messages through its SDK: tools with `input_schema`, `tool_use`
blocks in, `tool_result` blocks with `is_error` out. A call's `input` arrives as an object, so truncated
arguments cannot arrive as a call: the turn ends at `stop_reason: "max_tokens"` instead, a `ModelTurnError`."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING

from course_lib.clients.sdk import SDKAdapter, sdk_error, sendable
from course_lib.errors import ModelTurnError
from course_lib.tools import Tool
from course_lib.turns import Item, ToolResult, call_item, final_turn, tools_entry

if TYPE_CHECKING:  # the SDK is imported only when the adapter is used: the import costs seconds
    import anthropic

__all__ = ["ANTHROPIC_MAX_TOKENS", "ANTHROPIC_MODEL", "AnthropicAdapter"]

ANTHROPIC_MODEL = os.environ.get("ANTHROPIC_MODEL", "stand-in-model")
ANTHROPIC_MAX_TOKENS = 1024


class AnthropicAdapter(SDKAdapter):
    """Anthropic Messages: tools with `input_schema`, `tool_use` blocks in, `tool_result` blocks with `is_error` out."""

    api = "anthropic"
    client: anthropic.Anthropic

    def __init__(
        self, client: anthropic.Anthropic, tools: Sequence[Tool], *, model: str = ANTHROPIC_MODEL
    ) -> None:
        super().__init__(client, tools, model=model)

    def reply(self, results: Sequence[ToolResult], *, timeout: float) -> list[Item]:
        """One user message holding a tool_result block per tool_use block; then the next turn."""
        blocks = [
            {"type": "tool_result", "tool_use_id": r.id, "content": r.content, "is_error": r.is_error}
            for r in results
        ]
        self.history.append({"role": "user", "content": blocks})
        return self._send(timeout)

    def _send(self, timeout: float) -> list[Item]:
        import anthropic

        extra = tools_entry(self.tools)
        self.requests += 1
        try:
            message = self.client.messages.create(
                model=self.model,
                max_tokens=ANTHROPIC_MAX_TOKENS,
                messages=sendable(self.history),
                timeout=max(timeout, 0.001),
                **extra,
            )
        except anthropic.APIError as error:
            raise sdk_error(anthropic, error) from None
        if message.stop_reason == "max_tokens":
            raise ModelTurnError("the model's turn was cut off (stop_reason 'max_tokens'); nothing in it ran")
        content = [block.model_dump(exclude_none=True) for block in message.content]
        uses = [block for block in content if block.get("type") == "tool_use"]
        texts = [block["text"] for block in content if block.get("type") == "text"]
        if content:
            self.history.append({"role": "assistant", "content": content})
        turn = [call_item(use.get("id"), use.get("name"), use.get("input")) for use in uses]
        return turn or final_turn("".join(texts) if texts else None)
