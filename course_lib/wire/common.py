"""What every wire format shares: the neutral view of a request, tool-name rules, ids and the clock."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from course_lib.errors import WireError

FUNCTION_NAME = re.compile(r"[a-zA-Z0-9_-]{1,64}")
"""The documented function-name rule: a-z, A-Z, 0-9, underscores and dashes, at most 64 characters."""

FIXED_EPOCH = 1_767_225_600
"""2026-01-01T00:00:00Z: the stand-in's clock starts here and ticks once per answer, never from the wall."""


@dataclass(frozen=True)
class Forced:
    """A `tool_choice` that names one function."""

    name: str


ToolChoice = str | Forced
"""'none', 'auto', 'required', or Forced(name)."""


@dataclass
class Conversation:
    """A request as the scripted model sees it, whatever wire format carried it."""

    model: str
    tool_names: list[str]
    tool_choice: ToolChoice
    parallel_tool_calls: bool
    results: list[str] = field(default_factory=list)
    """Tool results answering the model's latest turn, in the order they arrived."""
    user_text: str = ""
    """The text of the latest user message."""
    turns: int = 0
    """How many model turns the history already holds."""


@dataclass
class Counters:
    """Per-server id counters and the fixed clock, so the same script gives the same bytes every run."""

    counts: dict[str, int] = field(default_factory=dict)

    def next_id(self, prefix: str) -> str:
        """The next id with this prefix: call_1, call_2, ..."""
        self.counts[prefix] = self.counts.get(prefix, 0) + 1
        return f"{prefix}_{self.counts[prefix]}"

    def now(self) -> int:
        """A timestamp from the fixed clock: one second later for every answer."""
        self.counts["clock"] = self.counts.get("clock", 0) + 1
        return FIXED_EPOCH + self.counts["clock"]


def require(condition: bool, message: str, param: str | None = None) -> None:
    """Raise the documented 400 error when a request breaks a rule."""
    if not condition:
        raise WireError(message, param=param)


def check_tool_name(name: object, param: str) -> str:
    """Return `name` if it follows the documented function-name rule, else raise a 400."""
    require(type(name) is str, f"{param} must be a string", param)
    assert isinstance(name, str)
    require(
        FUNCTION_NAME.fullmatch(name) is not None,
        f"Invalid '{param}': {name[:80]!r} does not match '^[a-zA-Z0-9_-]{{1,64}}$'",
        param,
    )
    return name


def read_tool_names(
    body: Mapping[str, Any],
    name_of: Callable[[object, str], str],
    *,
    param: str = "tools[{}]",
    not_a_list: str = "tools must be an array",
    repeated: str = "tools must have unique names",
) -> list[str]:
    """The names of the tools `body` declares, in order: `tools` is a list (else `not_a_list`), each tool's
    name is `name_of(tool, param.format(index))`, which checks its format's rules, and no name repeats."""
    tools = body.get("tools", [])
    require(isinstance(tools, list), not_a_list, "tools")
    names = [name_of(tool, param.format(i)) for i, tool in enumerate(tools)]
    require(len(set(names)) == len(names), repeated, "tools")
    return names


def require_function(item: object, param: str) -> None:
    """Raise the documented 400 unless `item` is an object of type "function" (a tool or a tool call)."""
    require(
        isinstance(item, dict) and item.get("type") == "function", f"{param}.type must be 'function'", param
    )


def read_model(body: Mapping[str, Any]) -> str:
    """The request's `model`, which every route requires."""
    model = body.get("model")
    require(type(model) is str and model != "", "you must provide a model parameter", "model")
    assert isinstance(model, str)
    return model


def read_tool_choice(body: Mapping[str, Any], names: Sequence[str], forced_name: object | None) -> ToolChoice:
    """Normalise `tool_choice`; `forced_name` is the name already dug out of the format's object form."""
    raw = body.get("tool_choice")
    if raw is None:
        return "auto"
    require(
        bool(names) or raw == "none", "tool_choice is only allowed when tools are specified", "tool_choice"
    )
    if isinstance(raw, str):
        require(
            raw in ("none", "auto", "required"), f"Invalid value for tool_choice: {raw[:40]!r}", "tool_choice"
        )
        return raw
    name = check_tool_name(forced_name, "tool_choice")
    require(name in names, f"tool_choice names {name!r}, which is not in tools", "tool_choice")
    return Forced(name)


def read_parallel(body: Mapping[str, Any]) -> bool:
    """`parallel_tool_calls`: true by default, as documented."""
    value = body.get("parallel_tool_calls", True)
    require(type(value) is bool, "parallel_tool_calls must be a boolean", "parallel_tool_calls")
    return bool(value)


def text_of(content: object, param: str, part_types: tuple[str, ...]) -> str:
    """The text of a message content: a string, or a list of text parts joined."""
    if type(content) is str:
        return content
    require(isinstance(content, list), f"{param} must be a string or a list of content parts", param)
    assert isinstance(content, list)
    texts = []
    for i, part in enumerate(content):
        require(isinstance(part, dict), f"{param}[{i}] must be an object", f"{param}[{i}]")
        require(part.get("type") in part_types, f"{param}[{i}].type must be one of {list(part_types)}", param)
        if "text" in part:
            require(type(part["text"]) is str, f"{param}[{i}].text must be a string", f"{param}[{i}].text")
            texts.append(part["text"])
    return "".join(texts)


def estimate_tokens(value: object) -> int:
    """A deterministic stand-in for token counting: about four characters a token."""
    return max(1, len(repr(value)) // 4)


def error_envelope(
    message: str, *, kind: str, param: str | None = None, code: str | None = None
) -> dict[str, Any]:
    """The documented error envelope: {"error": {message, type, param, code}}."""
    return {"error": {"message": message, "type": kind, "param": param, "code": code}}


@dataclass(frozen=True)
class StreamRequest:
    """Whether a request asked for a stream (`stream: true`), and for a final usage chunk (chat only)."""

    stream: bool
    include_usage: bool = False


def read_stream(body: Mapping[str, Any], *, options: bool) -> StreamRequest:
    """`stream` and, where the format has them (`options`), `stream_options`, which only go with a stream."""
    stream = body.get("stream")
    require(stream is None or type(stream) is bool, "stream must be a boolean", "stream")
    raw = body.get("stream_options") if options else None
    if raw is None:
        return StreamRequest(bool(stream))
    require(stream is True, "stream_options may only be set when stream is true", "stream_options")
    require(isinstance(raw, dict), "stream_options must be an object", "stream_options")
    include_usage = raw.get("include_usage", False)
    require(
        type(include_usage) is bool,
        "stream_options.include_usage must be a boolean",
        "stream_options.include_usage",
    )
    return StreamRequest(True, bool(include_usage))
