"""Notebook 04's instructor chained_responses_loop (Part F) against course_lib.chained, over generated conversations.

Both loops talk to the same fake `post_json`, which records every request body and gives generated Responses
answers, each with its own `id`: message items of output_text parts (none, empty or several), zero to three calls
(good, broken, unknown, not offered, destructive), a reasoning item or not, in one to five turns. The options vary
too: `max_steps`, `model`, `confirm`, the offered names and fields of `extra` (sent with every request). Both loops
must return the same text and trace (or raise MaxStepsExceeded with the same trace), send the same bodies and
leave the toolbox's notes alike.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import course_lib.chained
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
        think, texts = draw(st.booleans()), draw(PARTS)
        calls = draw(st.lists(st.sampled_from(CALLS), max_size=3))
        answers.append({"id": f"resp_{number}", **responses_answer(texts, calls, number, think)})
    return answers


@SETTINGS
@given(conversations(), st.sampled_from(OFFERED), OPTIONS)
def test_the_chained_loop_talks_as_the_reference_does(
    solution: dict[str, Any], answers: list[Any], offered: list[str], options: dict[str, Any]
) -> None:
    reference, mine = reference_and_mine(
        converse, course_lib.chained, solution, "chained_responses_loop", answers, offered, options
    )
    assert mine == reference
