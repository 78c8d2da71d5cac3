"""The keys: for each assignment, the course_lib modules that are its reference implementation.

A key module is left out of the learners' edition until its assignment's key is published; every other
module is infrastructure (the stand-in, the wire formats, fixtures, errors, the own-work check), and an
infrastructure module that imports a key is left out with it (see `imports.closure`), so infrastructure
reaches a key only through what is declared here. A module holding the keys of two assignments would be
published only when both are; none does today (keys and infrastructure live in separate modules: `toolbox` and
`model_api` are infrastructure, `loops` is 03's key, `specs`, `streaming` and `chained` 04's, `tools` 05's).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

KEYS: Mapping[str, tuple[str, ...]] = {
    "01_envelope": ("course_lib.envelope",),
    "02_dispatcher": ("course_lib.stock",),
    "03_loop": ("course_lib.loops",),
    "04_wire": ("course_lib.specs", "course_lib.streaming", "course_lib.chained"),
    "05_failures": ("course_lib.tools",),
    "06_security": ("course_lib.arithmetic",),
    "07_capstone": (
        "course_lib.adapters",
        "course_lib.desk.policy",
        "course_lib.desk.budget",
        "course_lib.desk.audit",
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
