"""The command behind `python -m course_lib.desk`: the misbehaving-model pack on the reference harness."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from course_lib.desk.harness import run_desk
from course_lib.desk.runs import DeskResult
from course_lib.fixtures import __file__ as fixtures_init
from course_lib.pack import SCENARIOS, careful_human, describe, render, run_pack
from course_lib.pack_record import DEMO_SCENARIO, FIXTURE, record


def main(argv: list[str] | None = None) -> int:
    """Run the pack with the reference harness and print its report; exit 1 if any row failed."""
    parser = argparse.ArgumentParser(prog="python -m course_lib.desk", description=main.__doc__)
    parser.add_argument("--scenarios", action="store_true", help="list the scenarios and exit")
    parser.add_argument("--record", action="store_true", help=f"also write the fixture {FIXTURE}.json")
    args = parser.parse_args(argv)
    if args.scenarios:
        print(describe())
        return 0
    report = run_pack(run_desk)
    if args.record:
        path = Path(fixtures_init).parent / f"{FIXTURE}.json"
        content = record(report, demo_run())
        path.write_text(
            json.dumps(content, indent=2, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8"
        )
    print(render(report))
    return 1 if report.failures or any(report.counters.values()) else 0


def demo_run() -> DeskResult:
    """The reference's run of the record's demo scenario over chat, approved by a careful human."""
    scenario = next(s for s in SCENARIOS if s.name == DEMO_SCENARIO)
    approver = careful_human(scenario.wanted)
    return run_desk(scenario.script(), api="chat", user_text=scenario.user_text, approver=approver)
