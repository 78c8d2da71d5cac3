"""Benchmark: `course-grade autograde --jobs 2` against plain sequential `nbgrader autograde`, same class,
and the same `course-grade` with the OS sandbox and the trusted checks on against both off.

    .venv/bin/python benchmarks/grading_speed.py [--students 24] [--jobs 2] [--no-plain] [ASSIGNMENT ...]

Builds a synthetic class (every student submits every assignment: a quarter correct, a quarter with one
of the published wrong answers, a quarter the untouched learner's version, a quarter broken by a syntax
error), releases it into two scratch copies of the course, then times in one run: plain nbgrader, one
`nbgrader autograde` per assignment as an instructor would run it, and `course-grade autograde`. It checks
that both gradebooks hold the same score for every graded cell and prints the ratio of the two times.
Target: at least 1.9x on 2 cores (2x is the limit); both sides without the trusted checks, which plain
nbgrader does not have. Then grading as before (`--sandbox off --no-trusted-checks`) and with both integrity
layers (`--sandbox on --trusted-checks`) run side by side on two more copies, assignment by assignment in
alternating order; their grades must agree (identical, except that the trusted checks' differential tests may
take points from a wrong answer, never give any; the cells they take that the answer does not name are counted)
and the cost stay within 1.2x. The class holds no wrong
answer that reaches into `course_lib`: graded against the learners' edition such an import fails, and takes the
cells built on it along (04's Part F calls Part A's `tool_specs`), which the instructor's library does not do.
Ratios, not timed assertions: machines here are shared. Each run also prints the CPU seconds it used (every process
it started, kernels and workers included), which other users of the machine do not change: compare those
when the machine is busy. `--no-plain` skips plain nbgrader.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
import time
from contextlib import suppress
from pathlib import Path

import psutil  # type: ignore[import-untyped]

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from course_grade.course import Course  # noqa: E402
from course_grade.notebooks import read, write  # noqa: E402
from course_grade.pipeline import copy_course  # noqa: E402
from course_grade.score.gradebook import cell_scores  # noqa: E402
from course_grade.selftest.hostile import solution_ids  # noqa: E402
from grading.build_notebooks import GRADING, nbgrader_command, nbgrader_environment  # noqa: E402
from grading.wrong_answers import published  # noqa: E402
from tests.support.notebook_runner import with_cell_replaced  # noqa: E402

TARGET_RATIO = 1.9
SANDBOX_TARGET = 1.2
VARIANTS = ("correct", "wrong", "learner", "broken")


def nbgrader(course: Path, *args: str) -> set[tuple[str, str]]:
    """Run plain nbgrader on a course directory; return the (assignment, student) it could not process."""
    command = nbgrader_command(course, *args)
    done = run_counted(command, course)
    failed = set(re.findall(r"error processing assignment '([^']+)' for student '([^']+)'", done.stderr))
    if done.returncode != 0 and not failed:
        raise RuntimeError(f"nbgrader {' '.join(args)} failed:\n{done.stderr[-3000:]}")
    return failed


def graded_cells(course: Path, leave_out: set[tuple[str, str]]) -> dict[tuple[str, ...], float | None]:
    """(assignment, student, notebook, grade_id) -> score in a course's gradebook, leaving some submissions out."""
    scores = cell_scores(f"sqlite:///{course}/gradebook.db")
    return {key: score for key, score in scores.items() if key[:2] not in leave_out}


Submitted = dict[tuple[str, str], tuple[str, ...] | None]
"""(assignment, student) -> the test cells its wrong answer names, or None for a submission with none."""


