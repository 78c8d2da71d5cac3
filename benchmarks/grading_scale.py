"""Benchmark: how grading scales on Dask, and what a class of any size would cost.

    .venv/bin/python benchmarks/grading_scale.py [--students 8] [--rounds 2] [ASSIGNMENT ...]

Builds the synthetic class of `benchmarks/grading_speed.py` (a quarter correct, a quarter with a published
wrong answer, a quarter the untouched learner's version, a quarter broken), releases it into three scratch
copies of the course, and times `course-grade autograde` on it three ways, with the course's defaults
(sandbox where available, trusted checks): a local Dask cluster of 1 worker, of 2 workers, and this
machine's pool of 2 worker processes without Dask (`--cluster pool`). The three take turns, `--rounds`
times (the later rounds with `--regrade`), each round starting one further along (1, 2, pool; then 2,
pool, 1; ...), and each counts its fastest round: a shared machine's speed drifts by 10% or more over
minutes, which one run of each would read as a difference between them (each round's ratios are printed
too, so that the spread shows). All three gradebooks must hold the same score for every graded cell. It
prints the speed-up of 2 workers over 1 (target at least 1.8x; the limit is 2.0x, or less when one worker
already keeps more than one core busy: the CPU seconds of each run, all processes included, divided by its
wall time, say how many), the cost of the local cluster against the pool (target at most 1.1x), and a
projection computed from the measured cost per notebook: worker-hours for a class of L learners and N
notebooks, and the wall time on W workers at the parallel efficiency measured here.
The class is 8 students (56 notebooks) by default because every run also pays a fixed cost that no worker
shares (about 4 s: importing nbgrader and Dask, starting the workers and their watchdogs, shutting down),
which the 1-worker run pays as much as the 2-worker run: on a 4-student class it is some 7% of the 1-worker
run and caps the ratio near 1.87x even with no contention at all (measured: 1.78x in three rounds, where the
same code reads 1.84x on 8 students); a real class spreads it thinner still.
Ratios, not timed assertions: machines here are shared.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.grading_speed import USED, build_class, graded_cells, nbgrader, run_counted  # noqa: E402
from course_grade.course import Course  # noqa: E402
from course_grade.pipeline import copy_course  # noqa: E402
from grading.build_notebooks import GRADING  # noqa: E402

SPEED_UP_TARGET = 1.8
CORES = os.cpu_count() or 1
"""The cores of this machine: what 2 workers share."""
OVERHEAD_TARGET = 1.1
RUNS = {
    "dask, 1 worker": ("--cluster", "local", "--jobs", "1"),
    "dask, 2 workers": ("--cluster", "local", "--jobs", "2"),
    "pool, 2 workers": ("--cluster", "pool", "--jobs", "2"),
}
"""The three ways the class is graded."""
LEARNERS = (100, 500, 2_000, 10_000)
NOTEBOOKS = (7, 14)
WORKERS = (2, 16, 64, 256)


def autograde(
    submissions: Path, course: Path, assignments: list[str], options: tuple[str, ...]
) -> tuple[float, float]:
    """Run `course-grade autograde` on a class; return the seconds it took and the CPU seconds it used (every
    process it started: workers, kernels, sandboxes)."""
    command = [
        str(Path(sys.executable).parent / "course-grade"), "autograde", str(submissions), *assignments,
        "--course", str(course), *options,
    ]  # fmt: skip
    start, before = time.perf_counter(), USED[0]
    run_counted(command, Path.cwd()).check_returncode()
    return time.perf_counter() - start, USED[0] - before


def projection(per_notebook: float, efficiency: float) -> list[str]:
    """The table: learners x notebooks -> worker-hours, and wall time on W workers."""
    head = f"{'learners':>9} {'notebooks':>9} {'worker-h':>9}" + "".join(
        f" {f'{w} workers':>11}" for w in WORKERS
    )
    rows = [head]
    for learners in LEARNERS:
        for notebooks in NOTEBOOKS:
            hours = learners * notebooks * per_notebook / 3600
            walls = "".join(f" {_duration(hours / (w * efficiency)):>11}" for w in WORKERS)
            rows.append(f"{learners:>9} {notebooks:>9} {hours:>9.1f}{walls}")
    return rows


def _duration(hours: float) -> str:
    """A duration, in the unit that reads best."""
    if hours < 1:
        return f"{hours * 60:.0f} min" if hours * 60 >= 1 else "<1 min"
    return f"{hours:.1f} h" if hours < 48 else f"{hours / 24:.1f} d"


def main() -> int:
    """Build the class, grade it three ways, compare the grades, print the ratios and the projection."""
    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("assignments", nargs="*", help="(default: every assignment of the course)")
    parser.add_argument("--students", type=int, default=8)
    parser.add_argument(
        "--rounds", type=int, default=2, help="turns of the three runs; each keeps its fastest"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="grading-scale-") as scratch:
        root = Path(scratch)
        courses = {name: copy_course(GRADING, root / f"course-{number}") for number, name in enumerate(RUNS)}
        assignments = Course.open(next(iter(courses.values()))).select(args.assignments)
        for course in courses.values():
            for assignment in assignments:
                nbgrader(course, "generate_assignment", assignment, "--force")
        counts = build_class(
            Course.open(courses["pool, 2 workers"]), assignments, args.students, root / "class"
        )
        notebooks = args.students * len(assignments)
        print(
            f"class: {args.students} students x {len(assignments)} assignments = {notebooks} notebooks {counts}"
        )
        seconds: dict[str, float] = {}
        busy: dict[str, float] = {}
        rounds: list[dict[str, float]] = []
        names = list(RUNS)
        for turn in range(1, max(1, args.rounds) + 1):
            rounds.append({})
            opening = (turn - 1) % len(names)
            for name in names[opening:] + names[:opening]:
                options = RUNS[name]
                again = ("--regrade",) if turn > 1 else ()
                took, cpu = autograde(root / "class", courses[name], assignments, (*options, *again))
                rounds[-1][name] = took
                if took < seconds.get(name, float("inf")):
                    seconds[name], busy[name] = took, cpu / took
                print(
                    f"round {turn} {name:>16}: {took:7.1f} s, {cpu:6.1f} s of CPU = {cpu / took:.2f} cores busy "
                    f"(course-grade autograde {' '.join((*options, *again))})",
                    flush=True,
                )
        grades = {name: graded_cells(course, set()) for name, course in courses.items()}
        first = grades["pool, 2 workers"]
        same = bool(first) and all(found == first for found in grades.values())
        print(f"grades: {len(first)} graded cells, {'identical in all three' if same else 'DIFFERENT:'}")
        for name, found in grades.items():
            for key in sorted(k for k in found.keys() | first.keys() if found.get(k) != first.get(k))[:20]:
                print(f"  {key}: pool {first.get(key)}, {name} {found.get(key)}")
        speed_up = seconds["dask, 1 worker"] / seconds["dask, 2 workers"]
        overhead = seconds["dask, 2 workers"] / seconds["pool, 2 workers"]
        each = ", ".join(f"{r['dask, 1 worker'] / r['dask, 2 workers']:.2f}x" for r in rounds)
        against = ", ".join(f"{r['dask, 2 workers'] / r['pool, 2 workers']:.2f}x" for r in rounds)
        print(f"round by round: 2 workers over 1 {each}; local cluster over the pool {against}")
        ceiling = min(2.0, CORES / busy["dask, 1 worker"])
        print(
            f"2 workers over 1: {speed_up:.2f}x ({'meets' if speed_up >= SPEED_UP_TARGET else 'BELOW'} the "
            f"{SPEED_UP_TARGET}x target; the limit here is {ceiling:.2f}x: 2, or fewer when one worker alone "
            f"keeps more than {CORES / 2:g} of the {CORES} cores busy)"
        )
        print(
            f"local cluster over the pool: {overhead:.2f}x "
            f"({'within' if overhead <= OVERHEAD_TARGET else 'OVER'} the {OVERHEAD_TARGET}x target)"
        )
        per_notebook = seconds["dask, 1 worker"] / notebooks
        efficiency = min(1.0, speed_up / 2)
        print(
            f"\nprojection from {per_notebook:.1f} worker-seconds per notebook (1 worker, start-up included) "
            f"at {efficiency:.0%} parallel efficiency:"
        )
        print("\n".join(projection(per_notebook, efficiency)))
        return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
