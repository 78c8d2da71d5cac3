"""Notebook 07: one `ModelClient` interface, one adapter per documented wire format.

A harness should not care which API carries a conversation. Every adapter keeps the history in its own
wire format and offers the same two calls: `start(user_text)` sends the first request and `reply(results)`
answers every call of the last turn and sends the next one. Both return the model's turn in the
provider-neutral envelope of notebook 01, a list of items:

- `[{"kind": "final", "text": ...}]`: the model answered;
- one or more `{"kind": "call", "id", "name", "arguments"}` envelopes (each passed `parse_envelope`) and
  `BadCall`s: calls that could not become an envelope (a malformed name, arguments that are not a JSON
  object, too long, too deep, repeated keys, NaN, lone surrogates). A `BadCall` must be answered with an
  error result so the model can read what went wrong; it never runs.

A turn that cannot be read at all (cut off, neither text nor calls, the wrong shape) raises
`ModelTurnError`; an HTTP failure or a timeout raises `ModelHTTPError` (status 0 when nothing came back).
Anthropic sends a call's `input` as an object, so its truncated arguments cannot arrive as a call: the
turn ends at `stop_reason: "max_tokens"` instead, which is a `ModelTurnError` (nothing in a cut-off turn
runs; the run ends). Every adapter counts the requests it sent in `requests`.
"""

from __future__ import annotations

import functools
import json
import os
import re
import ssl
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from course_lib.envelope import parse_envelope
from course_lib.errors import EnvelopeError, ModelHTTPError, ModelTurnError
from course_lib.loops import MODEL, output_text, post_json
from course_lib.standin import StandIn
from course_lib.tools import Tool

if TYPE_CHECKING:  # the SDKs are imported only when an SDK adapter is used: each import costs seconds
    import anthropic
    import openai

__all__ = [
    "APIS",
    "MAX_ARGUMENT_CHARS",
    "STAND_IN_KEY",
    "AnthropicAdapter",
    "BadCall",
    "ChatAdapter",
    "Item",
    "ModelClient",
    "OpenAIChatAdapter",
    "OpenAIResponsesAdapter",
    "ResponsesAdapter",
    "ToolResult",
    "call_item",
    "final_turn",
    "make_client",
    "parse_arguments",
    "tools_field",
]

APIS = ("chat", "responses", "openai-sdk-chat", "openai-sdk-responses", "anthropic")
"""The five adapters, by the name `run_desk(api=...)` takes."""

STAND_IN_KEY = "sk-stand-in-0000-not-a-real-key"
"""The API key the SDK clients send to the stand-in; it looks like a real key so redaction is tested."""

MAX_ARGUMENT_CHARS = 20_000
"""The longest arguments (JSON text) a call may carry; longer is a BadCall, refused before parsing."""

_SURROGATE = re.compile("[\ud800-\udfff]")

ANTHROPIC_MODEL = os.environ.get("ANTHROPIC_MODEL", "stand-in-model")
ANTHROPIC_MAX_TOKENS = 1024


@dataclass(frozen=True)
class BadCall:
    """A proposed call that does not fit the envelope; it is answered with an error and never run."""

    id: str
    """The call's id, to answer it by."""
    name: str
    """The name as the model sent it (it may break the name rule)."""
    problem: str
    """Why it is not a call envelope, in words the model can act on."""


Item = dict[str, Any] | BadCall
"""One item of a turn: an envelope from `parse_envelope`, or a BadCall."""


@dataclass(frozen=True)
class ToolResult:
    """The answer to one call of the last turn: its id, the result string, and whether it is an error."""

    id: str
    content: str
    is_error: bool = False


class ModelClient(Protocol):
    """One conversation with a model over one wire format, spoken in provider-neutral envelopes."""

    api: str
    requests: int

    def start(self, user_text: str, *, timeout: float) -> list[Item]:
        """Send the user's request with the tools; return the model's first turn."""
        ...

    def reply(self, results: Sequence[ToolResult], *, timeout: float) -> list[Item]:
        """Answer every call of the last turn, send the next request, and return the next turn."""
        ...

    def close(self) -> None:
        """Release the connection."""
        ...


# ---- from the wire to the envelope ---------------------------------------------------------------------


def parse_arguments(raw: str) -> dict[str, Any]:
    """Parse a call's argument text strictly: a size limit first, then one JSON object, no repeated keys, no NaN."""
    if len(raw) > MAX_ARGUMENT_CHARS:
        raise EnvelopeError(
            f"arguments are too long: {len(raw)} characters, the limit is {MAX_ARGUMENT_CHARS}"
        )
    try:
        value = json.loads(raw, object_pairs_hook=_no_repeats, parse_constant=_no_constant)
    except EnvelopeError:
        raise
    except RecursionError:
        raise EnvelopeError("arguments are nested too deeply") from None
    except ValueError as error:
        raise EnvelopeError(f"arguments are not valid JSON: {str(error)[:120]}") from None
    if type(value) is not dict:
        raise EnvelopeError(f"arguments must be a JSON object, got {type(value).__name__}")
    return value


