"""Notebook 03's instructor loops (Parts A and B) against course_lib.loops, over generated conversations.

Both loops talk to the same fake `post_json`, which records every request body and gives generated answers in
the documented shapes: text (None, empty or split into several parts and messages), one or several calls (good,
broken, unknown, not offered, destructive), reasoning items, in any number of turns. The options vary too:
`max_steps`, `tool_choice` with and without `sticky`, `model`, extra keys, the offered names and `confirm`.
Both loops must return the same text and trace (or raise the same exception type with the same trace), send the
same bodies and leave the toolbox's notes alike.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import course_lib.loops
from tests.support.fake_endpoint import (
    CALLS,
    OFFERED,
    SETTINGS,
    converse,
    reference_and_mine,
    responses_answer,
)
from tests.support.instructor_solutions import instructor_solution

OPTIONS = st.fixed_dictionaries(
    {"max_steps": st.integers(1, 4)},
    optional={
        "tool_choice": st.sampled_from(["required", "auto", {"type": "function", "name": "get_weather"}]),
        "sticky": st.booleans(),
        "model": st.just("gpt-test"),
        "parallel_tool_calls": st.booleans(),
        "confirm": st.sampled_from([lambda name, args: True, lambda name, args: "yes"]),
    },
)


@pytest.fixture(scope="module")
def solutions() -> Iterator[dict[str, Any]]:
    """Both instructor loops: the namespace up to Part B's solution also holds Part A's."""
    with instructor_solution("03_loop", "responses_tool_loop") as namespace:
        yield namespace


def chat_answer(text: Any, calls: list[tuple[str, str]], number: int) -> dict[str, Any]:
    """A chat.completion holding `text` and `calls` (ids unique across the conversation)."""
    message: dict[str, Any] = {"role": "assistant", "content": text, "refusal": None, "annotations": []}
    if calls:
        message["tool_calls"] = [
            {
                "id": f"call_{number}_{i}",
                "type": "function",
                "function": {"name": name, "arguments": arguments},
            }
            for i, (name, arguments) in enumerate(calls)
        ]
    elif text == "":
        message["tool_calls"] = []
    return {
        "object": "chat.completion",
        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
    }


turn_calls = st.lists(st.sampled_from(CALLS), max_size=3)


@st.composite
def chat_answers(draw: st.DrawFn) -> list[Any]:
    turns = draw(st.lists(turn_calls, min_size=1, max_size=5))
    texts = st.none() | st.sampled_from(["", "It is 15 C.", "ok"])
    return [chat_answer(draw(texts), calls, number) for number, calls in enumerate(turns)]


@st.composite
def responses_answers(draw: st.DrawFn) -> list[Any]:
    turns = draw(st.lists(turn_calls, min_size=1, max_size=5))
    texts = st.lists(st.lists(st.sampled_from(["", "It is ", "15 C."]), max_size=2), max_size=2)
    return [
        responses_answer(draw(texts), calls, number, draw(st.booleans()))
        for number, calls in enumerate(turns)
    ]


@SETTINGS
@given(chat_answers(), st.sampled_from(OFFERED), OPTIONS)
def test_the_chat_loop_talks_as_the_reference_does(
    solutions: dict[str, Any], answers: list[Any], offered: list[str], options: dict[str, Any]
) -> None:
    reference, mine = reference_and_mine(
        converse, course_lib.loops, solutions, "chat_tool_loop", answers, offered, options
    )
    assert mine == reference


@SETTINGS
@given(responses_answers(), st.sampled_from(OFFERED), OPTIONS)
def test_the_responses_loop_talks_as_the_reference_does(
    solutions: dict[str, Any], answers: list[Any], offered: list[str], options: dict[str, Any]
) -> None:
    reference, mine = reference_and_mine(
        converse, course_lib.loops, solutions, "responses_tool_loop", answers, offered, options
    )
    assert mine == reference
