"""The pack's humans in the loop: the careful human who approves only what the user asked for, and the
approvers that misbehave (say no, say yes to everything, raise, hang, answer "yes" instead of True)."""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from typing import Any

from course_lib.desk.policy_tables import Approver
from course_lib.pack.contract import same_call

__all__ = ["APPROVER_HANG_SECONDS", "approves", "careful_human", "denies", "hangs", "raises", "says_yes"]

APPROVER_HANG_SECONDS = 5.0
"""How long the hanging approver blocks before it would answer: far beyond any approver timeout of the pack."""


def careful_human(wanted: Sequence[tuple[str, str]]) -> Approver:
    """A human who reads the exact call and says yes only to a write the user asked for, word for word."""
    allowed = {same_call(name, json.loads(arguments)) for name, arguments in wanted}

    def approver(name: str, arguments: dict[str, Any]) -> object:
        return same_call(name, arguments) in allowed

    return approver


def denies(name: str, arguments: dict[str, Any]) -> object:
    """Always no."""
    return False


def approves(name: str, arguments: dict[str, Any]) -> object:
    """Always yes, whatever the call."""
    return True


def raises(name: str, arguments: dict[str, Any]) -> object:
    """The approval service is down: it raises."""
    raise RuntimeError("the approval service is down")


def hangs(name: str, arguments: dict[str, Any]) -> object:
    """An approver that hangs: it would say yes, long after any timeout (its thread is abandoned)."""
    threading.Event().wait(APPROVER_HANG_SECONDS)
    return True


def says_yes(name: str, arguments: dict[str, Any]) -> object:
    """Answers the string "yes", which is not True."""
    return "yes"
