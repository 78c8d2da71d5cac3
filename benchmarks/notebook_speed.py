"""Benchmark: how much the course's notebooks cost over the bare price of starting a kernel.

    .venv/bin/python benchmarks/notebook_speed.py [--rounds 2]

Executes every instructor notebook and as many empty notebooks, interleaved in one run on this machine,
and prints the ratio of their total times. Target: at most 2.5x (most of a notebook's time should be the
kernel start every notebook pays anyway). A ratio, not a timed assertion: machines here are shared.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import nbformat

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from grading.build_notebooks import SOURCE, assignments, execute  # noqa: E402

TARGET_RATIO = 2.5


def timed(path: Path) -> float:
    """Seconds to execute one notebook on a fresh kernel."""
    start = time.perf_counter()
    execute(path)
    return time.perf_counter() - start


def main() -> int:
    """Run the benchmark and print one line per notebook, then the ratio."""
    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--rounds", type=int, default=2, help="repeat everything this many times")
    args = parser.parse_args()
    empty = Path(__file__).resolve().parent / "empty.ipynb"
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("")])
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(notebook, empty)
    course_total = empty_total = 0.0
    try:
        for round_number in range(1, args.rounds + 1):
            for name in assignments():
                course = timed(SOURCE / name / f"{name}.ipynb")
                baseline = timed(empty)
                course_total, empty_total = course_total + course, empty_total + baseline
                print(
                    f"round {round_number}  {name:16} {course:6.2f} s   empty {baseline:6.2f} s", flush=True
                )
    finally:
        empty.unlink()
    ratio = course_total / empty_total
    verdict = "within" if ratio <= TARGET_RATIO else "OVER"
    totals = f"course {course_total:.2f} s / empty {empty_total:.2f} s"
    print(f"{totals} = {ratio:.2f}x ({verdict} the {TARGET_RATIO}x target)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
