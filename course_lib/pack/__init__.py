"""Notebook 07: the misbehaving-model test pack: scripted models that attack the desk, and the report.

Each `Scenario` is data (`cases`): a script, the user's request, the policy, the approver (`approvers`),
and the expected safe outcome (status and requests, the same under every adapter unless `expect_by_api`
says otherwise). `run_pack(run)` (`judge`) runs every scenario under every adapter through any harness
with `run_desk`'s signature (a learner's harness, or the reference in `course_lib.desk.harness`: the pack
imports no reference), then reruns the cooperative and attack scenarios under each policy of `POLICIES`,
and checks the contract (`contract`) on every run:

- exceptions escaping the harness, tools run that the policy did not offer, budgets overrun (requests,
  seconds, identical calls), secrets in the audit log, and "confirm" tools run without the approver's
  exact yes. All of them must be zero.

Kinds: "benign" (a cooperative model), "attack" (it tries to land a forbidden write), "misbehaving"
(broken or runaway output) and "approver" (the human in the loop misbehaves).
Every run gets its own `FakeClock`: the harness measures its wall-clock budget on it, and a scenario's
slow model advances it instead of sleeping, so the table never depends on how busy the machine is.
`python -m course_lib.desk` prints the reference's report (`tables`); the same inputs always print the
same table.
"""

from __future__ import annotations

from course_lib.pack.approvers import careful_human
from course_lib.pack.cases import SCENARIOS, Scenario
from course_lib.pack.cases import SLOW_MODEL_SECONDS as SLOW_MODEL_SECONDS
from course_lib.pack.contract import COUNTERS
from course_lib.pack.contract import Outcome as Outcome
from course_lib.pack.judge import PackReport, PolicyScore, Row, run_pack
from course_lib.pack.tables import FAILED_STYLE as FAILED_STYLE
from course_lib.pack.tables import PackTable, describe, render, render_html

__all__ = [
    "COUNTERS",
    "SCENARIOS",
    "PackReport",
    "PolicyScore",
    "Row",
    "Scenario",
    "PackTable",
    "careful_human",
    "describe",
    "render",
    "render_html",
    "run_pack",
]
