"""course-grade end to end: one class holding every hostile case, graded once, then checked from every side.

The class is the hostile pack (course_grade/selftest/hostile.py) of one assignment: the instructor's and learner's
versions, a partial answer, and one student per hostile or broken submission. It is graded once per
session with `course-grade run --jobs 2 --sandbox on` while this process listens on a loopback port the
pack tries to reach; a few students are also graded by plain sequential nbgrader, and a small class of
zip files is graded twice.
"""

from __future__ import annotations

import copy
import hashlib
import html
import json
import re
import shutil
import socket
import statistics
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import psutil
import pytest
from nbformat.v4 import new_code_cell
from nbgrader.api import Gradebook

import course_lib
from course_grade.cli import main
from course_grade.course import Course
from course_grade.intake.files import fingerprint
from course_grade.notebooks import read
from course_grade.notes import KINDS, REVIEW_ONLY, load_notes
from course_grade.run.costs import COSTS, read_costs
from course_grade.score.gradebook import cell_scores, scores
from course_grade.selftest.attacks import MARKER
from course_grade.selftest.hostile import ODD_ID, Case, first_exercise_points, quiz_points, write_pack
from tests.support.grading_helpers import (
    BAD_ZIPS,
    Run,
    course_grade,
    csv_rows,
    fresh_course,
    sequential_scores,
    write_bad_zips,
    write_class,
    zip_students,
)
from tests.support.report_helpers import parse

pytestmark = [pytest.mark.timeout(600), pytest.mark.xdist_group("course_grade")]
"""One xdist worker runs this module: its class is graded once, not once per worker."""

ASSIGNMENT = "01_envelope"
PACK = [
    "solution", "learner", "partial", "infinite-loop", "ignores-interrupt", "sys-exit", "kernel-dies",
    "kills-grader", "edited-test", "deleted-test", "duplicated-cell", "renamed", "missing", "invalid-json",
    "empty-file", "huge-output", "stderr", "writes-files", "tampers-course", ODD_ID, "other-assignment",
    "skip-tags", "transformer", "transformer-when-graded", "transformer-in-markdown", "sqlite-trigger",
    "reads-source", "loopback", "outlives-grading", "rewrites-results", "zmq-injection", "kills-classmates",
    "appends-code", "huge-file", "settrace",
    "own-work-default", "own-work-closure", "own-work-import", "own-work-rebound",
]  # fmt: skip
ATTACKS = PACK[PACK.index("skip-tags") :] + ["kills-grader", "tampers-course"]
"""The attacks on the grader and on classmates: each must appear in the summary."""
SEQUENTIAL = [
    "solution", "learner", "partial", "sys-exit", "stderr", "edited-test", "deleted-test", "huge-output",
]  # fmt: skip
"""Students plain nbgrader can grade too (it stops or is harmed on most other cases): the honest ones among
them, graded beside every attack, must keep exactly their solo scores."""


@dataclass(frozen=True)
class Graded:
    """The graded class and everything needed to check it."""

    root: Path
    run: Run
    cases: dict[str, Case]
    course_before: dict[str, str]
    full: float
    first: float
    """What a submission whose first exercise alone is solved scores: its tests and the quiz, kept as the key."""
    first_only: float
    """The first exercise's tests alone: what a submission scores when its kernel is lost in the second."""
    second: float
    """What a submission whose first exercise alone is broken scores."""
    knocks: int
    """Connections the loopback listener accepted while the class was graded."""
    library_before: str

    @property
    def course(self) -> Path:
        return self.run.course

    def score(self, student: str) -> float:
        return scores(self.run.db_url, Course.open(self.course).course_id, ASSIGNMENT, [student])[student][0]


