"""The learner's flow in a real browser: `python3 course.py lab`, the notebooks opened and run in JupyterLab.

One JupyterLab for the module (tests/support/lab_server.py), a fresh Chromium per test (tests/support/browser.py),
each test in a JupyterLab workspace of its own; screenshots of every step go to the artifacts folder.
The notebooks are the learners' versions in notebooks/, opened from JupyterLab's file browser and never saved.
"""

from __future__ import annotations

import ast
import hashlib
import json
import re
import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Locator, Page, expect

from course_lib.approval import DENIED
from course_lib.pack import SCENARIOS
from tests.support.browser import Browser, chromium_or_skip
from tests.support.lab_server import ROOT, Lab, running_lab

pytestmark = [
    pytest.mark.xdist_group("browser_lab"),  # one worker starts JupyterLab once for all of them
    pytest.mark.timeout(300),  # JupyterLab's start counts in the first test; every wait below is bounded
]

NOTEBOOKS = ROOT / "notebooks"

LOAD_MS = 90_000
"""Milliseconds JupyterLab may take to load in the page and to start a notebook's kernel."""

RUN_MS = 120_000
"""Milliseconds a cell (or Run All) may take to finish: the pack of notebook 07 runs 38 models five ways."""

STDOUT = ".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stdout']"
"""What a cell (or an Output widget) printed."""

CLICK_MS = 30_000
"""Milliseconds the outcome of a click in a widget may take to show (the kernel runs the handler, then replies)."""

EXECUTED = re.compile(r"^\[\d+\]:$")
"""An input prompt once its cell has run (not `[ ]:` nor `[*]:`)."""


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lab]:
    """`course.py lab` on a free loopback port with fresh Jupyter folders; the notebooks are unchanged after."""
    chromium_or_skip()  # before the server starts: no browser, no point
    before = fingerprint(NOTEBOOKS)
    with running_lab(tmp_path_factory.mktemp("jupyter")) as server:
        yield server
    assert fingerprint(NOTEBOOKS) == before, "the browser tests changed or added files in notebooks/"


