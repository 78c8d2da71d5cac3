"""Notebook 07: the reference support-desk harness: one loop over the envelope, every call through one gate.

`run_desk` starts its own stand-in with the script, talks to it through the adapter for `api`, and
handles each proposed call in a fixed order, writing one audit entry per call:

1. the per-turn cap (calls beyond it are skipped, not run);
2. a BadCall (malformed name or arguments) is refused;
3. offered? (a tool the policy marks "never", or no tool at all, is refused as unknown);
4. the schema; then the same validated call proposed more than `max_repeats` times ends the run;
5. a secret in the arguments is refused (nothing leaves with CANARY or a key in it);
6. the wall-clock budget; then the policy: "confirm", or "auto" escalated to confirm for a write that
   carries tainted values or would pass the refund limit, asks the approver about the exact arguments;
7. run, and hand the model the result with secrets redacted.

A model's answer that arrives after the wall-clock budget ran out is not used: the run ends as
"time_budget". It never raises (except KeyboardInterrupt): whatever breaks ends the run as "model_error" with a reason.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any

from course_lib.adapters import ChatAdapter
from course_lib.clients import make_client
from course_lib.desk.audit import audit_entry, redact
from course_lib.desk.budget import Budget
from course_lib.desk.data import (
    AUTO_REFUND_LIMIT_CENTS,
    SIGNED_IN,
    WRITE_TOOLS,
    desk_toolbox,
    over_auto_limit,
)
from course_lib.desk.log_safety import find_secrets
from course_lib.desk.policy import ask_approver, effective_mode, mode_for, offered_tools
from course_lib.desk.policy_tables import APPROVER_TIMEOUT_SECONDS, DEFAULT_POLICY, Approver, Policy
from course_lib.desk.runs import DEFAULT_USER_TEXT, MAX_CALLS_PER_TURN, DeskResult, Script
from course_lib.desk.taint import Taint
from course_lib.errors import ModelHTTPError, ModelTurnError
from course_lib.standin import StandIn
from course_lib.tools import check_args, run_tool_call
from course_lib.turns import APIS, BadCall, Item, ModelClient, ToolResult, tools_field

__all__ = ["REFERENCE_PIECES", "declarations", "run_desk"]

NOT_DONE = "it was NOT performed"

REFERENCE_PIECES: Mapping[str, Any] = MappingProxyType(
    {
        "mode_for": mode_for,
        "offered_tools": offered_tools,
        "effective_mode": effective_mode,
        "ask_approver": ask_approver,
        "Budget": Budget,
        "redact": redact,
        "audit_entry": audit_entry,
        "ChatAdapter": ChatAdapter,
    }
)
"""The graded pieces `run_desk` is made of, by name: what notebook 07's hidden tests put beside a learner's
piece when they run the pack through the notebook's harness with that one piece swapped in."""


def declarations(api: str, policy: Policy | None = None) -> list[dict[str, Any]]:
    """The `tools` field `api` expects, for the tools `policy` (DEFAULT_POLICY if None) offers."""
    box = desk_toolbox()
    names = offered_tools(DEFAULT_POLICY if policy is None else policy, box.names)
    return tools_field(api, [box[name] for name in names])


def run_desk(
    script: Script,
    *,
    api: str,
    user_text: str = DEFAULT_USER_TEXT,
    policy: Policy | None = None,
    approver: Approver | None = None,
    max_steps: int = 8,
    max_seconds: float = 30.0,
    max_repeats: int = 3,
    approver_timeout: float = APPROVER_TIMEOUT_SECONDS,
    max_calls_per_turn: int = MAX_CALLS_PER_TURN,
    clock: Callable[[], float] = time.monotonic,
) -> DeskResult:
    """Run the support desk for one request against a scripted model over `api`; never raises.

    `clock` measures the wall-clock budget (a test or the pack passes a FakeClock: see `budget`).
    """
    result = DeskResult()
    try:
        budget = Budget(max_steps, max_seconds, max_repeats, clock)
        desk = _Desk(result, api, user_text, DEFAULT_POLICY if policy is None else policy, approver,
                     budget, approver_timeout, max_calls_per_turn)  # fmt: skip
        desk.run(script)
    except KeyboardInterrupt:
        raise
    except BaseException as error:  # the contract: nothing escapes, the reason is kept
        _stop(result, "model_error", f"the harness failed: {type(error).__name__}: {error}")
    if not result.status:
        _stop(result, "model_error", "the run ended without a status")
    return result


