"""Notebook 05's published record: what the reference checker and dispatcher answered, read back without them."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from course_grade.release.bundle import LIBRARY
from course_grade.release.imports import closure, graph, modules
from course_grade.release.keys import KEYS
from course_lib.fixtures import load_fixture
from course_lib.loops import LOOPS
from course_lib.tools import check_args, run_tool_call
from course_lib.tools_record import (
    CALLS,
    CHECKS,
    FIXTURE,
    record,
    reference_call,
    reference_play,
    reference_problems,
)


def test_the_published_record_is_what_the_reference_does_today() -> None:
    """A change to the reference, the demo tools or the calls needs `python -m course_lib.tools --record`."""
    assert record(check_args, run_tool_call, LOOPS) == load_fixture(FIXTURE)


def test_the_record_answers_every_check_as_the_reference_does() -> None:
    assert all(reference_problems(value, schema) == check_args(value, schema) for value, schema in CHECKS)


def test_a_recorded_call_reads_back_with_the_toolbox_it_left() -> None:
    called = reference_call("delete_note", '{"note_id": 1}', ["delete_note"], answer=True)
    assert called.answer == '{"result": {"deleted": "buy milk"}}'
    assert (called.asked, called.notes, called.server_log) == ([{"note_id": 1}], {2: "call the bank"}, [])


def test_a_call_is_found_whatever_order_its_offered_names_have() -> None:
    name, raw, offered, answer = CALLS[-1]
    assert reference_call(name, raw, list(reversed(offered)) + [], answer) == reference_call(*CALLS[-1])


def test_the_record_keeps_true_1_and_1_0_apart() -> None:
    """JSON tells them apart, and so does the lookup: True is not in the enum, 1.0 is."""
    assert reference_problems(True, {"enum": [1, 2]}) != reference_problems(1.0, {"enum": [1, 2]})


@pytest.mark.parametrize(
    "lookup",
    [
        lambda: reference_problems("Atlantis", {"type": "string"}),
        lambda: reference_call("get_weather", '{"city": "Atlantis"}'),
        lambda: reference_call("delete_note", '{"note_id": 1}', ["delete_note"], answer="yes"),
    ],
)
def test_a_call_the_record_does_not_hold_is_refused_saying_so(lookup: Callable[[], object]) -> None:
    with pytest.raises(ValueError, match="the published record holds no"):
        lookup()


def test_a_scenario_not_played_is_refused_listing_those_that_were() -> None:
    with pytest.raises(ValueError, match=r"no run of scenario 'parallel'; it holds \['recovers'\]"):
        reference_play("parallel")


def test_the_record_reaches_no_key_of_05() -> None:
    """Notebook 05's learners' edition holds the record and not the reference it records."""
    reached = closure("course_lib.tools_record", graph(modules(LIBRARY)))
    assert "course_lib.demo_tools" in reached and not reached & set(KEYS["05_failures"])
