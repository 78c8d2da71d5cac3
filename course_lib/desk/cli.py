"""The command behind `python -m course_lib.desk`: the misbehaving-model pack on the reference harness."""

from __future__ import annotations

import argparse

from course_lib.desk.harness import run_desk
from course_lib.pack import describe, render, run_pack


def main(argv: list[str] | None = None) -> int:
    """Run the pack with the reference harness and print its report; exit 1 if any row failed."""
    parser = argparse.ArgumentParser(prog="python -m course_lib.desk", description=main.__doc__)
    parser.add_argument("--scenarios", action="store_true", help="list the scenarios and exit")
    args = parser.parse_args(argv)
    if args.scenarios:
        print(describe())
        return 0
    report = run_pack(run_desk)
    print(render(report))
    return 1 if report.failures or any(report.counters.values()) else 0
