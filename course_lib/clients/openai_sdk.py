"""Notebook 07's given adapters through the official `openai` SDK: Chat Completions and Responses, each read
attribute by attribute from the SDK's objects and spoken in the envelope of `course_lib.turns`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from course_lib.clients.sdk import SDKAdapter, sdk_error, sendable
from course_lib.errors import ModelTurnError
from course_lib.turns import Item, ToolResult, call_item, final_turn, tools_entry

if TYPE_CHECKING:  # the SDK is imported only when an SDK adapter is used: the import costs seconds
    import openai

__all__ = ["OpenAIChatAdapter", "OpenAIResponsesAdapter"]


class OpenAIChatAdapter(SDKAdapter):
    """Chat Completions through `client.chat.completions.create`, read attribute by attribute."""

    api = "openai-sdk-chat"
    client: openai.OpenAI

    def reply(self, results: Sequence[ToolResult], *, timeout: float) -> list[Item]:
        """One role "tool" message per call; then the next turn."""
        self.history += [{"role": "tool", "tool_call_id": r.id, "content": r.content} for r in results]
        return self._send(timeout)

    def _send(self, timeout: float) -> list[Item]:
        import openai

        extra = tools_entry(self.tools)
        self.requests += 1
        try:
            completion = self.client.chat.completions.create(
                model=self.model, messages=sendable(self.history), timeout=max(timeout, 0.001), **extra
            )
        except openai.APIError as error:
            raise sdk_error(openai, error) from None
        choice = completion.choices[0]
        if choice.finish_reason == "length":
            raise ModelTurnError("the model's turn was cut off (finish_reason 'length'); nothing in it ran")
        message = choice.message
        calls = [c for c in message.tool_calls or [] if c.type == "function"]
        self.history.append(  # the assistant turn, rebuilt field by field from the SDK object
            {
                "role": "assistant",
                "content": message.content,
                "tool_calls": [
                    {"id": c.id, "type": "function", "function": c.function.model_dump()} for c in calls
                ],
            }
            if calls
            else {"role": "assistant", "content": message.content}
        )
        turn = [call_item(c.id, c.function.name, c.function.arguments) for c in calls]
        return turn or final_turn(message.content)


class OpenAIResponsesAdapter(SDKAdapter):
    """Responses through `client.responses.create`: replay `response.output`, answer by call_id."""

    api = "openai-sdk-responses"
    client: openai.OpenAI

    def reply(self, results: Sequence[ToolResult], *, timeout: float) -> list[Item]:
        """One function_call_output item per call; then the next turn."""
        self.history += [
            {"type": "function_call_output", "call_id": r.id, "output": r.content} for r in results
        ]
        return self._send(timeout)

    def _send(self, timeout: float) -> list[Item]:
        import openai

        extra = tools_entry(self.tools)
        self.requests += 1
        try:
            response = self.client.responses.create(
                model=self.model, input=sendable(self.history), timeout=max(timeout, 0.001), **extra
            )
        except openai.APIError as error:
            raise sdk_error(openai, error) from None
        if response.status == "incomplete":
            raise ModelTurnError("the model's turn was cut off (status 'incomplete'); nothing in it ran")
        self.history += [item.model_dump(exclude_none=True) for item in response.output]
        calls = [item for item in response.output if item.type == "function_call"]
        turn = [call_item(c.call_id, c.name, c.arguments) for c in calls]
        has_message = any(item.type == "message" for item in response.output)
        return turn or final_turn(response.output_text if has_message else None)
