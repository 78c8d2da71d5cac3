"""Notebook 07: one run of the support desk: how it can end, what it returns, and its defaults.

A harness with `run_desk`'s signature (the reference in `course_lib.desk.harness`, or the one notebook 07
assembles from a learner's pieces) returns a `DeskResult`: its status (one of `STATUSES`), the model
requests it sent, the calls that really ran, and one audit entry per proposed call.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from course_lib.scripted import Step
from course_lib.wire.common import Conversation

__all__ = ["DEFAULT_USER_TEXT", "MAX_CALLS_PER_TURN", "STATUSES", "DeskResult", "Script", "Status"]

Status = Literal["answered", "step_budget", "time_budget", "repeated_call", "model_error"]
STATUSES = ("answered", "step_budget", "time_budget", "repeated_call", "model_error")

MAX_CALLS_PER_TURN = 8
"""Calls after the eighth in one model turn are answered as skipped."""

DEFAULT_USER_TEXT = "Hi, is my order A-1003 on its way?"

Script = Iterable[Step] | Callable[[Conversation], Step]
"""A stand-in script (a list of steps) or a function model of the conversation."""


@dataclass
class DeskResult:
    """How one run ended, what it cost, what ran, and the audit log."""

    status: str = ""
    """One of STATUSES."""
    requests: int = 0
    """Model requests sent."""
    executed: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    """(tool name, arguments) of every call that actually ran, in order."""
    audit: list[dict[str, Any]] = field(default_factory=list)
    """One cleaned entry per proposed call."""
    text: str = ""
    """The model's final answer (empty unless the status is "answered")."""
    reason: str = ""
    """Why the run ended, in a sentence."""