def _protected(course: Path) -> dict[str, str]:
    """Fingerprint of what a learner must never change: the course's sources and configuration."""
    config = hashlib.sha256((course / "nbgrader_config.py").read_bytes()).hexdigest()
    return {**fingerprint(course / "source"), "nbgrader_config.py": config}


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> Graded:
    root = tmp_path_factory.mktemp("hostile")
    course = fresh_course(root)
    released = course_grade(course, "generate", ASSIGNMENT)
    assert released.returncode == 0, released.stderr
    before, library = _protected(course), _library()
    with socket.create_server(("127.0.0.1", 0)) as listener:
        listener.settimeout(0)
        port = listener.getsockname()[1]
        pack = write_pack(Course.open(course), ASSIGNMENT, root / "pack", port)
        cases = {case.student: case for case in pack}
        run = course_grade(
            course, "run", str(root / "pack"), ASSIGNMENT, "--jobs", "2", "--timeout", "15", "--sandbox", "on",
            cwd=root,
        )  # fmt: skip
        knocks = _accepted(listener)
    instructor = read(course / "source" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb")
    with Gradebook(run.db_url) as gradebook:
        full = float(gradebook.find_assignment(ASSIGNMENT).max_score)
    first, quiz = first_exercise_points(instructor), quiz_points(instructor)
    return Graded(root, run, cases, before, full, first + quiz, first, full - first, knocks, library)


def _library() -> str:
    """Fingerprint of course_lib's files (an editable install: every later job would run what is added)."""
    files = fingerprint(Path(course_lib.__file__).parent)
    kept = {name: digest for name, digest in files.items() if "__pycache__" not in name}
    return hashlib.sha256(json.dumps(kept, sort_keys=True).encode()).hexdigest()


def _accepted(listener: socket.socket) -> int:
    """How many connections wait on a listening socket."""
    count = 0
    while True:
        try:
            listener.accept()[0].close()
        except BlockingIOError:
            return count
        count += 1


def test_the_pack_has_every_case(graded: Graded) -> None:
    assert sorted(graded.cases) == sorted(PACK)


def test_the_run_finishes_with_status_zero(graded: Graded) -> None:
    assert graded.run.returncode == 0, graded.run.stderr[-3000:]


@pytest.mark.parametrize("student", PACK)
def test_each_learner_gets_the_score_of_their_case(graded: Graded, student: str) -> None:
    """Every attack scores what the same notebook without it scores."""
    case = graded.cases[student]
    shares = {
        "full": graded.full, "zero": 0.0, "first": graded.first, "first-only": graded.first_only,
        "second": graded.second,
    }  # fmt: skip
    expected = shares[case.score]
    assert graded.score(student) == expected, case.what


@pytest.mark.parametrize("student", PACK)
def test_each_learner_gets_the_reasons_of_their_case(graded: Graded, student: str) -> None:
    notes = load_notes(graded.course / "grading_notes" / student / f"{ASSIGNMENT}.json")
    assert sorted({note.kind for note in notes}) == sorted(graded.cases[student].kinds)


def test_a_run_keeps_the_cost_of_each_assignment_it_graded_for_the_next_runs_order(graded: Graded) -> None:
    assert set(read_costs(graded.course / "grading_notes" / COSTS)) == {ASSIGNMENT}


@pytest.mark.parametrize("student", PACK)
def test_each_learner_has_feedback_showing_their_reasons(graded: Graded, student: str) -> None:
    """Every note on the learner's page but the review-only ones (a flag that withheld no point)."""
    page = graded.course / "feedback" / student / ASSIGNMENT / f"{ASSIGNMENT}.html"
    text = page.read_text(encoding="utf-8")
    for note in load_notes(graded.course / "grading_notes" / student / f"{ASSIGNMENT}.json"):
        assert (html.escape(note.text) in text) == (note.kind not in REVIEW_ONLY), note


def test_the_summary_names_every_problem_and_its_reason(graded: Graded) -> None:
    summary = graded.run.stdout[graded.run.stdout.index("summary:") :]
    assert f"{len(PACK)} students" in summary
    for student in graded.cases:
        notes = load_notes(graded.course / "grading_notes" / student / f"{ASSIGNMENT}.json")
        after = summary.partition(f"\n  {student}  [{ASSIGNMENT}]")[2]
        block = re.split(r"\n  (?=\S)|\n\n", after)[0]  # up to the next student or section
        assert all(f"{KINDS[note.kind]}: {note.text}" in block for note in notes), student


@pytest.mark.parametrize("student", ATTACKS)
def test_every_attack_is_named_in_the_summary(graded: Graded, student: str) -> None:
    summary = graded.run.stdout[graded.run.stdout.index("problems:") :]
    assert f"\n  {student}  [{ASSIGNMENT}]" in summary


def test_the_summary_does_not_warn_of_a_run_without_sandbox(graded: Graded) -> None:
    assert "WITHOUT the OS sandbox" not in graded.run.stdout


def test_no_process_a_submission_started_outlives_grading(graded: Graded) -> None:
    survivors = [p for p in psutil.process_iter(["cmdline"]) if MARKER in " ".join(p.info["cmdline"] or [])]
    assert survivors == []


def test_no_submission_reaches_a_loopback_port_of_the_host(graded: Graded) -> None:
    assert graded.knocks == 0


def test_course_lib_is_unchanged(graded: Graded) -> None:
    assert _library() == graded.library_before


def test_grades_csv_lists_what_to_review_by_hand(graded: Graded) -> None:
    rows = {row["student_id"]: row["review"] for row in csv_rows(graded.root / "grades.csv")}
    assert "uses IPython internals" in rows["transformer"]
    # the pack's attacks are built from the solution, so the honest solution is flagged only as their twin
    assert all(note.startswith("similar to ") for note in filter(None, rows["solution"].split("; ")))


def test_feedback_shows_no_hidden_test(graded: Graded) -> None:
    autograded = graded.course / "autograded" / "partial" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    page = (graded.course / "feedback" / "partial" / ASSIGNMENT / f"{ASSIGNMENT}.html").read_text()
    source = (graded.course / "source" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb").read_text()
    # graded against the learners' library, the hidden tests never reach the kernel, nor its notebook
    assert "BEGIN HIDDEN TESTS" in source and "HIDDEN TESTS" not in autograded.read_text() + page


def test_the_summary_shows_the_score_distribution(graded: Graded) -> None:
    summary = graded.run.stdout[graded.run.stdout.index("score distribution") :]
    zero = sum(1 for student in graded.cases if graded.score(student) == 0)
    assert any(line.split()[:2] == ["0%", str(zero)] for line in summary.splitlines())


def test_the_reports_cell_statistics_equal_an_independent_computation_from_the_gradebook(
    graded: Graded,
) -> None:
    """The report `run` writes beside grades.csv, on a class of every kind of submission."""
    page = graded.root / "report.html"
    assert f"report: {page}" in graded.run.stdout
    table = cell_scores(graded.run.db_url, Course.open(graded.course).course_id)
    scores: dict[str, dict[str, float]] = {}
    for (_, student, _, cell), score in table.items():
        scores.setdefault(cell, {})[student] = score or 0.0
    total = {student: sum(by_cell[student] for by_cell in scores.values()) for student in graded.cases}
    rows = {row["cell"]: row for row in parse(page).tables[f"questions-{ASSIGNMENT}"] if row}
    assert sorted(rows) == sorted(scores)
    for cell, by_student in scores.items():
        values = [by_student[student] for student in sorted(by_student)]
        rest = [total[student] - by_student[student] for student in sorted(by_student)]
        try:
            discrimination = f"{statistics.correlation(values, rest):.2f}"
        except statistics.StatisticsError:
            discrimination = "n/a"
        shown = rows[cell]
        assert (shown["n"], shown["mean"], shown["sd"], shown["discrimination"]) == (
            str(len(values)),
            f"{statistics.mean(values):.2f}",
            f"{statistics.stdev(values):.2f}",
            discrimination,
        )


def test_hidden_folders_are_skipped_with_a_reason(graded: Graded) -> None:
    assert ".ipynb_checkpoints: hidden" in graded.run.stdout


def test_grades_csv_has_every_learner_with_their_score(graded: Graded) -> None:
    rows = {row["student_id"]: row for row in csv_rows(graded.root / "grades.csv")}
    assert sorted(rows) == sorted(PACK)
    for student, row in rows.items():
        assert float(row["score"]) == graded.score(student) and float(row["max_score"]) == graded.full


def test_the_gradebook_is_consistent(graded: Graded) -> None:
    with Gradebook(graded.run.db_url) as gradebook:
        submissions = gradebook.find_assignment(ASSIGNMENT).submissions
        assert sorted(s.student.id for s in submissions) == sorted(PACK)
        grades = [grade for s in submissions for notebook in s.notebooks for grade in notebook.grades]
        assert all(grade.auto_score is not None and not grade.needs_manual_grade for grade in grades)


def test_the_course_directory_is_untouched(graded: Graded) -> None:
    assert _protected(graded.course) == graded.course_before


def test_files_a_notebook_writes_are_discarded(graded: Graded) -> None:
    for step in ("autograded", "feedback"):
        left = {p.name for p in (graded.course / step / "writes-files" / ASSIGNMENT).iterdir()}
        assert left == {f"{ASSIGNMENT}.ipynb" if step == "autograded" else f"{ASSIGNMENT}.html"}


def test_megabytes_of_output_are_cut(graded: Graded) -> None:
    autograded = graded.course / "autograded" / "huge-output" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    assert autograded.stat().st_size < 1_000_000


def test_a_dead_kernel_fails_only_the_cells_from_there_on(graded: Graded) -> None:
    notebook = read(graded.course / "autograded" / "kernel-dies" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb")
    died = [
        o.evalue for c in notebook.cells for o in c.get("outputs", []) if o.get("ename") == "DeadKernelError"
    ]
    assert died and "died while running this cell" in died[0] and all("not run" in e for e in died[1:])


def test_a_cell_ignoring_the_interrupt_has_its_kernel_stopped_and_the_rest_fail(graded: Graded) -> None:
    notebook = read(graded.course / "autograded" / "ignores-interrupt" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb")
    stopped = [
        (index, o.evalue)
        for index, c in enumerate(notebook.cells)
        for o in c.get("outputs", [])
        if o.get("ename") == "KernelStoppedError"
    ]
    first, *rest = stopped
    assert "went on running after it was interrupted" in first[1]
    assert rest and all("not run" in message for _, message in rest)
    later_code = [i for i, c in enumerate(notebook.cells) if i > first[0] and c.cell_type == "code"]
    assert [index for index, _ in rest] == later_code


def test_a_submission_past_its_deadline_is_stopped_and_the_others_graded(tmp_path: Path) -> None:
    course = fresh_course(tmp_path)
    assert course_grade(course, "release", ASSIGNMENT).returncode == 0
    instructor = read(course / "source" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb")
    sleeper = copy.deepcopy(instructor)
    sleeper.cells.insert(0, new_code_cell("import time\ntime.sleep(600)"))  # past the cell timeout's cap too
    pack = write_class(tmp_path / "pack", ASSIGNMENT, {"solution": instructor, "slow": sleeper})
    run = course_grade(
        course, "autograde", str(pack), ASSIGNMENT, "--jobs", "2", "--submission-timeout", "10",
        cwd=tmp_path,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-3000:]
    notes = load_notes(
        course / "grading_notes" / "slow" / f"{ASSIGNMENT}.json"
    )  # the sleep uses no CPU time:
    assert [note.kind for note in notes] == ["grading-failed"] and "longer than 30 s" in notes[
        0
    ].text  # the cap
    with Gradebook(run.db_url) as gradebook:
        full = float(gradebook.find_assignment(ASSIGNMENT).max_score)
    assert scores(run.db_url, Course.open(course).course_id, ASSIGNMENT, ["slow", "solution"]) == {
        "slow": (0.0, full),
        "solution": (full, full),
    }


def test_an_edited_test_cell_runs_as_the_instructor_wrote_it(graded: Graded) -> None:
    notebook = read(graded.course / "autograded" / "edited-test" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb")
    tests = [cell for cell in notebook.cells if cell.metadata.get("nbgrader", {}).get("grade")]
    assert tests and all(cell.source != "pass" and cell.metadata.nbgrader["points"] <= 3 for cell in tests)


def test_plain_sequential_nbgrader_gives_the_same_grades(graded: Graded, tmp_path: Path) -> None:
    sequential = sequential_scores(tmp_path, graded.root / "pack", SEQUENTIAL, ASSIGNMENT)
    parallel = {key: score for key, score in cell_scores(graded.run.db_url).items() if key[1] in SEQUENTIAL}
    assert sequential and sequential == parallel


@pytest.fixture(scope="module")
def zipped(tmp_path_factory: pytest.TempPathFactory, graded: Graded) -> Iterator[tuple[Run, Run, Path]]:
    root = tmp_path_factory.mktemp("zips")
    course = fresh_course(root)
    archives = zip_students(graded.root / "pack", ["solution", "learner"], root / "zips")
    write_bad_zips(graded.root / "pack" / "solution", archives)
    first = course_grade(
        course, "run", str(archives), ASSIGNMENT, "--jobs", "2", "--to", "first.csv", cwd=root
    )
    first_scores = cell_scores(first.db_url)
    second = course_grade(
        course, "run", str(archives), ASSIGNMENT, "--jobs", "2", "--to", "second.csv", cwd=root
    )
    assert cell_scores(second.db_url) == first_scores
    yield first, second, root


def test_zip_files_are_collected_and_graded(zipped: tuple[Run, Run, Path], graded: Graded) -> None:
    first, _, root = zipped
    assert first.returncode == 0, first.stderr[-3000:]
    rows = {row["student_id"]: float(row["score"]) for row in csv_rows(root / "first.csv")}
    assert rows == {"solution": graded.full, "learner": 0.0, "slip": graded.full}


@pytest.mark.parametrize("archive", sorted(BAD_ZIPS))
def test_a_bad_zip_file_is_skipped_with_its_reason(zipped: tuple[Run, Run, Path], archive: str) -> None:
    first, _, _ = zipped
    assert f"  {archive}.zip: {BAD_ZIPS[archive]}" in first.stdout


def test_a_zip_entry_climbing_out_of_its_folder_is_not_extracted(zipped: tuple[Run, Run, Path]) -> None:
    first, _, root = zipped
    assert (root / "course" / "downloaded").is_dir()  # where zip_collect extracted, three levels down
    assert not list(root.parent.rglob("escaped.txt"))


def test_running_again_changes_nothing(zipped: tuple[Run, Run, Path]) -> None:
    first, second, root = zipped
    assert second.returncode == 0 and csv_rows(root / "first.csv") == csv_rows(root / "second.csv")
    with Gradebook(second.db_url) as gradebook:
        assert len(gradebook.students) == 3 and len(gradebook.find_assignment(ASSIGNMENT).submissions) == 3


def test_the_steps_one_at_a_time_use_the_gradebook_given_by_db(graded: Graded, tmp_path: Path) -> None:
    course = fresh_course(tmp_path)
    elsewhere = tmp_path / "elsewhere" / "grades.db"
    elsewhere.parent.mkdir()
    db = ["--db", f"sqlite:///{elsewhere}"]
    students = ["partial", "solution"]
    for student in students:
        shutil.copytree(graded.root / "pack" / student, tmp_path / "pack" / student)
    steps = [
        ("release", ASSIGNMENT),
        ("autograde", str(tmp_path / "pack"), ASSIGNMENT, "--jobs", "2"),
        ("feedback", ASSIGNMENT),
        ("export", ASSIGNMENT, "--to", "steps.csv"),
    ]
    runs = [course_grade(course, *step, *db, cwd=tmp_path) for step in steps]
    assert [run.returncode for run in runs] == [0, 0, 0, 0], [run.stderr[-2000:] for run in runs]
    assert sorted(re.findall(r"^\[\d/2\] \S+  (\w+)  ", runs[1].stdout, re.MULTILINE)) == students
    assert not (course / "gradebook.db").exists()
    rows = {row["student_id"]: float(row["score"]) for row in csv_rows(tmp_path / "steps.csv")}
    assert rows == {"solution": graded.full, "partial": graded.first}
    assert cell_scores(f"sqlite:///{elsewhere}") == {
        key: score for key, score in cell_scores(graded.run.db_url).items() if key[1] in students
    }
    for student in students:
        assert (course / "feedback" / student / ASSIGNMENT / f"{ASSIGNMENT}.html").is_file()


def test_autograde_before_the_learners_versions_are_generated_is_a_pipeline_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    course = fresh_course(tmp_path)
    (tmp_path / "subs" / "ann" / ASSIGNMENT).mkdir(parents=True)
    assert main(["autograde", str(tmp_path / "subs"), ASSIGNMENT, "--course", str(course)]) == 1
    assert "course-grade generate" in capsys.readouterr().err


def test_a_missing_course_directory_is_a_pipeline_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["export", "--course", str(tmp_path / "nowhere")]) == 1
    assert "not an nbgrader course directory" in capsys.readouterr().err


def test_an_unknown_assignment_is_a_pipeline_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["release", "99_nothing"]) == 1
    assert "no such assignment" in capsys.readouterr().err


def test_the_notes_are_stored_as_json(graded: Graded) -> None:
    stored = json.loads((graded.course / "grading_notes" / "kernel-dies" / f"{ASSIGNMENT}.json").read_text())
    assert [note["kind"] for note in stored] == ["kernel-died"]