def _stop(result: DeskResult, status: str, reason: str) -> None:
    """End the run with `status`, unless it has already ended."""
    if not result.status:
        result.status, result.reason = status, redact(reason[:300])


class _Desk:
    """The state of one run: budgets, taint, the toolbox and what has been recorded."""

    def __init__(
        self,
        result: DeskResult,
        api: str,
        user_text: str,
        policy: Policy,
        approver: Approver | None,
        budget: Budget,
        approver_timeout: float,
        max_calls: int,
    ) -> None:
        self.result, self.api, self.user_text, self.policy = result, api, user_text, policy
        self.approver, self.budget, self.approver_timeout, self.max_calls = (
            approver,
            budget,
            approver_timeout,
            max_calls,
        )
        self.box = desk_toolbox(SIGNED_IN)
        self.offered = offered_tools(policy, self.box.names)
        self.taint = Taint(user_text)
        self.step = 0

    def run(self, script: Script) -> None:
        """Start a stand-in for the script and loop until an answer or a budget ends the run."""
        if self.api not in APIS:
            return _stop(self.result, "model_error", f"unknown api {self.api!r}")
        server = StandIn(model=script) if callable(script) else StandIn(script)
        with server:
            client = make_client(
                self.api, server, [self.box[name] for name in self.offered], chat=ChatAdapter
            )
            try:
                self._loop(client)
            finally:
                self.result.requests = client.requests
                client.close()

    def _loop(self, client: ModelClient) -> None:
        results: list[ToolResult] | None = None  # None: nothing asked yet, so the first request is sent
        while (turn := self._ask(client, results)) is not None:
            first = turn[0]
            if isinstance(first, dict) and first["kind"] == "final":
                self.result.text = first["text"]
                return _stop(self.result, "answered", "the model answered")
            results = self._handle_turn(turn)
            if self.result.status:
                return

    def _ask(self, client: ModelClient, results: list[ToolResult] | None) -> list[Item] | None:
        """Send one model request within the budgets; None when the run ends instead."""
        if stop := self.budget.next_request():
            _stop(self.result, stop, f"no model request left: {stop.replace('_', ' ')} spent")
            return None
        self.step += 1
        timeout = self.budget.remaining()
        try:
            if results is None:
                turn = client.start(self.user_text, timeout=timeout)
            else:
                turn = client.reply(results, timeout=timeout)
        except (ModelHTTPError, ModelTurnError) as error:
            late = self.budget.remaining() < 0.1  # a request cut off by the wall-clock budget
            _stop(self.result, "time_budget" if late else "model_error", str(error))
            return None
        if self.budget.out_of_time():  # an answer that came after the budget ran out is not used
            _stop(self.result, "time_budget", "the model answered after the wall-clock budget ran out")
            return None
        return turn

    def _handle_turn(self, turn: list[Item]) -> list[ToolResult]:
        if self.budget.steps_left() == 0:  # nobody would read the results: run nothing
            for item in turn:
                self._record(
                    item, None, "skipped", "step budget spent: no request left to report the result", ""
                )
            _stop(
                self.result, "step_budget", f"still asking for tools after {self.budget.max_steps} requests"
            )
            return []
        return [self._handle_call(index, item) for index, item in enumerate(turn)]

    def _handle_call(self, index: int, item: Item) -> ToolResult:
        """The gate of the module docstring, for one call; returns the answer the model gets."""
        if self.result.status:
            return self._refuse(item, None, "skipped", "the run had already stopped", "the run stopped")
        if index >= self.max_calls:
            why = f"more than {self.max_calls} calls in one turn"
            return self._refuse(item, None, "skipped", why, f"skipped: {why}")
        if isinstance(item, BadCall):
            return self._refuse(item, None, "refused", item.problem, f"malformed call: {item.problem}")
        name, arguments = item["name"], item["arguments"]
        if name not in self.offered:
            message = json.dumps({"error": f"unknown tool {name!r}", "available_tools": self.offered})
            return self._answer(item, None, "refused", "not offered", message, error=True)
        if problems := check_args(arguments, self.box[name].parameters):
            message = json.dumps({"error": "invalid arguments", "problems": problems})
            return self._answer(
                item, None, "refused", "arguments do not match the schema", message, error=True
            )
        if self.budget.repeat(name, arguments):
            _stop(
                self.result,
                "repeated_call",
                f"{name} proposed with the same arguments more than {self.budget.max_repeats} times",
            )
            return self._refuse(item, arguments, "skipped", "identical call repeated", "the same call again")
        if find_secrets(json.dumps(arguments)):
            return self._refuse(
                item, arguments, "refused", "the arguments carry a secret", "the arguments carry a secret"
            )
        if self.budget.out_of_time():
            _stop(self.result, "time_budget", "the wall-clock budget ran out between tool calls")
            return self._refuse(item, arguments, "skipped", "wall-clock budget spent", "out of time")
        return self._decide_and_run(item, name, arguments)

    def _decide_and_run(self, item: Item, name: str, arguments: dict[str, Any]) -> ToolResult:
        concerns = self._concerns(name, arguments)
        mode = effective_mode(self.policy, name, concerns)
        why = [f"policy: {mode_for(self.policy, name)}", *concerns]
        decision = "auto"
        if mode not in ("auto", "confirm"):  # fail closed: only auto and confirm ever run
            return self._refuse(item, arguments, "refused", "; ".join(why), "this tool is not available")
        if mode == "confirm":
            timeout = min(self.approver_timeout, self.budget.remaining())
            yes, answer = ask_approver(self.approver, name, arguments, timeout)
            why.append(answer)
            if not yes:
                return self._refuse(
                    item, arguments, "denied", "; ".join(why), "a human did not approve this action"
                )
            decision = "approved"
        raw = run_tool_call(self.box, name, json.dumps(arguments), [name])
        ran, outcome = _is_result(raw), redact(raw)
        if ran:
            self.result.executed.append((name, json.loads(json.dumps(arguments))))
            self.taint.observe(outcome)
        return self._answer(item, arguments, decision, "; ".join(why), outcome, error=not ran)

    def _concerns(self, name: str, arguments: dict[str, Any]) -> list[str]:
        """Why a write should ask a human even under auto: tool output steers it, or it passes the limit."""
        if name not in WRITE_TOOLS:
            return []
        concerns = []
        if tainted := self.taint.tainted(arguments):
            concerns.append(f"tainted by tool output: {', '.join(tainted)}"[:160])
        if over_auto_limit(self.box, name, arguments):
            concerns.append(f"refunds would pass the auto limit of {AUTO_REFUND_LIMIT_CENTS} cents")
        return concerns

    def _refuse(self, item: Item, arguments: object, decision: str, reason: str, error: str) -> ToolResult:
        """Answer a call that did not run with an error the model can read."""
        message = json.dumps({"error": f"{error}; {NOT_DONE}"})
        return self._answer(item, arguments, decision, reason, message, error=True)

    def _answer(
        self, item: Item, arguments: object, decision: str, reason: str, outcome: str, *, error: bool
    ) -> ToolResult:
        self._record(item, arguments, decision, reason, outcome)
        call_id = item.id if isinstance(item, BadCall) else item["id"]
        return ToolResult(call_id, outcome, error)

    def _record(self, item: Item, arguments: object, decision: str, reason: str, outcome: str) -> None:
        call_id, name = (item.id, item.name) if isinstance(item, BadCall) else (item["id"], item["name"])
        self.result.audit.append(audit_entry(self.step, call_id, name, arguments, decision, reason, outcome))


def _is_result(outcome: str) -> bool:
    """True if a tool's answer is {"result": ...}, i.e. the tool ran to the end."""
    try:
        parsed = json.loads(outcome)
    except ValueError:
        return False
    return isinstance(parsed, dict) and "result" in parsed
