"""The judge: a learner's answer against the reference of its part, on the same generated examples.

`judge(part, family, answer)` draws the family's examples (a fixed seed and budget: the same on every run and
machine; drawn once per process, and the reference observed on them once), observes the answer on a fresh copy
of each, and when the two differ asks hypothesis to shrink the input to a smallest one that still tells them
apart. It raises
`Disagreement` (an AssertionError): the sentence of the family for the learner, the shrunk input and both
observations for the instructor.
"""

from __future__ import annotations

import copy
import re
import time
import warnings
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from course_grade.score.oracle import contract
from course_grade.score.oracle.contract import Family, Part
from course_grade.score.oracle.registry import find_part

SHRINK_SECONDS = 20.0
"""How long shrinking a disagreement may take before the first input found is reported as it is (0: the first
input found is reported unshrunk, as `course.py differential --answers` and the tests that only count do)."""


DIFFERS = "differs from the reference"
"""How a `Disagreement`'s message begins (the trusted checks tell a differential failure by it)."""


class Disagreement(AssertionError):
    """The answer and the reference observed differently on one generated input (the learner's mistake)."""

    def __init__(self, part: str, family: str, sentence: str, example: Any, want: Any, got: Any) -> None:
        self.part, self.family, self.sentence, self.example, self.want, self.got = (
            part, family, sentence, example, want, got
        )  # fmt: skip
        super().__init__(
            f"{DIFFERS} ({part}, family {family!r}: {sentence}) on {_short(example)}: "
            f"the reference gives {_short(want)}, this answer {_short(got)}"
        )


class OracleError(LookupError):
    """A hidden test named a part or family the registry does not hold (the author's mistake)."""


def _short(value: Any, limit: int = 400) -> str:
    try:
        text = repr(value)
    except Exception as error:  # a huge int, a broken __repr__
        text = f"<{type(value).__name__}: {type(error).__name__}>"
    return text if len(text) <= limit else text[: limit - 3] + "..."


_drawn: dict[tuple[str, str, int], list[Any]] = {}


REMOTE_EXAMPLES = 12
"""How many examples a family draws for the trusted checks, where every call of the answer crosses the pipe to
the learner's process (about 1.5 ms a call) and each grading worker draws each family once: the first
`min(REMOTE_EXAMPLES, family.examples)` of a draw of that size. The forked shells and mutation runs draw the
family's whole budget."""


def examples(part: Part, key: str, budget: int | None = None) -> list[Any]:
    """The family's examples, drawn once per process with a fixed seed and budget (hypothesis, derandomized):
    `family.examples` of them, or `budget` when it is smaller."""
    family = part.families[key]
    size = family.examples if budget is None else min(budget, family.examples)
    memo = (f"{part.assignment}.{part.name}", key, size)
    if memo not in _drawn:
        from hypothesis import HealthCheck, Phase, Verbosity, given, settings  # noqa: PLC0415

        drawn: list[Any] = []

        @settings(
            max_examples=size, derandomize=True, database=None, deadline=None,
            suppress_health_check=list(HealthCheck), phases=[Phase.generate], verbosity=Verbosity.quiet,
        )  # fmt: skip
        @given(family.inputs)
        def draw(example: Any) -> None:
            drawn.append(example)

        with warnings.catch_warnings(), only_global_constants():
            warnings.simplefilter("ignore")  # hypothesis's notes (a large repr, say) must not reach stderr
            draw()
        _drawn[memo] = drawn
    return _drawn[memo]


@contextmanager
def only_global_constants() -> Iterator[None]:
    """Draw without the constants hypothesis finds in the local modules the process has imported (it mixes
    them into its draws since 6.131): a draw would depend on what the process ran before it (a grading worker's
    earlier notebooks, the test suite's earlier tests) and on where the course is installed. Hypothesis's own
    constants stay. Without that private hook (another hypothesis), nothing is changed."""
    try:
        from hypothesis.internal.conjecture import providers  # noqa: PLC0415
        from hypothesis.internal.constants_ast import Constants  # noqa: PLC0415
    except ImportError:
        yield
        return
    found = getattr(providers, "_get_local_constants", None)
    cache = getattr(providers, "CONSTANTS_CACHE", None)
    if found is None or cache is None:
        yield
        return
    none = Constants()
    providers._get_local_constants = lambda: none
    cache.cache.clear()  # the allowed constants, cached with the local ones mixed in
    try:
        yield
    finally:
        providers._get_local_constants = found
        cache.cache.clear()


CALL = re.compile(r"""against_reference\(\s*["']([\w.]+)["']\s*,\s*["'](\w+)["']""")
"""A differential hidden test's call, as `grading/oracle_cells.py` writes it."""