def call_item(call_id: object, name: object, arguments: object) -> Item:
    """A call envelope from a wire call (arguments as JSON text, or as an object), or a BadCall saying why not."""
    try:
        if isinstance(arguments, str):
            arguments = parse_arguments(arguments)
        elif len(json.dumps(arguments)) > MAX_ARGUMENT_CHARS:
            raise EnvelopeError(f"arguments are longer than {MAX_ARGUMENT_CHARS} characters")
        envelope = parse_envelope({"kind": "call", "id": call_id, "name": name, "arguments": arguments})
        _valid_unicode(envelope["arguments"])
        return envelope
    except (EnvelopeError, TypeError, ValueError, RecursionError) as error:
        problem = str(error) if isinstance(error, EnvelopeError) else "arguments are not JSON"
        return BadCall(str(call_id), str(name), problem)


def final_turn(text: object) -> list[Item]:
    """The turn of a model that answered with `text`; None means it answered with nothing at all."""
    if text is None:
        raise ModelTurnError("the model answered with neither text nor tool calls")
    return [parse_envelope({"kind": "final", "text": text})]


def _no_repeats(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """Build a JSON object, refusing a repeated key (json.loads would silently keep the last one)."""
    obj: dict[str, Any] = {}
    for key, value in pairs:
        if key in obj:
            raise EnvelopeError(f"arguments repeat the key {key[:40]!r}")
        obj[key] = value
    return obj


def _no_constant(constant: str) -> Any:
    """Refuse NaN, Infinity and -Infinity, which Python's json accepts but JSON does not."""
    raise EnvelopeError(f"arguments hold {constant}, which is not a JSON number")


def _valid_unicode(value: object) -> None:
    """Refuse strings (values or keys) holding a lone surrogate: not text any tool or log can store."""
    if isinstance(value, dict):
        for key, item in value.items():
            _valid_unicode(key)
            _valid_unicode(item)
    elif isinstance(value, list):
        for item in value:
            _valid_unicode(item)
    elif isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise EnvelopeError("arguments hold a lone surrogate, which is not valid Unicode text") from None


def _sendable(value: Any) -> Any:
    """A copy with every lone surrogate replaced by U+FFFD: an SDK encodes bodies as UTF-8 and cannot send one."""
    if isinstance(value, dict):
        return {_sendable(key): _sendable(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_sendable(item) for item in value]
    if isinstance(value, str):
        return _SURROGATE.sub("\ufffd", value)
    return value


def _reading(what: str) -> ModelTurnError:
    """The error for an answer that does not have its documented shape."""
    return ModelTurnError(f"the answer is not a well-formed {what}")


# ---- the `tools` field ----------------------------------------------------------------------------------


def tools_field(api: str, tools: Sequence[Tool]) -> list[dict[str, Any]]:
    """The `tools` request field as `api` expects it: nested (chat), flat (responses) or input_schema (anthropic)."""
    if api not in APIS:
        raise ValueError(f"unknown api {api!r}; expected one of {', '.join(APIS)}")
    fields = []
    for tool in tools:
        spec = {"name": tool.name, "description": tool.description}
        schema = json.loads(json.dumps(tool.parameters))  # an independent copy
        if api == "anthropic":
            fields.append({**spec, "input_schema": schema})
        elif api.endswith("chat"):
            fields.append({"type": "function", "function": {**spec, "parameters": schema, "strict": True}})
        else:
            fields.append({"type": "function", **spec, "parameters": schema, "strict": True})
    return fields


# ---- Chat Completions and Responses, by hand over HTTP --------------------------------------------------


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
            raise _reading("chat.completion") from None
        if finish == "length":
            raise ModelTurnError("the model's turn was cut off (finish_reason 'length'); nothing in it ran")
        self.messages.append(message)  # the assistant turn exactly as it came back
        return turn or final_turn(message.get("content"))

    def close(self) -> None:
        """Nothing to release: every request opens its own connection."""


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
        body: dict[str, Any] = {"model": self.model, "input": self.items}
        if self.tools:
            body["tools"] = self.tools
        self.requests += 1
        answer = post_json(self.base, "/responses", body, timeout=max(timeout, 0.001))
        try:
            output = list(answer["output"])
            calls = [item for item in output if item.get("type") == "function_call"]
            turn = [call_item(c["call_id"], c["name"], c["arguments"]) for c in calls]
            has_message = any(item.get("type") == "message" for item in output)
            text = output_text(output) if has_message else None
        except (KeyError, TypeError, AttributeError):
            raise _reading("response") from None
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

        extra: dict[str, Any] = {"tools": self.tools} if self.tools else {}
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

        extra: dict[str, Any] = {"tools": self.tools} if self.tools else {}
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

        extra: dict[str, Any] = {"tools": self.tools} if self.tools else {}
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


def make_client(api: str, server: StandIn, tools: Sequence[Tool]) -> ModelClient:
    """The adapter for `api`, pointed at a stand-in; SDK clients validate strictly and never retry."""
    if api == "chat":
        return ChatAdapter(server.base, tools)
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
