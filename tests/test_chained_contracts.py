"""Notebook 04's instructor chained_responses_loop (Part F) against course_lib.chained, over generated conversations.

Both loops talk to the same fake `post_json`, which records every request body and gives generated Responses
answers, each with its own `id`: message items of output_text parts (none, empty or several), zero to three calls
(good, broken, unknown, not offered, destructive), a reasoning item or not, in one to five turns. The options vary
too: `max_steps`, `model`, `confirm`, the offered names and fields of `extra` (sent with every request). Both loops
must return the same text and trace (or raise MaxStepsExceeded with the same trace), send the same bodies and
leave the toolbox's notes alike.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import course_lib.chained
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
        "model": st.just("gpt-test"),
        "confirm": st.sampled_from([lambda name, args: True, lambda name, args: "yes"]),
        "temperature": st.just(0),
        "store": st.booleans(),
        "tool_choice": st.sampled_from(["required", "auto"]),
    },
)
PARTS = st.lists(st.lists(st.sampled_from(["", "It is ", "15 C."]), max_size=2), max_size=2)


@pytest.fixture(scope="module")
def solution() -> Iterator[dict[str, Any]]:
    """The namespace of the instructor's Part F (Part A's tool_specs, which it uses, included)."""
    with instructor_solution("04_wire", "chained_responses_loop") as namespace:
        yield namespace


@st.composite
def conversations(draw: st.DrawFn) -> list[dict[str, Any]]:
    """One to five Responses answers, each with its id, messages, calls and maybe a reasoning item."""
    answers = []
    for number in range(1, draw(st.integers(1, 5)) + 1):
        output: list[dict[str, Any]] = []
        if draw(st.booleans()):
            output.append({"type": "reasoning", "id": f"rs_{number}", "summary": []})
        for m, parts in enumerate(draw(PARTS)):
            content = [{"type": "output_text", "text": part, "annotations": []} for part in parts]
            output.append(
                {"type": "message", "id": f"msg_{number}_{m}", "role": "assistant", "content": content}
            )
        for i, (name, arguments) in enumerate(draw(st.lists(st.sampled_from(CALLS), max_size=3))):
            call_id = f"call_{number}_{i}"
            output.append(
                {
                    "type": "function_call",
                    "id": f"fc_{number}_{i}",
                    "call_id": call_id,
                    "name": name,
                    "arguments": arguments,
                }
            )
        answers.append({"id": f"resp_{number}", "object": "response", "output": output})
    return answers


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


@SETTINGS
@given(conversations(), st.sampled_from(OFFERED), OPTIONS)
def test_the_chained_loop_talks_as_the_reference_does(
    solution: dict[str, Any], answers: list[Any], offered: list[str], options: dict[str, Any]
) -> None:
    reference = converse(
        course_lib.chained.chained_responses_loop,
        lambda endpoint: mock.patch.object(course_lib.chained, "post_json", endpoint),
        answers,
        offered,
        options,
    )
    mine = converse(
        solution["chained_responses_loop"],
        lambda endpoint: mock.patch.dict(solution, {"post_json": endpoint}),
        answers,
        offered,
        options,
    )
    assert mine == reference
