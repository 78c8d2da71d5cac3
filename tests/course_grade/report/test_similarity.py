"""Copies are flagged for review, against the reference and between classmates; honest solutions are not."""

from __future__ import annotations

import html
import json
from pathlib import Path

from course_grade.report.similarity import (
    REFERENCE,
    graded_names,
    html_report,
    instructors_solution,
    key_source,
    review_class,
    review_notes,
    similar_pairs,
    solution_source,
)
from grading.wrong_answers import published

ROOT = Path(__file__).resolve().parents[3]
NAME = "01_envelope"


def instructor() -> dict[str, object]:
    return dict(
        json.loads((ROOT / "grading" / "source" / NAME / f"{NAME}.ipynb").read_text(encoding="utf-8"))
    )


def boilerplate() -> str:
    return solution_source(json.loads((ROOT / "notebooks" / f"{NAME}.ipynb").read_text(encoding="utf-8")))


def reference() -> str:
    return key_source(graded_names(instructor()))


def honest(index: int) -> str:
    """Two correct answers written independently: the notebook's own, and the catalogue's different one."""
    if index == 0:
        return solution_source(instructor())
    return next(a.code for a in published(NAME) if "written differently" in a.code)


def test_the_key_is_the_reference_source_of_the_graded_functions() -> None:
    assert graded_names(instructor()) == ["parse_envelope", "chat_message_to_envelopes"]
    assert "def parse_envelope(raw" in reference() and "MAX_ARGUMENT_DEPTH = 64" in reference()


def test_a_pasted_reference_with_one_constant_inlined_is_flagged() -> None:
    pasted = reference().replace("MAX_ARGUMENT_DEPTH = 64\n", "").replace("MAX_ARGUMENT_DEPTH", "64")
    pairs = similar_pairs({"mallory": pasted, "alice": honest(1)}, reference(), boilerplate())
    assert [(p.student, p.other) for p in pairs] == [("mallory", REFERENCE)]
    assert review_notes(pairs, ["mallory", "alice"])["mallory"][0].startswith("similar to the reference (")


def test_two_classmates_sharing_a_solution_are_flagged_with_each_other() -> None:
    shared = honest(1).replace("allowed", "shapes")
    pairs = similar_pairs({"bob": honest(1), "carol": shared, "dan": "x = 1\n"}, reference(), boilerplate())
    notes = review_notes(pairs, ["bob", "carol", "dan"])
    assert [(p.student, p.other) for p in pairs] == [("bob", "carol")]
    assert notes["bob"][0].startswith("similar to carol (") and notes["carol"][0].startswith(
        "similar to bob ("
    )
    assert "dan" not in notes


def test_honest_different_solutions_are_not_flagged() -> None:
    pairs = similar_pairs({"erin": honest(0), "frank": honest(1)}, reference(), boilerplate())
    assert [p for p in pairs if {p.student, p.other} == {"erin", "frank"}] == []
    assert [p for p in pairs if p.student == "frank"] == []


def test_earlier_submissions_are_compared_too() -> None:
    pairs = similar_pairs({"gina": honest(1)}, reference(), boilerplate(), earlier={"2025/hal": honest(1)})
    assert [(p.student, p.other) for p in pairs] == [("gina", "2025/hal")]


def test_the_report_lists_each_pair_escaped() -> None:
    pairs = similar_pairs({"<b>ivy</b>": honest(1), "jo": honest(1)}, reference(), boilerplate())
    page = html_report(NAME, pairs)
    assert "&lt;b&gt;ivy&lt;/b&gt;" in page and "<b>ivy" not in page and "No score was changed" in page


def course_with(tmp_path: Path, solutions: dict[str, str]) -> Path:
    """An nbgrader layout: the instructor's source, the learners' release, one submission per student."""
    root = tmp_path / "course"
    for step in ("source", "release"):
        (root / step / NAME).mkdir(parents=True)
    (root / "source" / NAME / f"{NAME}.ipynb").write_text(json.dumps(instructor()), encoding="utf-8")
    learners = (ROOT / "notebooks" / f"{NAME}.ipynb").read_text(encoding="utf-8")
    (root / "release" / NAME / f"{NAME}.ipynb").write_text(learners, encoding="utf-8")
    for student, code in solutions.items():
        notebook = json.loads(learners)
        cell = next(c for c in notebook["cells"] if c["metadata"].get("nbgrader", {}).get("solution"))
        cell["source"] = code
        (root / "submitted" / student / NAME).mkdir(parents=True)
        (root / "submitted" / student / NAME / f"{NAME}.ipynb").write_text(
            json.dumps(notebook), encoding="utf-8"
        )
    return root


def test_a_class_review_flags_the_copy_writes_the_report_and_leaves_honest_work_alone(tmp_path: Path) -> None:
    pasted = reference().replace("MAX_ARGUMENT_DEPTH = 64\n", "").replace("MAX_ARGUMENT_DEPTH", "64")
    root = course_with(tmp_path, {"kim": pasted, "lee": honest(1)})
    pairs, notes, report = review_class(root, NAME, ["kim", "lee"])
    assert [(p.student, p.other) for p in pairs] == [("kim", REFERENCE)] and set(notes) == {"kim"}
    assert report.is_file() and "kim" in report.read_text(encoding="utf-8")


def test_a_verbatim_copy_of_the_instructors_solution_is_flagged_naming_it(tmp_path: Path) -> None:
    root = course_with(tmp_path, {"lee": honest(1), "max": honest(0)})
    (root / "submitted" / "nia" / NAME).mkdir(parents=True)
    (root / "submitted" / "nia" / NAME / f"{NAME}.ipynb").write_text(
        json.dumps(instructor()), encoding="utf-8"
    )
    pairs, notes, report = review_class(root, NAME, ["lee", "max", "nia"])
    solution = instructors_solution(NAME)
    assert solution == "the instructor's solution (source/01_envelope)"
    assert {(p.student, p.other) for p in pairs} == {("max", solution), ("nia", solution), ("max", "nia")}
    assert f"similar to {solution} (100%)" in notes["nia"] and "lee" not in notes
    assert html.escape(solution) in report.read_text(encoding="utf-8")


def test_the_instructors_solution_is_no_classmate_and_an_honest_answer_is_not_flagged_by_it() -> None:
    solution = {instructors_solution(NAME): honest(0)}
    pairs = similar_pairs({"lee": honest(1)}, reference(), boilerplate(), solutions=solution)
    assert pairs == [] and review_notes(pairs, ["lee"]) == {}
    pairs = similar_pairs({"nia": honest(0)}, reference(), boilerplate(), solutions=solution)
    assert [(p.student, p.other) for p in pairs] == [("nia", instructors_solution(NAME))]
    assert set(review_notes(pairs, ["nia"])) == {"nia"}
