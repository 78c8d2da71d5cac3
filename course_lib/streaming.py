"""Assembling a streamed turn: fragments in, one whole message (or list of output items) out.

A streamed tool call arrives as pieces of its `arguments` string, cut wherever the model's tokens fall.
No piece is JSON on its own, so nothing here parses arguments: the pieces are joined by the key the
format gives them (the tool call's `index` in Chat Completions, the item's `output_index` in Responses),
and the turn is accepted only once the stream says it is finished (`finish_reason`, `response.completed`).
The strings that come out are exactly what the non-streamed answer would have held; check them as usual.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from typing import Any

from course_lib.errors import ModelTurnError

DONE = "[DONE]"
"""The data of the last event of a chat stream."""

UNFINISHED = ("length", "content_filter")
"""Finish reasons that mean the turn was cut short: whatever arrived may be incomplete."""


def _object(value: object, what: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise ModelTurnError(f"{what} is not an object: {value!r:.80}")
    return value


def _text(value: object, what: str) -> str:
    if type(value) is not str:
        raise ModelTurnError(f"{what} is not a string: {value!r:.80}")
    return value


def assemble_chat_stream(events: Iterable[Mapping[str, Any] | str]) -> dict[str, Any]:
    """Join `chat.completion.chunk` events into the assistant message they carry, tool calls by `index`.

    Raises ModelTurnError if the stream ends without a `finish_reason`, finishes cut short
    (`length`, `content_filter`), or sends arguments for a tool call it never opened.
    """
    content: list[str] | None = None
    calls: dict[int, dict[str, Any]] = {}
    finish: str | None = None
    for event in events:
        if event == DONE:
            break
        chunk = _object(event, "a chunk")
        for choice in chunk.get("choices") or []:
            choice = _object(choice, "a choice")
            if choice.get("index", 0) != 0:
                continue
            delta = _object(choice.get("delta") or {}, "a delta")
            if delta.get("content") is not None:
                content = (content or []) + [_text(delta["content"], "delta.content")]
            for part in delta.get("tool_calls") or []:
                part = _object(part, "a tool call delta")
                index, function = part.get("index"), _object(part.get("function") or {}, "a function delta")
                if type(index) is not int:
                    raise ModelTurnError(f"a tool call delta has no integer index: {part!r:.80}")
                if index not in calls:
                    if part.get("id") is None or function.get("name") is None:
                        raise ModelTurnError(f"tool call {index} sent arguments before its id and name")
                    name = _text(function["name"], "function.name")
                    calls[index] = {"id": _text(part["id"], "tool call id"), "type": "function",
                                    "function": {"name": name, "arguments": ""}}  # fmt: skip
                piece = function.get("arguments")
                if piece is not None:
                    calls[index]["function"]["arguments"] += _text(piece, "function.arguments")
            if choice.get("finish_reason") is not None:
                finish = _text(choice["finish_reason"], "finish_reason")
    if finish is None:
        raise ModelTurnError("the stream ended without a finish_reason: the turn is incomplete")
    if finish in UNFINISHED:
        raise ModelTurnError(
            f"the turn was cut short (finish_reason {finish!r}): its arguments may be partial"
        )
    message: dict[str, Any] = {"role": "assistant", "content": None if content is None else "".join(content)}
    if calls:
        message["tool_calls"] = [calls[index] for index in sorted(calls)]
    return message


def assemble_responses_stream(events: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Join Responses stream events into the response's output items, in `output_index` order.

    Each item starts from its `response.output_item.added`; a function call's `arguments` are its
    `response.function_call_arguments.delta`s joined, and must equal what `.done` says; a message's text
    is its `response.output_text.delta`s joined. Raises ModelTurnError unless `response.completed` arrives.
    """
    items: dict[int, dict[str, Any]] = {}
    completed = False
    for event in events:
        event = _object(event, "an event")
        kind = event.get("type")
        if kind in ("response.failed", "response.incomplete", "error"):
            raise ModelTurnError(f"the stream ended with {kind!r}: the turn is incomplete")
        if kind == "response.completed":
            completed = True
            break
        if kind == "response.output_item.added":
            added = copy.deepcopy(dict(_object(event.get("item"), "the added item")))
            if added.get("type") == "function_call":
                added["arguments"] = ""
            if added.get("type") == "message":
                added["content"] = []
            items[event["output_index"]] = added
            continue
        if not isinstance(kind, str) or "output_index" not in event:
            continue
        item = items.get(event["output_index"])
        if item is None:
            raise ModelTurnError(
                f"{kind} for output_index {event['output_index']!r} before its item was added"
            )
        if kind == "response.function_call_arguments.delta":
            item["arguments"] += _text(event.get("delta"), "delta")
        elif kind == "response.function_call_arguments.done":
            if event.get("arguments") != item["arguments"]:
                raise ModelTurnError(
                    f"item {item.get('id')!r}: the deltas do not add up to the final arguments"
                )
            item["status"] = "completed"
        elif kind == "response.content_part.added":
            item["content"].append({**_object(event.get("part"), "the part"), "text": ""})
        elif kind == "response.output_text.delta":
            item["content"][event["content_index"]]["text"] += _text(event.get("delta"), "delta")
        elif kind == "response.output_item.done":
            done = _object(event.get("item"), "the finished item")
            item["status"] = done.get("status", "completed")
            if item.get("type") not in ("function_call", "message"):
                items[event["output_index"]] = copy.deepcopy(dict(done))
    if not completed:
        raise ModelTurnError("the stream ended before response.completed: the turn is incomplete")
    return [items[index] for index in sorted(items)]
