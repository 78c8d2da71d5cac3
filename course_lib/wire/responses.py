"""Responses (`POST /v1/responses`): read a request's input items, build a `response` object."""

from __future__ import annotations

import base64
import copy
import hashlib
import hmac
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

MODEL_ITEMS = ("function_call", "reasoning", "assistant")
INPUT_PARTS = ("input_text", "output_text", "text", "input_image", "input_file", "refusal")
ENCRYPTED_REASONING = "reasoning.encrypted_content"
"""The `include` value that asks for reasoning items to carry `encrypted_content`."""
_SEAL_KEY = b"course_lib stand-in: not a secret, only a checksum"


def seal(item_id: str) -> str:
    """The opaque `encrypted_content` the stand-in issues for a reasoning item: deterministic, checkable."""
    digest = hmac.new(_SEAL_KEY, item_id.encode("utf-8"), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).decode("ascii").rstrip("=")


def wants_encrypted_reasoning(body: Mapping[str, Any]) -> bool:
    """Whether the request's `include` (a list of strings, if present) asks for encrypted reasoning."""
    include = body.get("include")
    if include is None:
        return False
    require(
        isinstance(include, list) and all(type(value) is str for value in include),
        "include must be an array of strings",
        "include",
    )
    assert isinstance(include, list)
    return ENCRYPTED_REASONING in include


def _check_reasoning(item: Mapping[str, Any], param: str, sealed: set[str]) -> None:
    """A replayed reasoning item's `encrypted_content` must be the one issued for its id, unchanged."""
    content = item.get("encrypted_content")
    if content is None:
        require(
            item["id"] not in sealed,
            f"{param} (reasoning item {item['id']!r}) was issued with encrypted_content but replayed without it: "
            "replay the reasoning item exactly as the response returned it",
            f"{param}.encrypted_content",
        )
        return
    require(
        type(content) is str and hmac.compare_digest(content, seal(item["id"])),
        f"{param}.encrypted_content could not be verified for reasoning item {item['id']!r}: "
        "it is not the value this server issued (changed, truncated, or from another item)",
        f"{param}.encrypted_content",
    )


def read_tools(body: Mapping[str, Any]) -> list[str]:
    """The function names declared in `tools`: flat [{"type": "function", "name", ...}]."""
    return read_tool_names(body, _tool_name)


def _tool_name(tool: object, param: str) -> str:
    require_function(tool, param)
    assert isinstance(tool, dict)
    require("function" not in tool, f"{param} nests a 'function' object: Responses tools are flat", param)
    require(type(tool.get("strict", False)) is bool, f"{param}.strict must be a boolean", f"{param}.strict")
    params = tool.get("parameters", {})
    require(isinstance(params, dict), f"{param}.parameters must be an object", f"{param}.parameters")
    return check_tool_name(tool.get("name"), f"{param}.name")


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


def read_store(body: Mapping[str, Any]) -> bool:
    """`store`: whether to keep the response, true by default as documented."""
    value = body.get("store", True)
    require(value is None or type(value) is bool, "store must be a boolean", "store")
    return value is not False


def input_items(body: Mapping[str, Any]) -> list[Any]:
    """The request's own `input` as a list of items (a plain string is one user message)."""
    return _items(body)


def read_request(
    body: Mapping[str, Any],
    reasoning_for: Mapping[str, str] | None = None,
    sealed: set[str] | None = None,
    history: list[Any] | None = None,
) -> Conversation:
    """Check a responses request; `reasoning_for` maps call ids to the reasoning item that must come back.

    `sealed` holds the ids of reasoning items issued with `encrypted_content`: those must come back with it.
    `history` is the whole input when the server resolved stored items (`previous_response_id`,
    `item_reference`); it is checked the same way as an input sent in full.
    """
    model = read_model(body)
    wants_encrypted_reasoning(body)
    read_store(body)
    items = _items(body) if history is None else history
    names = read_tools(body)
    conversation = Conversation(
        model, names, read_tool_choice(body, names, _forced_name(body)), read_parallel(body)
    )
    pending: list[str] = []
    reasoning_seen: set[str] = set()
    ids: set[str] = set()
    previous = ""
    for i, item in enumerate(items):
        param = f"input[{i}]"
        require(isinstance(item, dict), f"{param} must be an object", param)
        item_id = item.get("id")
        if type(item_id) is str:
            require(item_id not in ids, f"Duplicate item found with id {item_id[:120]}. "
                    "Remove duplicate items from your input and try again.", "input")  # fmt: skip
            ids.add(item_id)
        kind = _kind(item, param)
        if kind in MODEL_ITEMS and previous not in MODEL_ITEMS:
            conversation.turns, conversation.results = conversation.turns + 1, []
        if kind == "reasoning":
            require(type(item.get("id")) is str, f"{param}.id must be a string", f"{param}.id")
            _check_reasoning(item, param, sealed or set())
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


