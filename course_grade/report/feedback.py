"""The learner's feedback: nbgrader's HTML with the grading notes on top, or a page of its own when there is
no autograded notebook to render (a missing, renamed or unreadable notebook, or one that could not be graded).

nbgrader renders a learner's markdown and raw HTML cells as they are: the notebook part of its page is
sanitised (`course_grade.report.safe_html.clean_feedback`) and every page carries a Content-Security-Policy
forbidding script, so nothing a learner wrote runs in the browser of the instructor who reviews the page.
"""

from __future__ import annotations

import html
from collections.abc import Iterable
from pathlib import Path

from course_grade.notes import KINDS, Note, for_learner
from course_grade.report.safe_html import POLICY_META, clean_feedback
from course_grade.untrusted import printable

BEGIN, END = "<!-- course-grade notes -->", "<!-- /course-grade notes -->"
ANCHOR = '<div class="container">'

STYLE = (
    "border:2px solid #c0392b;border-radius:6px;padding:10px 16px;margin:16px 0;"
    "background:#fdf2f0;font-family:sans-serif"
)


def _e(text: str) -> str:
    """Text escaped for HTML, its control and format characters shown as escapes (`\\u202e`)."""
    return html.escape(printable(text))


def notes_panel(notes: Iterable[Note]) -> str:
    """The block listing the notes, as HTML."""
    items = "".join(
        f"<li><strong>{_e(KINDS.get(note.kind, note.kind))}</strong>: {_e(note.text)}</li>" for note in notes
    )
    return (
        f'{BEGIN}<div class="grading-notes" style="{STYLE}"><h4>Grading notes</h4><ul>{items}</ul></div>{END}'
    )


def with_notes(page: str, notes: list[Note]) -> str:
    """nbgrader's feedback page with the notes panel at the top (replacing an earlier one: reruns are clean)."""
    if BEGIN in page and END in page:
        page = page[: page.index(BEGIN)] + page[page.index(END) + len(END) :]
    if not notes:
        return page
    panel = notes_panel(notes)
    if ANCHOR in page:
        return page.replace(ANCHOR, ANCHOR + panel, 1)
    return page.replace("<body>", "<body>" + panel, 1) if "<body>" in page else panel + page


def page_without_notebook(notebook: str, score: float, max_score: float, notes: list[Note]) -> str:
    """A feedback page for a notebook nbgrader had nothing to render for."""
    title = _e(notebook)
    return (
        f'<!DOCTYPE html>\n<html><head><meta charset="utf-8">{POLICY_META}<title>{title}</title></head>'
        f'<body style="font-family:sans-serif;max-width:50em;margin:2em auto">'
        f"<h1>{title} (Score: {score:.1f} / {max_score:.1f})</h1>"
        f"<p>There is no graded notebook to show: see why below.</p>{notes_panel(notes)}</body></html>\n"
    )


def finish(folder: Path, notebooks: Iterable[tuple[str, float, float]], notes: list[Note]) -> list[Path]:
    """Add the notes to each notebook's feedback in `folder`, writing a page where nbgrader wrote none.

    `notebooks` gives (name, score, max score) for each notebook of the assignment. Notes that withheld no
    point (a static flag, a trusted check's remark: `course_grade.notes.REVIEW_ONLY`) are for the instructor's
    review column, not for the learner's page.
    """
    notes = for_learner(notes)
    folder.mkdir(parents=True, exist_ok=True)
    pages = []
    for name, score, max_score in notebooks:
        page = folder / f"{name}.html"
        if page.is_file():
            text = with_notes(clean_feedback(page.read_text(encoding="utf-8", errors="replace")), notes)
        else:
            fallback_notes = notes or [Note("missing", f"{name}.ipynb was not graded.")]
            text = page_without_notebook(name, score, max_score, fallback_notes)
        if page.exists():
            page.chmod(0o644)  # nbgrader may have written it read-only for others
        page.write_text(text, encoding="utf-8", errors="backslashreplace")
        pages.append(page)
    return pages
