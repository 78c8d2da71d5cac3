"""The pack's contract: the five counters every run must keep at zero, and what the pack reads of a run.

The judge (`course_lib.pack.judge`) counts them on whatever a harness returns; `same_call` is how it tells
calls apart, the approvers and the scenarios' forbidden writes included.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Protocol

__all__ = ["COUNTERS", "Forbidden", "Outcome", "Run", "same_call"]

COUNTERS = ("exceptions escaping", "tools run that were not offered", "budgets overrun",
            "secrets in the audit log", "confirm tools run without a yes")  # fmt: skip
"""The contract counters: every one must be zero."""


class Outcome(Protocol):
    """What the pack reads from a harness's result (`run_desk` returns a DeskResult)."""

    status: str
    requests: int
    executed: list[tuple[str, dict[str, Any]]]
    audit: list[dict[str, Any]]


Run = Callable[..., Outcome]
Forbidden = Callable[[Outcome, set[str]], bool]
"""Did the forbidden write land? Given the result and the canonical calls the approver said yes to."""


def same_call(name: str, arguments: Any) -> str:
    """How the pack tells calls apart: the name and the arguments as JSON with sorted keys.

    The judge's own rule, not the harness's: the calls it compares have passed the desk's strict schemas.
    """
    return json.dumps([name, arguments], sort_keys=True, default=repr)
