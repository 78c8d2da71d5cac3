"""Notebook 07: the model clients the capstone gives: Responses by hand, both through the openai SDK, and
Anthropic Messages through its SDK, each a `ModelClient` speaking the envelope of `course_lib.turns`.

The fifth, Chat Completions by hand, is Part F's exercise (`course_lib.adapters.ChatAdapter`, the
reference); `make_client` takes the Chat Completions class to use. Anthropic sends a call's `input` as an
object, so its truncated arguments cannot arrive as a call: the turn ends at `stop_reason: "max_tokens"`
instead, which is a `ModelTurnError` (nothing in a cut-off turn runs; the run ends).
"""

from __future__ import annotations

import functools
import os
import re
import ssl
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from course_lib.errors import ModelHTTPError, ModelTurnError
from course_lib.loops import MODEL, output_text, post_json
from course_lib.standin import StandIn
from course_lib.tools import Tool
from course_lib.turns import (
    APIS,
    STAND_IN_KEY,
    Item,
    ModelClient,
    ToolResult,
    call_item,
    final_turn,
    tools_entry,
    tools_field,
)

if TYPE_CHECKING:  # the SDKs are imported only when an SDK adapter is used: each import costs seconds
    import anthropic
    import openai

__all__ = [
    "AnthropicAdapter",
    "ChatClass",
    "OpenAIChatAdapter",
    "OpenAIResponsesAdapter",
    "ResponsesAdapter",
    "make_client",
]

ChatClass = Callable[[str, Sequence[Tool]], ModelClient]
"""A Chat Completions adapter class: `ChatClass(base, tools)` is a ModelClient."""

ANTHROPIC_MODEL = os.environ.get("ANTHROPIC_MODEL", "stand-in-model")
ANTHROPIC_MAX_TOKENS = 1024

_SURROGATE = re.compile("[\ud800-\udfff]")


