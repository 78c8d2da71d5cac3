"""Notebook 07's given adapter for Responses over plain HTTP: `input` items in, `output` items out, results
matched by call_id (the same wire as 03's `responses_tool_loop`, spoken in the envelope of `course_lib.turns`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from course_lib.clients.base import GivenAdapter
from course_lib.errors import ModelTurnError
from course_lib.loops import MODEL, output_text, post_json
from course_lib.tools import Tool
from course_lib.turns import Item, ToolResult, call_item, final_turn, tools_entry

__all__ = ["ResponsesAdapter"]


class ResponsesAdapter(GivenAdapter):
    """Responses over plain HTTP: `input` items in, `output` items out (replayed whole), results by call_id."""

    api = "responses"

    def __init__(self, base: str, tools: Sequence[Tool], *, model: str = MODEL) -> None:
        super().__init__(tools, model)
        self.base = base

    def reply(self, results: Sequence[ToolResult], *, timeout: float) -> list[Item]:
        """One function_call_output item per call, matched by call_id; then the next turn."""
        self.history += [
            {"type": "function_call_output", "call_id": r.id, "output": r.content} for r in results
        ]
        return self._send(timeout)

    def _send(self, timeout: float) -> list[Item]:
        body: dict[str, Any] = {"model": self.model, "input": self.history, **tools_entry(self.tools)}
        self.requests += 1
        answer = post_json(self.base, "/responses", body, timeout=max(timeout, 0.001))
        try:
            output = list(answer["output"])
            calls = [item for item in output if item.get("type") == "function_call"]
            turn = [call_item(c["call_id"], c["name"], c["arguments"]) for c in calls]
            has_message = any(item.get("type") == "message" for item in output)
            text = output_text(output) if has_message else None
        except (KeyError, TypeError, AttributeError):
            raise ModelTurnError("the answer is not a well-formed response") from None
        if answer.get("status") == "incomplete":
            raise ModelTurnError("the model's turn was cut off (status 'incomplete'); nothing in it ran")
        self.history += output  # every output item, reasoning items included
        return turn or final_turn(text)

    def close(self) -> None:
        """Nothing to release: every request opens its own connection."""
