"""Notebook 03's instructor loops (Parts A and B) against course_lib.loops, over generated conversations.

Both loops talk to the same fake `post_json`, which records every request body and gives generated answers in
the documented shapes: text (None, empty or split into several parts and messages), one or several calls (good,
broken, unknown, not offered, destructive), reasoning items, in any number of turns. The options vary too:
`max_steps`, `tool_choice` with and without `sticky`, `model`, extra keys, the offered names and `confirm`.
Both loops must return the same text and trace (or raise the same exception type with the same trace), send the
same bodies and leave the toolbox's notes alike.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import course_lib.loops
from course_lib.demo_tools import notes_of, weather_toolbox
from course_lib.errors import MaxStepsExceeded
from tests.fake_endpoint import FakeEndpoint
from tests.instructor_solutions import instructor_solution

SETTINGS = settings(
    max_examples=150, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
CALLS = [
    ("get_weather", '{"city": "Paris", "unit": "celsius"}'),
    ("get_weather", '{"city": "Par'),
    ("get_user_city", '{"user_id": "u1"}'),
    ("delete_note", '{"note_id": 1}'),
    ("get_wether", "{}"),
]
OFFERED = [["get_weather"], ["get_weather", "get_user_city", "delete_note"], ["delete_note", "get_user_city"]]
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


def responses_answer(texts: list[list[str]], calls: list[tuple[str, str]], number: int, think: bool) -> Any:
    """A Responses answer: maybe a reasoning item, message items of output_text parts, then function calls."""
    output: list[dict[str, Any]] = (
        [{"type": "reasoning", "id": f"rs_{number}", "summary": []}] if think else []
    )
    for m, parts in enumerate(texts):
        content = [{"type": "output_text", "text": part, "annotations": []} for part in parts]
        output.append({"type": "message", "id": f"msg_{number}_{m}", "role": "assistant", "content": content})
    for i, (name, arguments) in enumerate(calls):
        output.append(
            {
                "type": "function_call",
                "id": f"fc_{number}_{i}",
                "call_id": f"call_{number}_{i}",
                "name": name,
                "arguments": arguments,
            }
        )
    return {"object": "response", "output": output}


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


def converse(
    loop: Callable[..., Any], patch: Any, answers: list[Any], offered: list[str], options: Any
) -> Any:
    """What `loop` does with `answers`: its outcome, every body it sent, and the notes left in its toolbox."""
    endpoint, box = FakeEndpoint(answers), weather_toolbox()
    with patch(endpoint):
        try:
            text, trace = loop("http://127.0.0.1:9/v1", "Weather?", box, offered, **options)
            outcome: Any = ("returned", text, [tuple(entry) for entry in trace])
        except MaxStepsExceeded as stop:
            outcome = ("MaxStepsExceeded", [tuple(entry) for entry in stop.trace])
    return outcome, endpoint.sent, notes_of(box)


def both(solutions: dict[str, Any], name: str, answers: list[Any], offered: list[str], options: Any) -> None:
    reference = converse(
        getattr(course_lib.loops, name),
        lambda endpoint: mock.patch.object(course_lib.loops, "post_json", endpoint),
        answers,
        offered,
        options,
    )
    mine = converse(
        solutions[name],
        lambda endpoint: mock.patch.dict(solutions, {"post_json": endpoint}),
        answers,
        offered,
        options,
    )
    assert mine == reference


@SETTINGS
@given(chat_answers(), st.sampled_from(OFFERED), OPTIONS)
def test_the_chat_loop_talks_as_the_reference_does(
    solutions: dict[str, Any], answers: list[Any], offered: list[str], options: dict[str, Any]
) -> None:
    both(solutions, "chat_tool_loop", answers, offered, options)


@SETTINGS
@given(responses_answers(), st.sampled_from(OFFERED), OPTIONS)
def test_the_responses_loop_talks_as_the_reference_does(
    solutions: dict[str, Any], answers: list[Any], offered: list[str], options: dict[str, Any]
) -> None:
    both(solutions, "responses_tool_loop", answers, offered, options)
