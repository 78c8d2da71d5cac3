"""Notebook 06: a human confirms each destructive tool call, and a headless run never waits for one.

A Jupyter kernel handles a widget click only between cells, so a `confirm` that waited for a click
would wait forever. `ApprovalQueue` works in two phases instead. While the loop runs, its `confirm`
records each proposed destructive call (its name and exact validated arguments) and answers no, so
`run_tool_call` tells the model the action was NOT performed. Afterwards `review()` asks about each
recorded call: an Approve/Deny dialog when a person can click, otherwise an approver function.
Approve runs exactly the recorded call, with a one-shot confirm that matches only those arguments.

Who decides (`is_interactive`, from `course_lib.frontend`): never a person while nbgrader executes
(NBGRADER_EXECUTION is set); else COURSE_INTERACTIVE=1 or =0, if set; else a person only in an IPython kernel
that Jupyter Server started for a notebook (it sets JPY_SESSION_NAME) with ipywidgets installed. nbclient,
nbval and nbgrader start kernels without JPY_SESSION_NAME, so they always run headless.
"""

from __future__ import annotations

import copy
import html
import importlib
import importlib.util
import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from course_lib.frontend import is_interactive
from course_lib.tools import Toolbox, run_tool_call

__all__ = [
    "DENIED",
    "ApprovalQueue",
    "Approver",
    "ProposedCall",
    "Verdict",
    "ask",
    "confirm_exactly",
    "is_interactive",
    "scripted_approver",
]

Approver = Callable[[str, dict[str, Any]], object]
"""Decides one call from its name and arguments; only a returned `True` means yes."""

DENIED = "a human denied this action; it was NOT performed"
"""The error a denied call ends with."""


def ask(approver: Approver, name: str, arguments: Mapping[str, Any]) -> bool:
    """Ask `approver` about a copy of the arguments: only an explicit True is yes; raising is no."""
    try:
        return approver(name, copy.deepcopy(dict(arguments))) is True
    except Exception:
        return False


def scripted_approver(verdicts: Iterable[object]) -> Approver:
    """An approver that gives the verdicts in order, one per call, then says no once they run out."""
    remaining = list(verdicts)

    def approver(name: str, arguments: dict[str, Any]) -> object:
        return remaining.pop(0) if remaining else False

    return approver


def _canonical(arguments: object) -> str | None:
    """One JSON text per value, keys sorted; 1, 1.0 and true all differ. None if it is not JSON."""
    try:
        return json.dumps(arguments, sort_keys=True, allow_nan=False)
    except (TypeError, ValueError):
        return None


def confirm_exactly(name: str, arguments: Mapping[str, Any]) -> Callable[[str, dict[str, Any]], bool]:
    """A one-shot confirm: yes once, to this name with exactly these arguments; no to anything else."""
    wanted, used = _canonical(dict(arguments)), False

    def confirm(asked_name: str, asked_arguments: dict[str, Any]) -> bool:
        nonlocal used
        if used or wanted is None or asked_name != name or _canonical(asked_arguments) != wanted:
            return False
        used = True
        return True

    return confirm


@dataclass(frozen=True)
class ProposedCall:
    """A destructive call the model proposed, frozen as it was checked: nobody can edit it before approval."""

    number: int
    """Its place in the queue, from 1."""
    name: str
    arguments_json: str
    """The validated arguments as canonical JSON text; approving runs exactly these."""

    @property
    def arguments(self) -> dict[str, Any]:
        """A fresh copy of the arguments."""
        arguments: dict[str, Any] = json.loads(self.arguments_json)
        return arguments

    def __str__(self) -> str:
        return f"#{self.number} {self.name}({self.arguments_json})"


@dataclass(frozen=True)
class Verdict:
    """What was decided about one proposed call, and the JSON string that resulted."""

    call: ProposedCall
    approved: bool
    result: str


@dataclass(eq=False)
class ApprovalQueue:
    """Destructive calls held for a person: `confirm` records them, `review` decides them later."""

    toolbox: Toolbox
    """The toolbox an approved call runs in."""
    proposed: list[ProposedCall] = field(default_factory=list)
    """Every call `confirm` recorded, in order."""
    verdicts: list[Verdict] = field(default_factory=list)
    """Every decision taken, in order."""

    def confirm(self, name: str, arguments: dict[str, Any]) -> bool:
        """Record the call for review and answer no at once; it never waits for anyone."""
        text = _canonical(arguments)
        if text is not None:  # run_tool_call only ever passes JSON; anything else is refused unrecorded
            self.proposed.append(ProposedCall(len(self.proposed) + 1, name, text))
        return False

    @property
    def pending(self) -> list[ProposedCall]:
        """The recorded calls nobody has decided yet."""
        decided = {verdict.call.number for verdict in self.verdicts}
        return [call for call in self.proposed if call.number not in decided]

    def _take(self, call: ProposedCall) -> None:
        """Refuse a call that is not pending in this queue (decided already, or made up elsewhere)."""
        if not any(call is waiting for waiting in self.pending):
            raise ValueError(f"{call} is not pending in this queue")

    def approve(self, call: ProposedCall) -> Verdict:
        """Run exactly the recorded call, once, through run_tool_call, and keep the verdict."""
        self._take(call)
        confirm = confirm_exactly(call.name, call.arguments)
        result = run_tool_call(self.toolbox, call.name, call.arguments_json, (call.name,), confirm)
        self.verdicts.append(Verdict(call, True, result))
        return self.verdicts[-1]

    def deny(self, call: ProposedCall) -> Verdict:
        """Record that the call was refused; nothing runs."""
        self._take(call)
        self.verdicts.append(Verdict(call, False, json.dumps({"error": DENIED})))
        return self.verdicts[-1]

    def decide(self, approver: Approver) -> list[Verdict]:
        """Let `approver` decide every pending call, without any output; return the new verdicts."""
        return [
            self.approve(call) if ask(approver, call.name, call.arguments) else self.deny(call)
            for call in self.pending
        ]

    def review(self, approver: Approver | None = None, *, interactive: bool | None = None) -> None:
        """Show an Approve/Deny dialog per pending call if a person can click; else let `approver` decide."""
        if interactive is None:
            interactive = is_interactive()
        if interactive:
            display: Any = importlib.import_module("IPython.display").display
            for call in self.pending:
                display(self.dialog(call))
            return
        decider = "a scripted approver" if approver is not None else "nobody (every call denied)"
        print(f"headless: {decider} decides {len(self.pending)} pending call(s)")
        for verdict in self.decide(approver if approver is not None else (lambda name, arguments: False)):
            print(f"  {verdict.call}: {'approved' if verdict.approved else 'denied'} -> {verdict.result}")

    def dialog(self, call: ProposedCall) -> Any:
        """An ipywidgets box showing the exact call, with Approve and Deny buttons and the outcome."""
        widgets: Any = importlib.import_module("ipywidgets")
        question = widgets.HTML(f"The model asks to run <code>{html.escape(str(call))}</code>")
        approve = widgets.Button(description="Approve", button_style="danger", icon="check")
        deny = widgets.Button(description="Deny", icon="times")
        outcome = widgets.Output()

        def decide(approved: bool) -> None:
            if not any(call is waiting for waiting in self.pending):  # a second click: already decided
                return
            approve.disabled = deny.disabled = True
            verdict = self.approve(call) if approved else self.deny(call)
            outcome.append_stdout(f"{'approved' if approved else 'denied'} -> {verdict.result}\n")

        approve.on_click(lambda _button: decide(True))
        deny.on_click(lambda _button: decide(False))
        return widgets.VBox([question, widgets.HBox([approve, deny]), outcome])
