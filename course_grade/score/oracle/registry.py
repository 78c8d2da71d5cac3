"""Which parts have a differential hidden test: one module of parts per notebook (`nNN_*.py`)."""

from __future__ import annotations

import dataclasses
import importlib

from course_grade.score.oracle.contract import Part

MODULES: dict[str, str] = {
    "01_envelope": "n01_envelope",
    "05_failures": "n05_failures",
    "07_capstone": "n07_capstone",
    "02_dispatcher": "n02_dispatcher",
    "06_security": "n06_security",
    "04_wire": "n04_wire",
    "03_loop": "n03_loop",
}
"""assignment -> its module of parts in this package."""


UNJUDGED: dict[str, str] = {
    "02_dispatcher.parse_request": "a helper Part A's cell suggests, not a name the prose grades: its rules are "
    "judged through dispatch and dispatch_with",
}
"""`assignment.name` -> why that graded function or class has no differential test (tests/course_grade/score/
test_oracle.py fails on any other graded name without one)."""


_PATCHES = (
    "it swaps a global of the answer's own namespace (post_json, redact) for a recorder, "
    "which the trusted checks' pipe cannot reach"
)
_CALLBACKS = "its handlers and tables record what they receive and return by identity, which the pipe copies"
_IDENTITY = (
    "it compares the identity of objects or what the answer's callbacks do to their own arguments, "
    "which the pipe copies"
)
_STACK = "it measures the call stack's depth, which is the learner's process's own across the pipe"

LOCAL: dict[str, dict[str, str]] = {
    "03_loop.chat_tool_loop": {
        key: _PATCHES
        for key in (
            "start",
            "body",
            "tool_choice",
            "replay",
            "final",
            "run",
            "tool_message",
            "trace",
            "max_steps",
            "last_turn",
        )
    },  # fmt: skip
    "03_loop.responses_tool_loop": {
        key: _PATCHES for key in ("body", "tool_choice", "replay", "run", "outputs", "final", "max_steps")
    },
    "02_dispatcher.dispatch_with": {
        key: _CALLBACKS
        for key in (
            "only_tools",
            "arguments",
            "text",
            "numbers",
            "returns",
            "handler_raises",
            "value_error",
            "tools_unchanged",
        )
    },  # fmt: skip
    "04_wire.tool_specs": {
        key: _IDENTITY
        for key in (
            "order",
            "once",
            "chat",
            "responses",
            "strict",
            "key_order",
            "deep_copy",
            "api",
            "unknown_name",
        )
    },
    "04_wire.chained_responses_loop": {
        key: _PATCHES
        for key in ("body", "first", "previous", "outputs", "new_items", "run", "final", "max_steps")
    },
    "06_security.safe_arithmetic": {"nested": _STACK},
    "07_capstone.offered_tools": {
        key: _IDENTITY for key in ("offered", "sorted", "registered_only", "unchanged")
    },
    "07_capstone.ask_approver": {
        key: _IDENTITY for key in ("pair", "copy", "none", "raises", "only_true", "thread", "timeout")
    },
    "07_capstone.Budget": {"init": _IDENTITY},
    "07_capstone.audit_entry": {
        key: _PATCHES for key in ("fields", "strings", "containers", "clip", "others", "unchanged")
    },
    "07_capstone.ChatAdapter": {
        key: _PATCHES
        for key in (
            "requests",
            "tools",
            "model",
            "start",
            "reply",
            "http",
            "malformed",
            "length",
            "kept",
            "calls",
            "final",
        )
    },  # fmt: skip
}
"""`assignment.part` -> family -> why that family runs only where the answer runs in the judging process (the
forked shells, the mutation runs) and is skipped by the trusted checks, whose answer is a proxy to the
learner's process. Each was found by running the instructor's solution through the trusted checks
(tests/course_grade/score/test_trusted_notebooks.py keeps them honest: a solution must pass every family the
trusted checks run). Making them observable across the pipe (a stand-in behind the relay instead of a patched
`post_json`, observations by value instead of identity) is the next step."""


def parts(assignment: str) -> dict[str, Part]:
    """The assignment's parts with a differential test, by graded name (none for an assignment without a module)."""
    module = MODULES.get(assignment)
    if module is None:
        return {}
    found: dict[str, Part] = importlib.import_module(f"course_grade.score.oracle.{module}").PARTS
    for name, part in found.items():
        for key, why in LOCAL.get(f"{assignment}.{name}", {}).items():
            family = part.families[key]
            if family.local != why:
                part.families[key] = dataclasses.replace(family, local=why)  # type: ignore[index]
    return found


def find_part(part_id: str) -> Part | None:
    """The part `assignment.name`, or None."""
    assignment, _, name = part_id.partition(".")
    return parts(assignment).get(name)