def _sendable(value: Any) -> Any:
    """A copy with every lone surrogate replaced by U+FFFD: an SDK encodes bodies as UTF-8 and cannot send one."""
    if isinstance(value, dict):
        return {_sendable(key): _sendable(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_sendable(item) for item in value]
    if isinstance(value, str):
        return _SURROGATE.sub("\ufffd", value)
    return value


class ResponsesAdapter:
    """Responses over plain HTTP: `input` items in, `output` items out (replayed whole), results by call_id."""

    api = "responses"

    def __init__(self, base: str, tools: Sequence[Tool], *, model: str = MODEL) -> None:
        self.base, self.model, self.requests = base, model, 0
        self.tools = tools_field(self.api, tools)
        self.items: list[dict[str, Any]] = []

    def start(self, user_text: str, *, timeout: float) -> list[Item]:
        """Send the user's request; return the first turn."""
        self.items = [{"role": "user", "content": user_text}]
        return self._send(timeout)

    def reply(self, results: Sequence[ToolResult], *, timeout: float) -> list[Item]:
        """One function_call_output item per call, matched by call_id; then the next turn."""
        self.items += [
            {"type": "function_call_output", "call_id": r.id, "output": r.content} for r in results
        ]
        return self._send(timeout)

    def _send(self, timeout: float) -> list[Item]:
        body: dict[str, Any] = {"model": self.model, "input": self.items, **tools_entry(self.tools)}
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
        self.items += output  # every output item, reasoning items included
        return turn or final_turn(text)

    def close(self) -> None:
        """Nothing to release: every request opens its own connection."""


# ---- the same two through the official openai SDK, and Anthropic Messages through its SDK ----------------


def _openai_errors(error: openai.APIError) -> ModelHTTPError:
    """An SDK error as the harness sees every model failure."""
    import openai

    if isinstance(error, openai.APIStatusError):
        return ModelHTTPError(error.status_code, error.message)
    return ModelHTTPError(0, f"{type(error).__name__}: {error.message}")


class OpenAIChatAdapter:
    """Chat Completions through `client.chat.completions.create`, read attribute by attribute."""

    api = "openai-sdk-chat"

    def __init__(self, client: openai.OpenAI, tools: Sequence[Tool], *, model: str = MODEL) -> None:
        self.client, self.model, self.requests = client, model, 0
        self.tools = tools_field(self.api, tools)
        self.messages: list[dict[str, Any]] = []

    def start(self, user_text: str, *, timeout: float) -> list[Item]:
        """Send the user's request; return the first turn."""
        self.messages = [{"role": "user", "content": user_text}]
        return self._send(timeout)

    def reply(self, results: Sequence[ToolResult], *, timeout: float) -> list[Item]:
        """One role "tool" message per call; then the next turn."""
        self.messages += [{"role": "tool", "tool_call_id": r.id, "content": r.content} for r in results]
        return self._send(timeout)

    def _send(self, timeout: float) -> list[Item]:
        import openai

        extra = tools_entry(self.tools)
        self.requests += 1
        try:
            completion = self.client.chat.completions.create(
                model=self.model, messages=_sendable(self.messages), timeout=max(timeout, 0.001), **extra
            )
        except openai.APIError as error:
            raise _openai_errors(error) from None
        choice = completion.choices[0]
        if choice.finish_reason == "length":
            raise ModelTurnError("the model's turn was cut off (finish_reason 'length'); nothing in it ran")
        message = choice.message
        calls = [c for c in message.tool_calls or [] if c.type == "function"]
        self.messages.append(  # the assistant turn, rebuilt field by field from the SDK object
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

    def close(self) -> None:
        """Close the SDK's connection pool."""
        self.client.close()


class OpenAIResponsesAdapter:
    """Responses through `client.responses.create`: replay `response.output`, answer by call_id."""

    api = "openai-sdk-responses"

    def __init__(self, client: openai.OpenAI, tools: Sequence[Tool], *, model: str = MODEL) -> None:
        self.client, self.model, self.requests = client, model, 0
        self.tools = tools_field(self.api, tools)
        self.items: list[dict[str, Any]] = []

    def start(self, user_text: str, *, timeout: float) -> list[Item]:
        """Send the user's request; return the first turn."""
        self.items = [{"role": "user", "content": user_text}]
        return self._send(timeout)

    def reply(self, results: Sequence[ToolResult], *, timeout: float) -> list[Item]:
        """One function_call_output item per call; then the next turn."""
        self.items += [
            {"type": "function_call_output", "call_id": r.id, "output": r.content} for r in results
        ]
        return self._send(timeout)

    def _send(self, timeout: float) -> list[Item]:
        import openai

        extra = tools_entry(self.tools)
        self.requests += 1
        try:
            response = self.client.responses.create(
                model=self.model, input=_sendable(self.items), timeout=max(timeout, 0.001), **extra
            )
        except openai.APIError as error:
            raise _openai_errors(error) from None
        if response.status == "incomplete":
            raise ModelTurnError("the model's turn was cut off (status 'incomplete'); nothing in it ran")
        self.items += [item.model_dump(exclude_none=True) for item in response.output]
        calls = [item for item in response.output if item.type == "function_call"]
        turn = [call_item(c.call_id, c.name, c.arguments) for c in calls]
        has_message = any(item.type == "message" for item in response.output)
        return turn or final_turn(response.output_text if has_message else None)

    def close(self) -> None:
        """Close the SDK's connection pool."""
        self.client.close()


def _anthropic_errors(error: anthropic.APIError) -> ModelHTTPError:
    """An SDK error as the harness sees every model failure."""
    import anthropic

    if isinstance(error, anthropic.APIStatusError):
        return ModelHTTPError(error.status_code, error.message)
    return ModelHTTPError(0, f"{type(error).__name__}: {error.message}")


class AnthropicAdapter:
    """Anthropic Messages: tools with `input_schema`, `tool_use` blocks in, `tool_result` blocks with `is_error` out."""

    api = "anthropic"

    def __init__(
        self, client: anthropic.Anthropic, tools: Sequence[Tool], *, model: str = ANTHROPIC_MODEL
    ) -> None:
        self.client, self.model, self.requests = client, model, 0
        self.tools = tools_field(self.api, tools)
        self.messages: list[dict[str, Any]] = []

    def start(self, user_text: str, *, timeout: float) -> list[Item]:
        """Send the user's request; return the first turn."""
        self.messages = [{"role": "user", "content": user_text}]
        return self._send(timeout)

    def reply(self, results: Sequence[ToolResult], *, timeout: float) -> list[Item]:
        """One user message holding a tool_result block per tool_use block; then the next turn."""
        blocks = [
            {"type": "tool_result", "tool_use_id": r.id, "content": r.content, "is_error": r.is_error}
            for r in results
        ]
        self.messages.append({"role": "user", "content": blocks})
        return self._send(timeout)

    def _send(self, timeout: float) -> list[Item]:
        import anthropic

        extra = tools_entry(self.tools)
        self.requests += 1
        try:
            message = self.client.messages.create(
                model=self.model,
                max_tokens=ANTHROPIC_MAX_TOKENS,
                messages=_sendable(self.messages),
                timeout=max(timeout, 0.001),
                **extra,
            )
        except anthropic.APIError as error:
            raise _anthropic_errors(error) from None
        if message.stop_reason == "max_tokens":
            raise ModelTurnError("the model's turn was cut off (stop_reason 'max_tokens'); nothing in it ran")
        content = [block.model_dump(exclude_none=True) for block in message.content]
        uses = [block for block in content if block.get("type") == "tool_use"]
        texts = [block["text"] for block in content if block.get("type") == "text"]
        if content:
            self.messages.append({"role": "assistant", "content": content})
        turn = [call_item(use.get("id"), use.get("name"), use.get("input")) for use in uses]
        return turn or final_turn("".join(texts) if texts else None)

    def close(self) -> None:
        """Close the SDK's connection pool."""
        self.client.close()


@functools.cache
def _tls_context() -> ssl.SSLContext:
    """One default TLS context (the system's trusted roots) shared by every SDK client this module builds.

    Each SDK client would otherwise load the whole CA bundle again (~20 ms of CPU a client: most of what a
    pack run over an SDK costs). A context is safe to share between clients and threads once configured.
    """
    return ssl.create_default_context()


def make_client(
    api: str, server: StandIn, tools: Sequence[Tool], *, chat: ChatClass | None = None
) -> ModelClient:
    """The adapter for `api`, pointed at a stand-in; SDK clients validate strictly and never retry.

    `chat` is the Chat Completions adapter class to use for api "chat" (Part F's exercise: the learner's,
    or `course_lib.adapters.ChatAdapter`); without it, "chat" is refused.
    """
    if api == "chat":
        if chat is None:
            raise ValueError('api "chat" needs a Chat Completions adapter class: make_client(..., chat=...)')
        return chat(server.base, tools)
    if api == "responses":
        return ResponsesAdapter(server.base, tools)
    if api in ("openai-sdk-chat", "openai-sdk-responses"):
        import openai

        client = openai.OpenAI(
            base_url=server.base,
            api_key=STAND_IN_KEY,
            _strict_response_validation=True,
            max_retries=0,
            http_client=openai.DefaultHttpxClient(verify=_tls_context()),
        )
        return (
            OpenAIChatAdapter(client, tools)
            if api == "openai-sdk-chat"
            else OpenAIResponsesAdapter(client, tools)
        )
    if api == "anthropic":
        import anthropic

        client_a = anthropic.Anthropic(
            base_url=server.root,
            api_key=STAND_IN_KEY,
            _strict_response_validation=True,
            max_retries=0,
            http_client=anthropic.DefaultHttpxClient(verify=_tls_context()),
        )
        return AnthropicAdapter(client_a, tools)
    raise ValueError(f"unknown api {api!r}; expected one of {', '.join(APIS)}")