def fingerprint(folder: Path) -> dict[str, str]:
    """Every file under `folder` (hidden ones too) and the SHA-256 of its bytes."""
    return {
        str(path.relative_to(folder)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


def cells_of(name: str) -> list[dict[str, Any]]:
    """The cells of a learners' notebook, as stored."""
    cells: list[dict[str, Any]] = json.loads((NOTEBOOKS / name).read_text())["cells"]
    return cells


def source(cell: dict[str, Any]) -> str:
    return "".join(cell["source"])


def cell_holding(name: str, text: str) -> int:
    """The position of the one code cell of the notebook whose source holds `text`."""
    cells = cells_of(name)
    found = [i for i, cell in enumerate(cells) if cell["cell_type"] == "code" and text in source(cell)]
    assert len(found) == 1, f"{len(found)} code cells of {name} hold {text!r}; the test needs exactly one"
    return found[0]


def open_notebook(browser: Browser, lab: Lab, name: str) -> Page:
    """Open JupyterLab in a workspace of the test's own, double-click the notebook in the file browser, and
    wait until its kernel is idle."""
    page = browser.page
    page.goto(lab.url(f"lab/workspaces/{name.split('.')[0]}-{secrets.token_hex(4)}"), timeout=LOAD_MS)
    expect(page.locator(".jp-LauncherCard").first).to_be_visible(timeout=LOAD_MS)  # kernel specs loaded
    page.locator(".jp-DirListing-item").filter(has_text=name).dblclick()
    expect(page.locator(".jp-NotebookPanel .jp-Notebook")).to_be_visible(timeout=LOAD_MS)
    kernel = json.loads((NOTEBOOKS / name).read_text())["metadata"]["kernelspec"]["display_name"]
    status = page.get_by_role("contentinfo").get_by_role("button", name=f"{kernel} | Idle", exact=True)
    expect(status).to_be_visible(timeout=LOAD_MS)  # the status bar: the notebook's kernel, started and idle
    return page


def cell(page: Page, index: int) -> Locator:
    """The notebook's cell at `index` (all cells are in the page: the tests turn JupyterLab's windowing off)."""
    return page.locator(".jp-NotebookPanel .jp-Notebook .jp-Cell").nth(index)


def run_cell(page: Page, index: int) -> Locator:
    """Select the cell by its prompt, run it with Ctrl+Enter as a learner would, and wait until it has run."""
    target = cell(page, index)
    target.locator(".jp-InputPrompt").click()
    expect(target).to_have_class(re.compile(r"\bjp-mod-active\b"))
    page.keyboard.press("Control+Enter")
    expect(target.locator(".jp-InputPrompt")).to_have_text(EXECUTED, timeout=RUN_MS)
    return target


def output_of(target: Locator) -> Locator:
    """The output area of a cell (a widget's own output areas are inside it)."""
    return target.locator(".jp-Cell-outputWrapper")


def test_run_all_in_01_shows_each_unwritten_exercise_and_runs_every_cell(browser: Browser, lab: Lab) -> None:
    name = "01_envelope.ipynb"
    page = open_notebook(browser, lab, name)
    browser.screenshot("opened")
    page.get_by_role("menuitem", name="Run", exact=True).click()
    page.get_by_role("menuitem", name="Run All Cells", exact=True).click()
    code_cells = [index for index, stored in enumerate(cells_of(name)) if stored["cell_type"] == "code"]
    last = cell(page, code_cells[-1]).locator(".jp-InputPrompt")
    # the last prompt counts every code cell: a fresh kernel ran them all, once each, in order
    expect(last).to_have_text(f"[{len(code_cells)}]:", timeout=RUN_MS)
    last.scroll_into_view_if_needed()
    browser.screenshot("run-all-finished")
    errors = page.locator(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']")
    shown = errors.all_text_contents()
    # nothing else broke: an unwritten exercise raises its stub's error, an unanswered quiz question its test's
    unanswered = [error for error in shown if "is not answered yet: replace None in the answer cell" in error]
    assert unanswered and all("NotImplementedError" in error or error in unanswered for error in shown), shown
    unwritten = [
        message
        for index in code_cells
        for message in re.findall(r"raise NotImplementedError\('([^']+)'\)", source(cells_of(name)[index]))
    ]
    assert unwritten, "notebook 01 has no unwritten exercise"
    for message in unwritten:
        expect(errors.filter(has_text=f"NotImplementedError: {message}").first).to_be_visible()
    errors.first.scroll_into_view_if_needed()
    browser.screenshot("not-written-yet")
    browser.assert_no_errors()


def click_in_the_dialog(browser: Browser, button: str) -> tuple[Any, dict[int, str], list[tuple[str, bool]]]:
    """In 06: propose a deletion, show the dialog, click `button`; the outcome it prints, then the notes and
    the verdicts as the next cell prints them."""
    name, page = "06_security.ipynb", browser.page
    # the loop cell: a fresh toolbox and queue, and the model's proposed deletion waiting in it
    loop = output_of(run_cell(page, cell_holding(name, '"waiting for a person:"')))
    waiting = loop.locator(STDOUT).filter(has_text="waiting for a person:").inner_text()
    [pending] = ast.literal_eval(waiting.split("waiting for a person:", 1)[1].split("|")[0].strip())
    dialog = output_of(run_cell(page, cell_holding(name, "queue.review(")))
    expect(dialog.get_by_text(f"The model asks to run {pending}", exact=True)).to_be_visible()
    browser.screenshot(f"{button}-dialog")
    dialog.get_by_role("button", name=button).click()
    verdict = {"Approve": "approved", "Deny": "denied"}[button]
    outcome = dialog.locator(STDOUT).filter(has_text=f"{verdict} -> ")  # in the dialog's Output widget
    expect(outcome).to_be_visible(timeout=CLICK_MS)
    expect(dialog.get_by_role("button", name="Approve")).to_be_disabled()  # decided: no second click
    expect(dialog.get_by_role("button", name="Deny")).to_be_disabled()
    printed = output_of(run_cell(page, cell_holding(name, 'print("verdicts:"'))).inner_text().splitlines()
    browser.screenshot(f"{button}-clicked")
    notes = ast.literal_eval(printed[0].removeprefix("notes: "))
    verdicts = ast.literal_eval(printed[1].removeprefix("verdicts: "))
    assert [call for call, _ in verdicts] == [pending], verdicts
    return json.loads(outcome.inner_text().split(" -> ", 1)[1]), notes, verdicts


def test_the_approve_and_deny_dialog_of_06_runs_or_refuses_the_call(browser: Browser, lab: Lab) -> None:
    page = open_notebook(browser, lab, "06_security.ipynb")
    run_cell(page, cell_holding("06_security.ipynb", "import ApprovalQueue"))
    approved, notes, verdicts = click_in_the_dialog(browser, "Approve")
    deleted = approved["result"]["deleted"]  # the tool ran: it says which note it deleted
    assert deleted not in notes.values() and [yes for _, yes in verdicts] == [True]
    denied, notes, verdicts = click_in_the_dialog(browser, "Deny")
    assert denied == {"error": DENIED}
    assert deleted in notes.values() and [yes for _, yes in verdicts] == [False]
    browser.assert_no_errors()


def test_the_pack_table_of_07_renders_as_html(browser: Browser, lab: Lab) -> None:
    name = "07_capstone.ipynb"
    page = open_notebook(browser, lab, name)
    run_cell(page, cell_holding(name, "from course_lib.pack import"))
    shown = output_of(run_cell(page, cell_holding(name, "display(PackTable(")))
    html = shown.locator(".jp-OutputArea-output[data-mime-type='text/html'] .course-pack")
    expect(html.locator("table")).to_have_count(3)
    scenarios = html.locator("table").first.locator("tbody tr td:first-child")
    expect(scenarios).to_have_text([scenario.name for scenario in SCENARIOS])
    expect(html.locator("table").first).to_be_visible()
    html.scroll_into_view_if_needed()
    browser.screenshot("pack-table")
    browser.assert_no_errors()


def test_the_quiz_self_check_of_01_answers_a_click(browser: Browser, lab: Lab) -> None:
    """The checkpoint quiz's widget: click an option, press Check, read the verdict; the answer cell is untouched."""
    name = "01_envelope.ipynb"
    page = open_notebook(browser, lab, name)
    quiz = output_of(run_cell(page, cell_holding(name, 'self_check("01_envelope")'))).locator(".course-quiz")
    expect(quiz).to_be_visible(timeout=CLICK_MS)
    expect(quiz).to_contain_text("C. Two call envelopes, in the order of tool_calls, and no final envelope")
    letters = quiz.locator(".widget-toggle-buttons")  # the choice questions' buttons: 1, 3 and 4
    letters.nth(0).get_by_role("button", name="C", exact=True).click()  # question 1, the key's answer
    letters.nth(1).get_by_role("button", name="B", exact=True).click()  # question 3, not the key's answer
    quiz.get_by_role("button", name="Check").click()
    verdicts = quiz.locator(".widget-html").last
    expect(verdicts).to_contain_text("1: right", timeout=CLICK_MS)
    expect(verdicts).to_contain_text("2: not answered yet")
    expect(verdicts).to_contain_text("3: not this one. The idea: dict(raw) is a shallow copy")
    quiz.scroll_into_view_if_needed()
    browser.screenshot("quiz-self-check")
    browser.assert_no_errors()