def prepare(sources: Iterable[str], *, remote: bool = False, budget: int | None = None) -> int:
    """Draw the examples of every family the cells `sources` call (so that a forked child or a cell with a
    deadline finds them drawn; `remote`: those the trusted checks run, at their budget; `budget`: at most that
    many a family); return how many families that is."""
    count = 0
    for source in sources:
        for part_id, key in CALL.findall(source):
            part = find_part(part_id)
            if part is None or key not in part.families or (remote and part.families[key].local):
                continue
            reference_observations(part, key, REMOTE_EXAMPLES if remote else budget)
            count += 1
    return count


_observed: dict[tuple[str, str, int | None], list[Any]] = {}


def reference_observations(part: Part, key: str, budget: int | None = None) -> list[Any]:
    """What the reference gives on each of the family's examples, observed once per process (it is a pure
    function of the example: the same reference, the same observation)."""
    memo = (f"{part.assignment}.{part.name}", key, budget)
    if memo not in _observed:
        reference, observe = part.reference(), part.families[key].observe or part.observe
        _observed[memo] = [observe(reference, _fresh(example)) for example in examples(part, key, budget)]
    return _observed[memo]


def _fresh(example: Any) -> Any:
    try:
        return copy.deepcopy(example)
    except Exception:  # an example that cannot be copied is observed as it is
        return example


@contextmanager
def aborting(*kinds: type[BaseException]) -> Iterator[None]:
    """Let these exceptions (the learner's process lost, say) end the judging instead of being observed."""
    before = contract.ABORTING
    contract.ABORTING = before + kinds
    try:
        yield
    finally:
        contract.ABORTING = before


def judge(part_id: str, key: str, answer: Any, *, remote: bool = False, budget: int | None = None) -> None:
    """Raise `Disagreement` when `answer` and the reference of `part_id` observe differently on `key`'s inputs
    (`remote`: the answer is a proxy across the trusted checks' pipe, so a `local` family is skipped and
    `REMOTE_EXAMPLES` are drawn; `budget`: at most that many examples a family)."""
    part = find_part(part_id)
    if part is None:
        raise OracleError(f"no differential part {part_id!r} in course_grade.score.oracle")
    family = part.families.get(key)
    if family is None:
        raise OracleError(f"{part_id} has no family {key!r} (it has {sorted(part.families)})")
    if remote and family.local:
        return
    reference, observe = part.reference(), family.observe or part.observe

    def observed(who: Any, example: Any) -> Any:
        return observe(who, _fresh(example))

    budget = REMOTE_EXAMPLES if remote else budget
    for example, want in zip(
        examples(part, key, budget), reference_observations(part, key, budget), strict=True
    ):
        got = observed(answer, example)
        if want != got:
            example = _shrunk(family, lambda e: observed(reference, e) != observed(answer, e), example)
            raise Disagreement(
                part_id,
                key,
                family.sentence,
                example,
                observed(reference, example),
                observed(answer, example),
            )


def _shrunk(family: Family, differs: Callable[[Any], bool], found: Any) -> Any:
    """A smallest input hypothesis finds on which the two still differ, or `found` when it finds none in time."""
    from hypothesis import HealthCheck, Phase, Verbosity, find, settings  # noqa: PLC0415
    from hypothesis.errors import NoSuchExample  # noqa: PLC0415

    deadline = time.monotonic() + SHRINK_SECONDS

    def condition(example: Any) -> bool:
        return time.monotonic() < deadline and differs(example)

    if SHRINK_SECONDS <= 0:
        return found
    try:
        with warnings.catch_warnings(), only_global_constants():
            warnings.simplefilter("ignore")
            return find(
                family.inputs, condition,
                settings=settings(
                    max_examples=family.examples, derandomize=True, database=None, deadline=None,
                    suppress_health_check=list(HealthCheck), phases=[Phase.generate, Phase.shrink],
                    verbosity=Verbosity.quiet,
                ),
            )  # fmt: skip
    except NoSuchExample:
        return found


def remote_judge(part_id: str, key: str, answer: Any) -> None:
    """`judge` for the trusted checks, where the answer is a proxy to the learner's process."""
    judge(part_id, key, answer, remote=True)


def sampling_judge(part_id: str, key: str, answer: Any) -> None:
    """`judge` at the trusted checks' budget, every family included: the test suite's forked shells, which run
    hundreds of notebooks (each family's whole budget is judged in process by tests/notebooks/test_oracle_NN.py
    and by `course.py mutants`)."""
    judge(part_id, key, answer, budget=REMOTE_EXAMPLES)
