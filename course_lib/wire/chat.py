"""Chat Completions (`POST /v1/chat/completions`): read a request's messages, build a `chat.completion`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from course_lib.wire.common import (
    Conversation,
    Counters,
    check_tool_name,
    estimate_tokens,
    read_model,
    read_parallel,
    read_tool_choice,
    read_tool_names,
    require,
    require_function,
    text_of,
)
from course_lib.wire.sse import Event, fragments

ROLES = ("system", "developer", "user", "assistant", "tool")


def read_tools(body: Mapping[str, Any]) -> list[str]:
    """The function names declared in `tools`: [{"type": "function", "function": {"name", ...}}]."""
    return read_tool_names(body, _tool_name)


def _tool_name(tool: object, param: str) -> str:
    require_function(tool, param)
    assert isinstance(tool, dict)
    function = tool.get("function")
    require(isinstance(function, dict), f"{param}.function must be an object", f"{param}.function")
    assert isinstance(function, dict)
    strict = function.get("strict", False)
    require(type(strict) is bool, f"{param}.function.strict must be a boolean", f"{param}.function.strict")
    return check_tool_name(function.get("name"), f"{param}.function.name")


def _forced_name(body: Mapping[str, Any]) -> object:
    choice = body.get("tool_choice")
    if isinstance(choice, dict):
        require(choice.get("type") == "function", "tool_choice.type must be 'function'", "tool_choice")
        function = choice.get("function")
        return function.get("name") if isinstance(function, dict) else None
    return None


def _call_ids(message: Mapping[str, Any], param: str) -> list[str]:
    calls = message.get("tool_calls") or []
    require(isinstance(calls, list), f"{param}.tool_calls must be an array", f"{param}.tool_calls")
    ids = []
    for j, call in enumerate(calls):
        where = f"{param}.tool_calls[{j}]"
        require_function(call, where)
        require(
            type(call.get("id")) is str and call["id"] != "", f"{where}.id must be a non-empty string", where
        )
        function = call.get("function")
        require(isinstance(function, dict), f"{where}.function must be an object", f"{where}.function")
        require(type(function.get("name")) is str, f"{where}.function.name must be a string", where)
        require(type(function.get("arguments")) is str, f"{where}.function.arguments must be a string", where)
        ids.append(call["id"])
    require(len(set(ids)) == len(ids), f"{param}.tool_calls repeats a tool call id", f"{param}.tool_calls")
    return ids


def read_request(body: Mapping[str, Any]) -> Conversation:
    """Check a chat request against the documented rules and return its neutral view."""
    model = read_model(body)
    messages = body.get("messages")
    require(
        isinstance(messages, list) and len(messages) > 0,
        "'messages' is required and must be non-empty",
        "messages",
    )
    assert isinstance(messages, list)
    names = read_tools(body)
    conversation = Conversation(
        model, names, read_tool_choice(body, names, _forced_name(body)), read_parallel(body)
    )
    pending: list[str] = []
    for i, message in enumerate(messages):
        param = f"messages[{i}]"
        require(isinstance(message, dict), f"{param} must be an object", param)
        role = message.get("role")
        require(role in ROLES, f"{param}.role must be one of {list(ROLES)}", f"{param}.role")
        if role == "tool":
            call_id = message.get("tool_call_id")
            require(
                call_id in pending,
                f"{param} is a role 'tool' message answering tool_call_id {call_id!r}, "
                "which no preceding assistant message requested (or which was already answered)",
                f"{param}.tool_call_id",
            )
            pending.remove(call_id)
            conversation.results.append(text_of(message.get("content"), f"{param}.content", ("text",)))
            continue
        require(
            not pending,
            f"tool calls {pending} were never answered: an assistant message with 'tool_calls' must be "
            "followed by one role 'tool' message for each tool_call_id",
            f"{param}",
        )
        if role == "assistant":
            pending = _call_ids(message, param)
            conversation.results = []
            conversation.turns += 1
        else:
            text = text_of(
                message.get("content"), f"{param}.content", ("text", "image_url", "input_audio", "file")
            )
            if role == "user":
                conversation.user_text, conversation.results = text, []
    require(
        not pending,
        f"tool calls {pending} were never answered: an assistant message with 'tool_calls' must be "
        "followed by one role 'tool' message for each tool_call_id",
        "messages",
    )
    return conversation


def _completion(
    body: Mapping[str, Any], message: dict[str, Any], finish: str, counters: Counters
) -> dict[str, Any]:
    prompt, completion = estimate_tokens(body.get("messages")), estimate_tokens(message)
    return {
        "id": counters.next_id("chatcmpl"),
        "object": "chat.completion",
        "created": counters.now(),
        "model": body["model"],
        "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": finish}],
        "usage": {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
        },
    }


def answer_with_calls(
    body: Mapping[str, Any], calls: Sequence[tuple[str, str]], counters: Counters
) -> dict[str, Any]:
    """A completion whose assistant message asks for these (name, raw arguments) calls."""
    message: dict[str, Any] = {"role": "assistant", "content": None, "refusal": None, "annotations": []}
    if not calls:  # a model that answers with neither text nor calls
        return _completion(body, message, "stop", counters)
    message["tool_calls"] = [
        {
            "id": counters.next_id("call"),
            "type": "function",
            "function": {"name": name, "arguments": arguments},
        }
        for name, arguments in calls
    ]
    return _completion(body, message, "tool_calls", counters)


def answer_with_text(body: Mapping[str, Any], text: str, counters: Counters) -> dict[str, Any]:
    """A completion whose assistant message is plain text."""
    message: dict[str, Any] = {"role": "assistant", "content": text, "refusal": None, "annotations": []}
    return _completion(body, message, "stop", counters)


def _chunk(completion: Mapping[str, Any], choices: list[dict[str, Any]], usage: bool) -> dict[str, Any]:
    chunk: dict[str, Any] = {
        "id": completion["id"],
        "object": "chat.completion.chunk",
        "created": completion["created"],
        "model": completion["model"],
        "choices": choices,
    }
    if usage:  # documented: with include_usage, every chunk carries `usage`, null until the last one
        chunk["usage"] = None
    return chunk


def _delta(delta: dict[str, Any], finish: str | None = None) -> list[dict[str, Any]]:
    return [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}]


def stream_events(completion: Mapping[str, Any], include_usage: bool = False) -> list[Event]:
    """The `chat.completion.chunk` events that stream this completion, ending with `[DONE]`.

    The first chunk carries the role; each tool call opens with its index, id and name and an empty
    `arguments`, then its arguments follow in fragments under the same index; the last choice chunk has an
    empty delta and the `finish_reason`. With `include_usage`, one more chunk with no choices carries usage.
    """
    choice = completion["choices"][0]
    message = choice["message"]
    chunks: list[dict[str, Any]] = []

    def add(delta: dict[str, Any], finish: str | None = None) -> None:
        chunks.append(_chunk(completion, _delta(delta, finish), include_usage))

    if message.get("tool_calls"):
        add({"role": "assistant", "content": None, "refusal": None})
        for index, call in enumerate(message["tool_calls"]):
            function = call["function"]
            opening = {"name": function["name"], "arguments": ""}
            add({"tool_calls": [{"index": index, "id": call["id"], "type": "function", "function": opening}]})
            for piece in fragments(function["arguments"], f"{completion['id']}:{call['id']}"):
                if piece:
                    add({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
    else:
        add({"role": "assistant", "content": "" if message["content"] is not None else None, "refusal": None})
        for piece in fragments(message["content"] or "", str(completion["id"])):
            if piece:
                add({"content": piece})
    add({}, choice["finish_reason"])
    if include_usage:
        last = _chunk(completion, [], True)
        last["usage"] = completion["usage"]
        chunks.append(last)
    return [Event(None, chunk) for chunk in chunks] + [Event(None, "[DONE]")]
