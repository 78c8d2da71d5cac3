"""assert_own_work: a graded function must be the learner's own, not the reference imported or wrapped."""

from __future__ import annotations

import json
import types

import pytest

import course_lib.envelope
from course_lib.checks import assert_own_work, judge_own_work, own_work_report
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


@pytest.mark.parametrize(
    ("source", "match"),
    [
        (
            "def parse(raw, _impl=course_lib.envelope.parse_envelope):\n    return _impl(raw)",
            "default argument",
        ),
        (
            "def parse(raw, *, _impl=course_lib.envelope.parse_envelope):\n    return _impl(raw)",
            "default argument",
        ),
        (
            "def make(impl):\n    def parse(raw):\n        return impl(raw)\n    return parse\n"
            "parse = make(course_lib.envelope.parse_envelope)",
            "closure",
        ),
        ("def parse(raw):\n    return __import__('course_lib').envelope.parse_envelope(raw)", "__import__"),
        ("def parse(raw):\n    return globals()['course_lib'].envelope.parse_envelope(raw)", "globals"),
        (
            "import functools\nhelper = functools.partial(course_lib.envelope.parse_envelope)\n"
            "def parse(raw):\n    return helper(raw)",
            "uses 'helper'",
        ),
        (
            "class Hidden:\n    run = staticmethod(course_lib.envelope.parse_envelope)\n"
            "def parse(raw):\n    return Hidden.run(raw)",
            "the class Hidden.run",
        ),
    ],
    ids=["default", "keyword-default", "closure", "dunder-import", "globals", "partial", "class-attribute"],
)
def test_a_hidden_route_to_the_reference_is_refused(source: str, match: str) -> None:
    with pytest.raises(AssertionError, match=match):
        assert_own_work(notebook_function(source, "parse"), course_lib.envelope)


def test_a_string_naming_the_library_is_refused() -> None:
    source = (
        "import importlib as il\n"
        "def parse(raw):\n    return il.import_module('course_lib.envelope').parse_envelope(raw)"
    )
    with pytest.raises(AssertionError, match="import_module|course_lib"):
        assert_own_work(notebook_function(source, "parse"), course_lib.envelope)


def test_the_report_is_plain_data_and_the_judge_reads_it_alone() -> None:
    wrapper = notebook_function(
        "def parse(raw):\n    return course_lib.envelope.parse_envelope(raw)", "parse"
    )
    report = json.loads(json.dumps(own_work_report(wrapper)))
    with pytest.raises(AssertionError, match="uses 'course_lib'"):
        judge_own_work(report, "course_lib.envelope")


def test_a_docstring_naming_the_library_is_fine() -> None:
    source = (
        'def parse(raw):\n    """Like course_lib.envelope.parse_envelope."""\n'
        '    return {"kind": "final", "text": str(raw)}'
    )
    assert_own_work(notebook_function(source, "parse"), course_lib.envelope)
