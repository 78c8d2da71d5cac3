"""assert_own_work: a graded function must be the learner's own, not the reference imported or wrapped."""

from __future__ import annotations

import types

import pytest

import course_lib.envelope
from course_lib.checks import assert_own_work
from course_lib.envelope import parse_envelope


def notebook_function(source: str, name: str) -> types.FunctionType:
    """Define a function the way a notebook cell does: in a __main__ namespace."""
    namespace: dict[str, object] = {"__name__": "__main__", "course_lib": course_lib}
    exec(source, namespace)
    function = namespace[name]
    assert isinstance(function, types.FunctionType)
    return function


def test_the_reference_itself_is_refused() -> None:
    with pytest.raises(AssertionError, match="comes from course_lib.envelope"):
        assert_own_work(parse_envelope, course_lib.envelope)


def test_a_wrapper_around_the_reference_is_refused() -> None:
    wrapper = notebook_function(
        "def parse(raw):\n    return course_lib.envelope.parse_envelope(raw)", "parse"
    )
    with pytest.raises(AssertionError, match="uses 'course_lib'"):
        assert_own_work(wrapper, course_lib.envelope)


def test_a_helper_that_calls_the_reference_is_refused_too() -> None:
    source = (
        "from course_lib.envelope import parse_envelope as p\n"
        "def helper(raw):\n    return p(raw)\n"
        "def parse(raw):\n    return helper(raw)\n"
    )
    with pytest.raises(AssertionError, match="uses 'p'"):
        assert_own_work(notebook_function(source, "parse"), course_lib.envelope)


def test_the_learners_own_function_passes() -> None:
    own = notebook_function("def parse(raw):\n    return {'kind': 'final', 'text': str(raw)}", "parse")
    assert_own_work(own, course_lib.envelope)


def test_an_allowed_helper_from_the_reference_module_passes() -> None:
    source = "from course_lib.envelope import parse_envelope\ndef parse(raw):\n    return parse_envelope(raw)"
    assert_own_work(notebook_function(source, "parse"), course_lib.envelope, allow=["parse_envelope"])
