"""The reference as oracle: the one call a hidden test makes, answered only where a grader installed a judge.

A hidden test cell ends with lines such as

    # rule: require `kind`, present and exactly the string "final" or "call"
    against_reference("parse_envelope", "kind", parse_envelope)

In a learner's kernel nothing is installed and the call does nothing: the reference never enters that kernel.
Where the grader judges (`course_grade.score.oracle`: the trusted checks, the test suite's forked shells, the
mutation runs), the installed judge runs the learner's answer and the reference on the same generated inputs
of that family and raises an `AssertionError` naming the family's sentence when they disagree.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

Judge = Callable[[str, str, Any], None]
"""(part, family, answer) -> None, raising AssertionError when the answer and the reference disagree."""

_judges: list[Judge] = []


def against_reference(part: str, family: str, answer: Any) -> None:
    """Judge `answer` against the reference of `part` on `family`'s inputs; nothing where no judge is installed."""
    if _judges:
        _judges[-1](part, family, answer)


@contextlib.contextmanager
def judging(judge: Judge) -> Iterator[None]:
    """Install `judge` for the calls made inside the block (blocks nest; the innermost judge answers)."""
    _judges.append(judge)
    try:
        yield
    finally:
        _judges.remove(judge)


def install(judge: Judge) -> None:
    """Install `judge` for the rest of this process (a forked shell's server, a mutation run)."""
    _judges.append(judge)
