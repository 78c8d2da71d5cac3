"""Notebook 07, Parts A and B: enforcing the policy table (auto, confirm, never), and asking the approver.

The policy is enforced in the dispatcher, never in the prompt. It fails closed: a tool missing from the
table, or mapped to anything but "auto", "confirm" or "never", counts as "never", and a "never" tool is
not even offered. A `confirm` tool runs only when the approver answers exactly `True` to the exact
validated arguments; raising, timing out, or any other answer ("yes", 1, None) counts as no.
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Iterable, Sequence
from typing import Any

from course_lib.desk.policy_tables import Approver, Mode, Policy

__all__ = ["ask_approver", "effective_mode", "mode_for", "offered_tools"]


def mode_for(policy: Policy, name: str) -> Mode:
    """The mode of `name` under `policy`; a missing tool or an unknown mode fails closed to "never"."""
    mode = policy.get(name)
    return "auto" if mode == "auto" else "confirm" if mode == "confirm" else "never"


def effective_mode(policy: Policy, name: str, concerns: Sequence[str] = ()) -> Mode:
    """The mode a call runs under: the policy's, raised from "auto" to "confirm" when there is any concern."""
    mode = mode_for(policy, name)
    return "confirm" if mode == "auto" and concerns else mode


def offered_tools(policy: Policy, registered: Iterable[str]) -> list[str]:
    """The registered tools this policy offers to the model, sorted: every one not "never"."""
    return sorted(name for name in registered if mode_for(policy, name) != "never")


def ask_approver(
    approver: Approver | None, name: str, arguments: dict[str, Any], timeout: float
) -> tuple[bool, str]:
    """Ask about a copy of the arguments in a worker thread; return (yes?, why) where only True is yes."""
    if approver is None:
        return False, "no approver: nobody to say yes"
    answer: list[object] = []
    failure: list[str] = []

    def ask() -> None:
        try:
            answer.append(approver(name, copy.deepcopy(arguments)))
        except BaseException as error:  # the approver's own failure is a no, never our crash
            failure.append(type(error).__name__)

    worker = threading.Thread(target=ask, name="approver", daemon=True)
    worker.start()
    worker.join(max(timeout, 0.0))
    if worker.is_alive():
        return False, f"the approver did not answer within {timeout:g} s"
    if failure:
        return False, f"the approver raised {failure[0]}"
    if answer and answer[0] is True:
        return True, "the approver said yes"
    return False, f"the approver answered {_short(answer[0] if answer else None)}, not True"


def _short(value: object) -> str:
    """A short, safe repr of an approver's answer."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
