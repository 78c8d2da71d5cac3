"""Notebook 07: what the pack said of the reference desk, recorded and published with the fixtures.

`python -m course_lib.desk --record` runs the pack on the reference harness (`course_lib.desk.harness`)
and writes `course_lib/fixtures/desk_pack_reference.json`: every row of the report, the per-policy scores,
and one whole run (`DEMO_SCENARIO` over chat) with its audit log. tests/course_lib/test_pack.py checks that the file
still says what the reference does. A learners' edition holds this record and not the reference: notebook
07 shows the reference's table from it and compares a learner's desk with it, run for run.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from course_lib.desk.runs import DeskResult
from course_lib.fixtures import load_fixture
from course_lib.pack import SCENARIOS, Outcome, PackReport, PolicyScore, Row

__all__ = ["DEMO_SCENARIO", "FIXTURE", "record", "reference_report", "reference_run"]

FIXTURE = "desk_pack_reference"
"""The fixture's name (`load_fixture(FIXTURE)`)."""

DEMO_SCENARIO = "refund"
"""The scenario whose whole run over chat, audit log included, the record keeps."""


def record(report: PackReport, demo: Outcome) -> dict[str, Any]:
    """The fixture's content: the report's rows and scores, and the demo run, as JSON data."""
    rows = [
        {
            **{key: value for key, value in vars(row).items() if key != "scenario"},
            "scenario": row.scenario.name,
        }
        for row in report.rows
    ]
    run = {
        "scenario": DEMO_SCENARIO,
        "status": demo.status,
        "requests": demo.requests,
        "executed": [[name, arguments] for name, arguments in demo.executed],
        "audit": demo.audit,
        "text": getattr(demo, "text", ""),
        "reason": getattr(demo, "reason", ""),
    }
    return {
        "why": "the pack run on the reference harness, run_desk: what a learner's desk is compared with",
        "apis": list(report.apis),
        "rows": rows,
        "scores": [dataclasses.asdict(score) for score in report.scores],
        "demo": run,
    }


def reference_report() -> PackReport:
    """The reference's report, read back from the published record (no harness runs)."""
    data = load_fixture(FIXTURE)
    by_name = {scenario.name: scenario for scenario in SCENARIOS}
    rows = [Row(**{**row, "scenario": by_name[row["scenario"]]}) for row in data["rows"]]
    return PackReport(rows, [PolicyScore(**score) for score in data["scores"]], tuple(data["apis"]))


def reference_run() -> DeskResult:
    """The reference's whole run of `DEMO_SCENARIO` over chat, read back from the record."""
    run = load_fixture(FIXTURE)["demo"]
    executed = [(name, arguments) for name, arguments in run["executed"]]
    return DeskResult(run["status"], run["requests"], executed, run["audit"], run["text"], run["reason"])