def _echoed_tool(tool: Mapping[str, Any]) -> dict[str, Any]:
    """A declared tool as the response echoes it: `strict` and `parameters` always present (null if not given)."""
    echoed = copy.deepcopy(dict(tool))
    echoed.setdefault("strict", None)
    echoed.setdefault("parameters", None)
    return echoed


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
        "tools": [_echoed_tool(tool) for tool in body.get("tools", [])],
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
    sealed: set[str] | None = None,
) -> dict[str, Any]:
    """A response whose output asks for these calls; with `reasoning_for`, a reasoning item precedes them.

    When the request's `include` asks for encrypted reasoning, that item carries `encrypted_content`, and
    its id goes into `sealed`.
    """
    output: list[dict[str, Any]] = []
    if reasoning_for is not None and calls:
        reasoning: dict[str, Any] = {"type": "reasoning", "id": counters.next_id("rs"), "summary": []}
        if wants_encrypted_reasoning(body):
            reasoning["encrypted_content"] = seal(reasoning["id"])
            if sealed is not None:
                sealed.add(reasoning["id"])
        output.append(reasoning)
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


def _opened(item: Mapping[str, Any]) -> dict[str, Any]:
    """An output item as `response.output_item.added` shows it: in progress, nothing generated yet."""
    opened = copy.deepcopy(dict(item))
    if item["type"] == "function_call":
        opened.update(arguments="", status="in_progress")
    elif item["type"] == "message":
        opened.update(content=[], status="in_progress")
    return opened


def stream_events(response: Mapping[str, Any]) -> list[Event]:
    """The documented event sequence that streams this response, each event named by its `type`.

    `response.created` and `response.in_progress` (status in_progress, no output yet); then per output
    item `response.output_item.added`, its content in fragments (`response.function_call_arguments.delta`
    and `.done`, or a content part with `response.output_text.delta` and `.done`),
    `response.output_item.done`; finally `response.completed` with the whole response.
    """
    events: list[Event] = []

    def emit(kind: str, **fields: Any) -> None:
        events.append(Event(kind, {"type": kind, "sequence_number": len(events), **fields}))

    pending = {**copy.deepcopy(dict(response)), "status": "in_progress", "output": []}
    del pending["usage"]  # not counted yet: the published schema has it optional, not nullable
    emit("response.created", response=pending)
    emit("response.in_progress", response=copy.deepcopy(pending))
    for index, item in enumerate(response["output"]):
        emit("response.output_item.added", output_index=index, item=_opened(item))
        where = {"item_id": item["id"], "output_index": index}
        if item["type"] == "function_call":
            for piece in fragments(item["arguments"], f"{response['id']}:{item['id']}"):
                if piece:
                    emit("response.function_call_arguments.delta", **where, delta=piece)
            emit(
                "response.function_call_arguments.done",
                **where,
                name=item["name"],
                arguments=item["arguments"],
            )
        elif item["type"] == "message":
            for content_index, part in enumerate(item["content"]):
                at = {**where, "content_index": content_index}
                emit("response.content_part.added", **at, part={**copy.deepcopy(part), "text": ""})
                for piece in fragments(part["text"], f"{response['id']}:{item['id']}:{content_index}"):
                    if piece:
                        emit("response.output_text.delta", **at, delta=piece, logprobs=[])
                emit("response.output_text.done", **at, text=part["text"], logprobs=[])
                emit("response.content_part.done", **at, part=copy.deepcopy(part))
        emit("response.output_item.done", output_index=index, item=copy.deepcopy(item))
    emit("response.completed", response=copy.deepcopy(dict(response)))
    return events
