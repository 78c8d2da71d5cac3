"""Notebook 07's instructor ChatAdapter (Part F) against course_lib.adapters.ChatAdapter, over generated answers.

Both adapters talk to the same fake `post_json`, which records every request and gives generated answers:
text, calls of every type (some broken, some not functions), cut-off turns, missing fields, HTTP errors.
A conversation starts, replies to every call, and starts afresh after a final answer or an error; both adapters
must return the same turns (or raise the same exception type), count the same requests and send the same bodies.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import course_lib.adapters
from course_lib.desk import desk_toolbox
from course_lib.errors import ModelHTTPError
from course_lib.turns import BadCall, ToolResult
from tests.support.fake_endpoint import SETTINGS, reference_and_mine
from tests.support.instructor_solutions import instructor_solution

ARGUMENTS = ('{"order_id": "A-1003"}', '{"order_id": "A-10', "[]", "{}", '{"a": 1, "a": 2}', "NaN", "")
NAMES = ("get_order", "search_orders", "get_\u043erder", "")


@pytest.fixture(scope="module")
def solution() -> Iterator[dict[str, Any]]:
    """The namespace of the instructor's ChatAdapter, whose `post_json` the tests replace."""
    with instructor_solution("07_capstone", "chat_adapter") as namespace:
        yield namespace


class FakeEndpoint:
    """post_json's stand-in: records each request, then gives the next answer (or raises it)."""

    def __init__(self, answers: list[Any]) -> None:
        self.answers, self.sent = list(answers), []

    def __call__(self, base: str, path: str, payload: dict[str, Any], timeout: float = 60.0) -> Any:
        self.sent.append((base, path, copy.deepcopy(payload), timeout))
        answer = self.answers.pop(0)
        if isinstance(answer, ModelHTTPError):
            raise answer
        return copy.deepcopy(answer)


def drop(draw: st.DrawFn, mapping: dict[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
    """`mapping`, sometimes without one of `keys`."""
    if draw(st.integers(0, 7)) == 0:
        mapping.pop(draw(st.sampled_from(keys)), None)
    return mapping


@st.composite
def answers(draw: st.DrawFn) -> Any:
    """One answer of the model endpoint: a chat.completion, sometimes broken, or an HTTP error."""
    if draw(st.integers(0, 9)) == 0:
        return ModelHTTPError(500, "upstream exploded")
    calls = []
    for number in range(draw(st.integers(0, 3))):
        function = drop(
            draw,
            {"name": draw(st.sampled_from(NAMES)), "arguments": draw(st.sampled_from(ARGUMENTS))},
            ("name", "arguments"),
        )
        kind = draw(st.sampled_from(["function", "function", "function", "custom"]))
        calls.append(
            drop(draw, {"id": f"call_{number}", "type": kind, "function": function}, ("id", "function"))
        )
    message: dict[str, Any] = {
        "role": "assistant",
        "content": draw(st.none() | st.text(max_size=5)),
        "refusal": None,
    }
    if calls or draw(st.booleans()):
        message["tool_calls"] = calls
    choice = drop(
        draw,
        {
            "index": 0,
            "message": message,
            "finish_reason": draw(st.sampled_from(["stop", "tool_calls", "length", None])),
        },
        ("message", "finish_reason"),
    )
    return {"object": "chat.completion", "choices": [] if draw(st.integers(0, 9)) == 0 else [choice]}


Patch = Callable[[FakeEndpoint], AbstractContextManager[Any]]


def converse(
    adapter: type, patch: Patch, answers: list[Any], tools: list[Any], model: str | None
) -> list[Any]:
    """What `adapter` does over `answers`: each turn or exception, its request count, every request it sent."""
    endpoint = FakeEndpoint(answers)
    with patch(endpoint):
        client = adapter("http://127.0.0.1:9/v1", tools, **({"model": model} if model else {}))
        log: list[Any] = [adapter.api, client.requests]
        pending: list[ToolResult] | None = None
        for number in range(len(answers)):
            try:
                if pending is None:
                    turn = client.start(f"question {number}", timeout=5.0)
                else:
                    turn = client.reply(pending, timeout=5.0)
            except Exception as error:  # noqa: BLE001 - the type is what is compared
                log.append(type(error).__name__)
                pending = None
                continue
            log.append(turn)
            calls = [item.id if isinstance(item, BadCall) else item["id"] for item in turn if _is_call(item)]
            pending = [ToolResult(call_id, f"result {call_id}") for call_id in calls] or None
        client.close()
    return [*log, client.requests, endpoint.sent]


def _is_call(item: Any) -> bool:
    return isinstance(item, BadCall) or item.get("kind") == "call"


@SETTINGS
@given(
    st.lists(answers(), min_size=1, max_size=4),
    st.sampled_from([(), ("get_order",), ("get_order", "search_orders")]),
    st.sampled_from([None, "desk-model-2"]),
)
def test_the_instructor_adapter_talks_as_the_reference_does(
    solution: dict[str, Any], replies: list[Any], names: tuple[str, ...], model: str | None
) -> None:
    tools = [desk_toolbox()[name] for name in names]
    reference, mine = reference_and_mine(
        converse, course_lib.adapters, solution, "ChatAdapter", replies, tools, model
    )
    assert mine == reference