def build_class(
    course: Course, assignments: list[str], students: int, folder: Path
) -> tuple[dict[str, int], Submitted]:
    """Write `folder/<student>/<assignment>/<notebook>.ipynb` for every student; count each variant, and say
    which submissions hold a wrong answer and the cells it names."""
    counts = dict.fromkeys(VARIANTS, 0)
    submitted: Submitted = {}
    for assignment in assignments:
        name = course.notebooks(assignment)[0]
        instructor = read(course.folder("source", assignment=assignment) / f"{name}.ipynb")
        learner = read(course.folder("release", assignment=assignment) / f"{name}.ipynb")
        first_solution = solution_ids(instructor)[0]
        wrong = [
            (answer.cell, answer.code, answer.fails)
            for answer in published(assignment)
            if "course_lib" not in answer.code
        ]
        wrong = wrong or [(first_solution, "raise NotImplementedError()", ())]
        for number in range(students):
            variant = VARIANTS[number % len(VARIANTS)]
            counts[variant] += 1
            student = f"student-{number:02d}"
            submitted[(assignment, student)] = None
            if variant == "correct":
                notebook = instructor
            elif variant == "learner":
                notebook = learner
            elif variant == "wrong":
                cell, code, fails = wrong[(number // len(VARIANTS)) % len(wrong)]
                notebook = with_cell_replaced(instructor, cell, code)
                submitted[(assignment, student)] = fails
            else:
                notebook = with_cell_replaced(instructor, first_solution, "def broken(:\n    pass\n")
            target = folder / student / assignment
            target.mkdir(parents=True, exist_ok=True)
            write(notebook, target / f"{name}.ipynb")
    return counts, submitted


SAMPLE_SECONDS = 0.1
USED = [0.0]
"""CPU seconds used so far by every command `run_counted` ran, with every process they started."""


def run_counted(command: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run a command to its end, adding the CPU seconds of its whole process tree (grading workers and
    kernels included) to `USED`: a count that other users of the machine do not change, unlike wall-clock
    time. Each process is read every SAMPLE_SECONDS while it lives, so its last moments, and processes
    shorter than that, are missed: alike for both sides of a comparison."""
    seen: dict[tuple[int, float], float] = {}
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        process = subprocess.Popen(
            command, cwd=cwd, env=nbgrader_environment(), stdout=out, stderr=err, text=True
        )
        root = psutil.Process(process.pid)
        while process.poll() is None:
            with suppress(psutil.Error):
                for member in [root, *root.children(recursive=True)]:
                    with suppress(psutil.Error):
                        times = member.cpu_times()
                        seen[(member.pid, member.create_time())] = times.user + times.system
            time.sleep(SAMPLE_SECONDS)
        USED[0] += sum(seen.values())
        out.seek(0)
        err.seek(0)
        return subprocess.CompletedProcess(command, process.returncode, out.read(), err.read())


def course_grade(submissions: Path, course: Path, assignments: list[str], jobs: int, *options: str) -> float:
    """Run `course-grade autograde` on a class; return the seconds it took."""
    start = time.perf_counter()
    command = [
        str(Path(sys.executable).parent / "course-grade"), "autograde", str(submissions), *assignments,
        "--course", str(course), "--jobs", str(jobs), *options,
    ]  # fmt: skip
    run_counted(command, Path.cwd()).check_returncode()
    return time.perf_counter() - start


MODES = {
    "today": ("--sandbox", "off", "--no-trusted-checks"),
    "integrity": ("--sandbox", "on", "--trusted-checks"),
}
"""The two ways the integrity comparison grades the class: as before the sandbox and the trusted checks, and
with both on."""


def _caught_more(
    key: tuple[str, ...],
    before: dict[tuple[str, ...], float | None],
    protected: dict[tuple[str, ...], float | None],
    submitted: Submitted,
) -> bool:
    """True when a graded cell of a wrong answer scored less with the trusted checks than without."""
    was, now = before.get(key), protected.get(key)
    return submitted.get(key[:2]) is not None and was is not None and now is not None and now < was


def compare_integrity(root: Path, assignments: list[str], jobs: int, submitted: Submitted) -> bool:
    """Grade the class as before (no sandbox, no trusted checks) and with both, assignment by assignment,
    alternating which goes first; print both times and the ratio. True when the grades agree: identical on
    every submission without a wrong answer; on a wrong answer the trusted checks' differential tests may take
    points away (they catch more), never give any."""
    courses = {mode: copy_course(GRADING, root / f"mode-{mode}") for mode in MODES}
    for course in courses.values():
        for assignment in assignments:
            nbgrader(course, "generate_assignment", assignment, "--force")
    seconds, cpu = dict.fromkeys(MODES, 0.0), dict.fromkeys(MODES, 0.0)
    for turn, assignment in enumerate(assignments):
        order = list(MODES) if turn % 2 == 0 else list(reversed(MODES))
        for mode in order:
            before = USED[0]
            seconds[mode] += course_grade(root / "class", courses[mode], [assignment], jobs, *MODES[mode])
            cpu[mode] += USED[0] - before
    for mode, options in MODES.items():
        print(
            f"course-grade autograde --jobs {jobs} {' '.join(options)}: {seconds[mode]:7.1f} s, "
            f"{cpu[mode]:7.1f} s of CPU",
            flush=True,
        )
    today, integrity = (graded_cells(courses[mode], set()) for mode in MODES)
    differing = sorted(k for k in today.keys() | integrity.keys() if today.get(k) != integrity.get(k))
    caught = [key for key in differing if _caught_more(key, today, integrity, submitted)]
    wrong = [key for key in differing if key not in caught]
    same = not wrong and len(today) > 0
    ratio = seconds["integrity"] / seconds["today"]
    verdict = "within" if ratio <= SANDBOX_TARGET else "OVER"
    print(
        f"grades without and with the sandbox and trusted checks: {len(today)} graded cells, "
        f"{'in agreement' if same else 'DIFFERENT:'}; {len(caught)} more cells lost by wrong answers to the "
        f"differential tests, {sum(key[3] not in (submitted[key[:2]] or ()) for key in caught)} of them "
        "in a cell the answer does not name"
    )
    for key in wrong[:20]:
        print(f"  {key}: before {today.get(key)}, with both {integrity.get(key)}")
    print(
        f"cost of the sandbox and trusted checks: {seconds['integrity']:.1f} s / {seconds['today']:.1f} s = "
        f"{ratio:.2f}x ({verdict} {SANDBOX_TARGET}x); in CPU seconds {cpu['integrity'] / cpu['today']:.2f}x"
    )
    return same


def main() -> int:
    """Build the class, time both ways, compare the grades, print the ratio."""
    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("assignments", nargs="*", help="(default: every assignment of the course)")
    parser.add_argument("--students", type=int, default=24)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument(
        "--no-plain",
        action="store_true",
        help="only compare grading before and with the sandbox and trusted checks",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="grading-speed-") as scratch:
        root = Path(scratch)
        sequential, parallel = (
            copy_course(GRADING, root / "sequential"),
            copy_course(GRADING, root / "parallel"),
        )
        assignments = Course.open(sequential).select(args.assignments)
        for course in (sequential, parallel):
            for assignment in assignments:
                nbgrader(course, "generate_assignment", assignment, "--force")
        counts, submitted = build_class(Course.open(sequential), assignments, args.students, root / "class")
        notebooks = args.students * len(assignments)
        print(
            f"class: {args.students} students x {len(assignments)} assignments = {notebooks} notebooks {counts}"
        )

        if args.no_plain:
            return 0 if compare_integrity(root, assignments, args.jobs, submitted) else 1
        shutil.copytree(root / "class", sequential / "submitted")
        start, before = time.perf_counter(), USED[0]
        failed: set[tuple[str, str]] = set()
        for assignment in assignments:
            failed |= nbgrader(sequential, "autograde", assignment, "--force")
        plain, plain_cpu = time.perf_counter() - start, USED[0] - before
        print(
            f"plain nbgrader autograde, sequential:   {plain:7.1f} s, {plain_cpu:7.1f} s of CPU", flush=True
        )
        if failed:  # nbgrader goes on with the others, and leaves these with no grades
            print(f"  plain nbgrader could not grade {sorted(failed)}: their grades are not compared")

        before = USED[0]
        ours = course_grade(root / "class", parallel, assignments, args.jobs, *MODES["today"])
        ours_cpu = USED[0] - before
        print(
            f"course-grade autograde --jobs {args.jobs} {' '.join(MODES['today'])}: {ours:7.1f} s, "
            f"{ours_cpu:7.1f} s of CPU",
            flush=True,
        )

        plain_scores = graded_cells(sequential, failed)
        our_scores = graded_cells(parallel, failed)
        same = plain_scores == our_scores and len(plain_scores) > 0
        differing = sorted(
            k for k in plain_scores.keys() | our_scores.keys() if plain_scores.get(k) != our_scores.get(k)
        )
        ratio = plain / ours
        verdict = "meets" if ratio >= TARGET_RATIO else "BELOW"
        print(f"grades: {len(plain_scores)} graded cells, {'identical' if same else 'DIFFERENT:'}")
        for key in differing[:20]:
            print(f"  {key}: plain nbgrader {plain_scores.get(key)}, course-grade {our_scores.get(key)}")
        print(f"speed-up: {plain:.1f} s / {ours:.1f} s = {ratio:.2f}x ({verdict} the {TARGET_RATIO}x target)")
        print(
            f"CPU seconds per notebook: plain nbgrader {plain_cpu / notebooks:.2f}, course-grade "
            f"{ours_cpu / notebooks:.2f} = {ours_cpu / plain_cpu:.2f}x (a count other users do not change)"
        )
        sandboxed_same = compare_integrity(root, assignments, args.jobs, submitted)
        return 0 if same and sandboxed_same else 1


if __name__ == "__main__":
    sys.exit(main())
