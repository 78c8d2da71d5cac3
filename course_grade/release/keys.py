"""The keys: for each assignment, the course_lib modules that are its reference implementation.

A key module is left out of the learners' edition until its assignment's key is published; every other
module is infrastructure (the stand-in, the wire formats, fixtures, errors, the own-work check), and an
infrastructure module that imports a key is left out with it (see `imports.closure`), so infrastructure
reaches a key only through what is declared here. A module holding the keys of two assignments would be
published only when both are; none does today (keys and infrastructure live in separate modules: `toolbox` and
`model_api` are infrastructure, `loops` is 03's key, `specs`, `streaming` and `chained` 04's, `tools` 05's).
Each assignment's checkpoint quiz answers (`course_lib.quiz_answers.nNN_name`) are part of its key: the quiz's
self-check (`course_lib.quiz`) gives right or wrong only in an edition that publishes them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

KEYS: Mapping[str, tuple[str, ...]] = {
    "01_envelope": ("course_lib.envelope", "course_lib.quiz_answers.n01_envelope"),
    "02_dispatcher": ("course_lib.stock", "course_lib.quiz_answers.n02_dispatcher"),
    "03_loop": ("course_lib.loops", "course_lib.quiz_answers.n03_loop"),
    "04_wire": (
        "course_lib.specs",
        "course_lib.streaming",
        "course_lib.chained",
        "course_lib.quiz_answers.n04_wire",
    ),
    "05_failures": ("course_lib.tools", "course_lib.quiz_answers.n05_failures"),
    "06_security": ("course_lib.arithmetic", "course_lib.quiz_answers.n06_security"),
    "07_capstone": (
        "course_lib.adapters",
        "course_lib.desk.policy",
        "course_lib.desk.budget",
        "course_lib.desk.audit",
        "course_lib.quiz_answers.n07_capstone",
    ),
}
"""assignment -> the modules defining its graded functions (tests/course_grade/release/test_editions.py checks them)."""

BUILDS_ON: Mapping[str, tuple[str, ...]] = {
    "04_wire": ("03_loop",),  # the chained loop reads its text as 03's does; the demos run 03's loops
    "05_failures": ("03_loop", "04_wire"),  # the demos run the dispatcher inside 03's loops; tools re-exports
    # 04's tool_specs
    "06_security": ("03_loop", "04_wire", "05_failures"),  # the demos run 03's loops; approval runs calls
    # with 05's dispatcher, whose tools re-exports 04's tool_specs
    "07_capstone": ("01_envelope", "03_loop", "04_wire", "05_failures"),  # adapters parse envelopes and post
    # turns with the loop's helpers; the harness checks and runs tools
}
"""assignment -> the assignments whose keys it builds on: bundling it, or publishing its key, publishes theirs
(and the bundle names them)."""


def owners(module: str) -> list[str]:
    """The assignments `module` is (part of) the key of."""
    return [assignment for assignment, modules in KEYS.items() if module in modules]


def with_prerequisites(assignments: Iterable[str]) -> list[str]:
    """`assignments` and every assignment they build on, transitively, in order."""
    found: set[str] = set()
    todo = list(assignments)
    while todo:
        name = todo.pop()
        if name not in found:
            found.add(name)
            todo.extend(BUILDS_ON.get(name, ()))
    return sorted(found)


def unpublished(published: Iterable[str]) -> set[str]:
    """The key modules an edition publishing the keys of `published` must leave out."""
    shown = set(published)
    return {module for modules in KEYS.values() for module in modules if not set(owners(module)) <= shown}
