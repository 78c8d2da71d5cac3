"""Notebook 07's instructor solutions of Parts A to E against course_lib.desk, over generated inputs.

The inputs keep to what each part's prose covers and vary every point its "must" list rules on: policy values
that are near misses of a mode, names the policy or the toolbox lacks, registered names in any order and as an
iterator, concerns empty or not. Both must give the same answer and leave their input as it was.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from course_lib.desk import policy as reference_policy
from tests.instructor_solutions import instructor_solution

SETTINGS = settings(
    max_examples=300, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
NAMES = ("get_order", "search_orders", "get_ticket", "issue_refund", "drop_table", "")
MODES = st.sampled_from(["auto", "confirm", "never"]) | st.sampled_from(
    [
        "AUTO",
        " auto",
        "auto\n",
        "Confirm",
        "yes",
        "",
        True,
        False,
        1,
        0,
        1.0,
        None,
        ["auto"],
        ("confirm",),
        {"auto": 1},
    ]
)


@pytest.fixture(scope="module")
def solutions() -> Iterator[dict[str, Any]]:
    """The namespace of the instructor's desk pieces: the one up to Part E's solution holds Parts A to D too."""
    with instructor_solution("07_capstone", "audit_entry") as namespace:
        yield namespace


policies = st.dictionaries(st.sampled_from(NAMES), MODES, max_size=6)


@st.composite
def named(draw: st.DrawFn) -> tuple[dict[str, Any], str]:
    """A policy and a name, most often one the policy holds."""
    policy = draw(policies)
    held = sorted(policy)
    return policy, draw(st.sampled_from(held) if held and draw(st.integers(0, 3)) else st.sampled_from(NAMES))


@SETTINGS
@given(named())
def test_mode_for_equals_the_reference(solutions: dict[str, Any], case: tuple[dict[str, Any], str]) -> None:
    policy, name = case
    before = copy.deepcopy(policy)
    assert solutions["mode_for"](policy, name) == reference_policy.mode_for(policy, name)
    assert policy == before


@SETTINGS
@given(
    policies,
    st.permutations(NAMES).flatmap(lambda names: st.integers(0, 6).map(lambda n: names[:n])),
    st.booleans(),
)
def test_offered_tools_equals_the_reference(
    solutions: dict[str, Any], policy: dict[str, Any], registered: list[str], as_iterator: bool
) -> None:
    given_names = list(registered)
    mine = solutions["offered_tools"](policy, iter(given_names) if as_iterator else given_names)
    assert type(mine) is list and mine == reference_policy.offered_tools(policy, list(registered))
    assert given_names == registered


@SETTINGS
@given(
    named(),
    st.none() | st.lists(st.sampled_from(["tainted", "over"]), max_size=2),
    st.booleans(),
)
def test_effective_mode_equals_the_reference(
    solutions: dict[str, Any], case: tuple[dict[str, Any], str], concerns: list[str] | None, as_tuple: bool
) -> None:
    policy, name = case
    if concerns is None:
        mine, want = solutions["effective_mode"](policy, name), reference_policy.effective_mode(policy, name)
    else:
        given_concerns = tuple(concerns) if as_tuple else concerns
        mine = solutions["effective_mode"](policy, name, given_concerns)
        want = reference_policy.effective_mode(policy, name, given_concerns)
    assert mine == want
