"""Anthropic Messages (`POST /v1/messages`): read a request's messages, build a `message` object.

The differences from the OpenAI styles that matter at the boundary: tools declare `input_schema`; a call
is a `tool_use` content block whose `input` is already a JSON object (not a string); results go back as
`tool_result` blocks (with `is_error`) in the next user message; `stop_reason` is "tool_use" when the
model wants tools, and errors use the envelope {"type": "error", "error": {"type", "message"}}.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from course_lib.errors import WireError
from course_lib.wire import strict_json
from course_lib.wire.common import (
    Conversation,
    Counters,
    Forced,
    ToolChoice,
    check_tool_name,
    estimate_tokens,
    read_model,
    read_tool_names,
    require,
    text_of,
)
from course_lib.wire.sse import Event, fragments

ERROR_TYPES = {400: "invalid_request_error", 401: "authentication_error", 403: "permission_error",
               404: "not_found_error", 413: "request_too_large", 429: "rate_limit_error",
               529: "overloaded_error"}  # fmt: skip


def error_envelope(status: int, message: str) -> dict[str, Any]:
    """The documented Anthropic error envelope for this status."""
    kind = ERROR_TYPES.get(status, "api_error" if status >= 500 else "invalid_request_error")
    return {"type": "error", "error": {"type": kind, "message": message}}


def read_tools(body: Mapping[str, Any]) -> list[str]:
    """The names declared in `tools`: [{"name", "description", "input_schema"}]."""
    return read_tool_names(
        body,
        _tool_name,
        param="tools.{}",
        not_a_list="tools: Input should be a valid list",
        repeated="tools: Tool names must be unique.",
    )


def _tool_name(tool: object, param: str) -> str:
    require(isinstance(tool, dict), f"{param}: Input should be an object", param)
    assert isinstance(tool, dict)
    require(isinstance(tool.get("input_schema"), dict), f"{param}.input_schema: Field required", param)
    return check_tool_name(tool.get("name"), f"{param}.name")


def read_tool_choice(body: Mapping[str, Any], names: Sequence[str]) -> tuple[ToolChoice, bool]:
    """`tool_choice` as the neutral value, and whether parallel tool use is allowed."""
    choice = body.get("tool_choice", {"type": "auto"})
    require(isinstance(choice, dict), "tool_choice: Input should be an object", "tool_choice")
    kind = choice.get("type")
    require(
        kind in ("auto", "any", "tool", "none"),
        f"tool_choice.type: unknown value {kind!r:.40}",
        "tool_choice",
    )
    require(
        bool(names) or kind in ("auto", "none"), "tool_choice may only be specified with tools", "tool_choice"
    )
    parallel = not choice.get("disable_parallel_tool_use", False)
    if kind == "tool":
        name = check_tool_name(choice.get("name"), "tool_choice.name")
        require(name in names, f"tool_choice names {name!r}, which is not in tools", "tool_choice")
        return Forced(name), parallel
    return {"any": "required"}.get(kind, kind), parallel


def _blocks(content: object, param: str) -> list[dict[str, Any]]:
    """A message's content as a list of blocks (a plain string is one text block)."""
    if type(content) is str:
        return [{"type": "text", "text": content}]
    require(isinstance(content, list), f"{param}: Input should be a string or a list of blocks", param)
    assert isinstance(content, list)
    for j, block in enumerate(content):
        require(
            isinstance(block, dict) and type(block.get("type")) is str, f"{param}.{j}: not a block", param
        )
    return content


