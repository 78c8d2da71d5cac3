"""Responses (`POST /v1/responses`): read a request's input items, build a `response` object."""

from __future__ import annotations

import copy
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
    require,
    text_of,
)

MODEL_ITEMS = ("function_call", "reasoning", "assistant")
INPUT_PARTS = ("input_text", "output_text", "text", "input_image", "input_file", "refusal")


def read_tools(body: Mapping[str, Any]) -> list[str]:
    """The function names declared in `tools`: flat [{"type": "function", "name", ...}]."""
    tools = body.get("tools", [])
    require(isinstance(tools, list), "tools must be an array", "tools")
    names = []
    for i, tool in enumerate(tools):
        param = f"tools[{i}]"
        require(
            isinstance(tool, dict) and tool.get("type") == "function",
            f"{param}.type must be 'function'",
            param,
        )
        require("function" not in tool, f"{param} nests a 'function' object: Responses tools are flat", param)
        require(
            type(tool.get("strict", False)) is bool, f"{param}.strict must be a boolean", f"{param}.strict"
        )
        params = tool.get("parameters", {})
        require(isinstance(params, dict), f"{param}.parameters must be an object", f"{param}.parameters")
        names.append(check_tool_name(tool.get("name"), f"{param}.name"))
    require(len(set(names)) == len(names), "tools must have unique names", "tools")
    return names


def _forced_name(body: Mapping[str, Any]) -> object:
    choice = body.get("tool_choice")
    if isinstance(choice, dict):
        require(choice.get("type") == "function", "tool_choice.type must be 'function'", "tool_choice")
        return choice.get("name")
    return None


def _items(body: Mapping[str, Any]) -> list[Any]:
    items = body.get("input")
    if type(items) is str:
        return [{"role": "user", "content": items}]
    require(isinstance(items, list) and len(items) > 0, "'input' is required and must be non-empty", "input")
    assert isinstance(items, list)
    return items


def _kind(item: Mapping[str, Any], param: str) -> str:
    kind = item.get("type", "message")
    if kind == "message":
        role = item.get("role")
        require(
            role in ("user", "system", "developer", "assistant"), f"{param}.role is not a known role", param
        )
        return "assistant" if role == "assistant" else "message"
    require(
        kind in ("function_call", "function_call_output", "reasoning"),
        f"{param}.type {kind!r} is unknown",
        param,
    )
    return str(kind)


def read_request(body: Mapping[str, Any], reasoning_for: Mapping[str, str] | None = None) -> Conversation:
    """Check a responses request; `reasoning_for` maps call ids to the reasoning item that must come back."""
    model = read_model(body)
    require(
        "previous_response_id" not in body,
        "the stand-in keeps no state: send the whole input",
        "previous_response_id",
    )
    items = _items(body)
    names = read_tools(body)
    conversation = Conversation(
        model, names, read_tool_choice(body, names, _forced_name(body)), read_parallel(body)
    )
    pending: list[str] = []
    reasoning_seen: set[str] = set()
    previous = ""
    for i, item in enumerate(items):
        param = f"input[{i}]"
        require(isinstance(item, dict), f"{param} must be an object", param)
        kind = _kind(item, param)
        if kind in MODEL_ITEMS and previous not in MODEL_ITEMS:
            conversation.turns, conversation.results = conversation.turns + 1, []
        if kind == "reasoning":
            require(type(item.get("id")) is str, f"{param}.id must be a string", f"{param}.id")
            reasoning_seen.add(item["id"])
        elif kind == "function_call":
            call_id = item.get("call_id")
            require(
                type(call_id) is str and call_id != "", f"{param}.call_id must be a non-empty string", param
            )
            require(type(item.get("name")) is str, f"{param}.name must be a string", f"{param}.name")
            require(
                type(item.get("arguments")) is str,
                f"{param}.arguments must be a string",
                f"{param}.arguments",
            )
            required = (reasoning_for or {}).get(call_id)
            require(
                required is None or required in reasoning_seen,
                f"Item {param} (function_call {call_id!r}) was provided without its required reasoning item "
                f"{required!r}: replay every output item the model returned",
                param,
            )
            pending.append(call_id)
        elif kind == "function_call_output":
            call_id = item.get("call_id")
            require(
                call_id in pending,
                f"No tool call found for function call output with call_id {call_id!r}",
                f"{param}.call_id",
            )
            pending.remove(call_id)
            conversation.results.append(text_of(item.get("output"), f"{param}.output", INPUT_PARTS))
        else:
            text = text_of(item.get("content"), f"{param}.content", INPUT_PARTS)
            if kind == "message" and item.get("role") == "user":
                conversation.user_text, conversation.results = text, []
        previous = kind
    require(not pending, f"No tool output found for function call {', '.join(pending)}", "input")
    return conversation


def _response(body: Mapping[str, Any], output: list[dict[str, Any]], counters: Counters) -> dict[str, Any]:
    prompt, completion = estimate_tokens(body.get("input")), estimate_tokens(output)
    instructions = body.get("instructions")
    return {
        "id": counters.next_id("resp"),
        "object": "response",
        "created_at": counters.now(),
        "status": "completed",
        "error": None,
        "incomplete_details": None,
        "instructions": instructions if type(instructions) is str else None,
        "metadata": {},
        "model": body["model"],
        "output": output,
        "parallel_tool_calls": body.get("parallel_tool_calls", True),
        "temperature": 1.0,
        "tool_choice": copy.deepcopy(body.get("tool_choice", "auto")),
        "tools": copy.deepcopy(body.get("tools", [])),
        "top_p": 1.0,
        "usage": {
            "input_tokens": prompt,
            "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
            "output_tokens": completion,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": prompt + completion,
        },
    }


def answer_with_calls(
    body: Mapping[str, Any],
    calls: Sequence[tuple[str, str]],
    counters: Counters,
    reasoning_for: dict[str, str] | None = None,
) -> dict[str, Any]:
    """A response whose output asks for these calls; with `reasoning_for`, a reasoning item precedes them."""
    output: list[dict[str, Any]] = []
    if reasoning_for is not None and calls:
        output.append({"type": "reasoning", "id": counters.next_id("rs"), "summary": []})
    for name, arguments in calls:
        call_id = counters.next_id("call")
        output.append(
            {
                "type": "function_call",
                "id": counters.next_id("fc"),
                "call_id": call_id,
                "name": name,
                "arguments": arguments,
                "status": "completed",
            }
        )
        if reasoning_for is not None:
            reasoning_for[call_id] = output[0]["id"]
    return _response(body, output, counters)


def answer_with_text(body: Mapping[str, Any], text: str, counters: Counters) -> dict[str, Any]:
    """A response whose output is one assistant message of plain text."""
    message = {
        "type": "message",
        "id": counters.next_id("msg"),
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": text, "annotations": [], "logprobs": []}],
    }
    return _response(body, [message], counters)
