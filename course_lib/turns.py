"""Notebook 07: a model's turn in the provider-neutral envelope, and the helpers every adapter shares.

A harness should not care which API carries a conversation. Every adapter (`course_lib.adapters` holds the
Chat Completions one, the exercise of Part F; `course_lib.clients` the other four) keeps the history in its
own wire format and offers the same two calls: `start(user_text)` sends the first request and
`reply(results)` answers every call of the last turn and sends the next one. Both return the model's turn
in the envelope of notebook 01, a list of items:

- `[{"kind": "final", "text": ...}]`: the model answered;
- one or more `{"kind": "call", "id", "name", "arguments"}` envelopes (each passed `parse_envelope`) and
  `BadCall`s: calls that could not become an envelope (a malformed name, arguments that are not a JSON
  object, too long, too deep, repeated keys, NaN, lone surrogates). A `BadCall` must be answered with an
  error result so the model can read what went wrong; it never runs.

A turn that cannot be read at all (cut off, neither text nor calls, the wrong shape) raises
`ModelTurnError`; an HTTP failure or a timeout raises `ModelHTTPError` (status 0 when nothing came back).
Every adapter counts the requests it sent in `requests`. This module is infrastructure: it holds no
graded exercise.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from course_lib.envelope import parse_envelope
from course_lib.errors import EnvelopeError, ModelTurnError
from course_lib.toolbox import request_tools
from course_lib.tools import Tool
from course_lib.wire import strict_json

__all__ = [
    "APIS",
    "MAX_ARGUMENT_CHARS",
    "STAND_IN_KEY",
    "BadCall",
    "Item",
    "ModelClient",
    "ToolResult",
    "call_item",
    "final_turn",
    "parse_arguments",
    "tools_entry",
    "tools_field",
]

APIS = ("chat", "responses", "openai-sdk-chat", "openai-sdk-responses", "anthropic")
"""The five adapters, by the name `run_desk(api=...)` takes."""

STAND_IN_KEY = "sk-stand-in-0000-not-a-real-key"
"""The API key the SDK clients send to the stand-in; it looks like a real key so redaction is tested."""

MAX_ARGUMENT_CHARS = 20_000
"""The longest arguments (JSON text) a call may carry; longer is a BadCall, refused before parsing."""


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
        value = strict_json.loads(raw, unique_keys=True)
    except strict_json.RepeatedKey as error:
        raise EnvelopeError(f"arguments repeat the key {error.key[:40]!r}") from None
    except strict_json.JSONConstant as error:
        raise EnvelopeError(f"arguments hold {error.constant}, which is not a JSON number") from None
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


# ---- the `tools` field ----------------------------------------------------------------------------------


def tools_field(api: str, tools: Sequence[Tool]) -> list[dict[str, Any]]:
    """The `tools` request field as `api` expects it: nested (chat), flat (responses) or input_schema (anthropic)."""
    if api not in APIS:
        raise ValueError(f"unknown api {api!r}; expected one of {', '.join(APIS)}")
    shape: Literal["chat", "responses", "anthropic"] = (
        "anthropic" if api == "anthropic" else "chat" if api.endswith("chat") else "responses"
    )
    return request_tools(shape, tools)


def tools_entry(field: list[dict[str, Any]]) -> dict[str, Any]:
    """The request's `tools` entry for a built field: none at all when no tool is offered."""
    return {"tools": field} if field else {}