def read_request(body: Mapping[str, Any]) -> Conversation:
    """Check a messages request against the documented rules and return its neutral view."""
    model = read_model(body)
    max_tokens = body.get("max_tokens")
    require(type(max_tokens) is int and max_tokens > 0, "max_tokens: Field required", "max_tokens")
    messages = body.get("messages")
    require(
        isinstance(messages, list) and len(messages) > 0,
        "messages: at least one message is required",
        "messages",
    )
    assert isinstance(messages, list)
    names = read_tools(body)
    choice, parallel = read_tool_choice(body, names)
    conversation = Conversation(model, names, choice, parallel)
    pending: list[str] = []
    for i, message in enumerate(messages):
        param = f"messages.{i}"
        require(isinstance(message, dict), f"{param}: Input should be an object", param)
        role = message.get("role")
        require(role in ("user", "assistant"), f"{param}.role: Input should be 'user' or 'assistant'", param)
        blocks = _blocks(message.get("content"), f"{param}.content")
        if role == "assistant":
            require(
                not pending,
                f"{param}: tool_use ids were found without tool_result blocks immediately after: {', '.join(pending)}",
                param,
            )
            pending = [block.get("id", "") for block in blocks if block["type"] == "tool_use"]
            conversation.turns, conversation.results = conversation.turns + 1, []
            continue
        answered = [block for block in blocks if block["type"] == "tool_result"]
        unknown = [block.get("tool_use_id") for block in answered if block.get("tool_use_id") not in pending]
        if unknown:
            message = f"{param}: unexpected tool_use_id found in tool_result blocks: {unknown[0]!r:.80}"
            raise WireError(message, param=param)
        missing = [call for call in pending if call not in {block.get("tool_use_id") for block in answered}]
        require(
            not missing,
            f"{param}: tool_use ids were found without tool_result blocks immediately after: {', '.join(missing)}",
            param,
        )
        pending = []
        if answered:
            conversation.results = [
                text_of(b.get("content", ""), f"{param}.content", ("text",)) for b in answered
            ]
        else:
            conversation.user_text = text_of(blocks, f"{param}.content", ("text", "image", "document"))
            conversation.results = []
    require(
        not pending,
        f"tool_use ids were found without tool_result blocks immediately after: {', '.join(pending)}",
        "messages",
    )
    return conversation


def _as_object(arguments: str) -> dict[str, Any] | None:
    """The raw arguments as a JSON object, or None if they are not one (a truncated or malformed call)."""
    try:
        value = strict_json.loads(arguments)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def _message(
    body: Mapping[str, Any], content: list[dict[str, Any]], stop: str, counters: Counters
) -> dict[str, Any]:
    return {
        "id": counters.next_id("msg"),
        "type": "message",
        "role": "assistant",
        "model": body["model"],
        "content": content,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {
            "input_tokens": estimate_tokens(body.get("messages")),
            "output_tokens": estimate_tokens(content),
        },
    }


def answer_with_calls(
    body: Mapping[str, Any], calls: Sequence[tuple[str, str]], counters: Counters
) -> dict[str, Any]:
    """A message whose content asks for these calls; arguments that are no JSON object end it at max_tokens."""
    content: list[dict[str, Any]] = []
    for name, arguments in calls:
        parsed = _as_object(arguments)
        if parsed is None:  # the only way a real model emits broken input: its output was cut off
            return _message(body, content, "max_tokens", counters)
        content.append({"type": "tool_use", "id": counters.next_id("toolu"), "name": name, "input": parsed})
    return _message(body, content, "tool_use" if content else "end_turn", counters)


def answer_with_text(body: Mapping[str, Any], text: str, counters: Counters) -> dict[str, Any]:
    """A message whose content is one text block."""
    return _message(body, [{"type": "text", "text": text}], "end_turn", counters)


def stream_events(message: Mapping[str, Any]) -> list[Event]:
    """The documented event sequence that streams this message, each event named by its `type`.

    `message_start` (no content, no stop_reason yet); per content block `content_block_start`, its
    `content_block_delta`s (`text_delta`, or `input_json_delta` carrying fragments of the input's JSON
    text), `content_block_stop`; then `message_delta` with the stop_reason and `message_stop`.
    """
    events: list[Event] = []

    def emit(kind: str, **fields: Any) -> None:
        events.append(Event(kind, {"type": kind, **fields}))

    usage = message["usage"]
    emit(
        "message_start",
        message={**message, "content": [], "stop_reason": None, "stop_sequence": None,
                 "usage": {"input_tokens": usage["input_tokens"], "output_tokens": 1}},
    )  # fmt: skip
    for index, block in enumerate(message["content"]):
        seed = f"{message['id']}:{index}"
        if block["type"] == "tool_use":
            emit("content_block_start", index=index, content_block={**block, "input": {}})
            for piece in fragments(json.dumps(block["input"]), seed):
                emit(
                    "content_block_delta",
                    index=index,
                    delta={"type": "input_json_delta", "partial_json": piece},
                )
        else:
            emit("content_block_start", index=index, content_block={**block, "text": ""})
            for piece in fragments(block["text"], seed):
                if piece:
                    emit("content_block_delta", index=index, delta={"type": "text_delta", "text": piece})
        emit("content_block_stop", index=index)
    emit(
        "message_delta",
        delta={"stop_reason": message["stop_reason"], "stop_sequence": message["stop_sequence"]},
        usage={"output_tokens": usage["output_tokens"]},
    )
    emit("message_stop")
    return events
