"""A class on a real JupyterHub: nbgrader's exchange, the Assignments tab, course-grade and feedback, end to end.

One hub for the module (tests/support/hub_server.py): an instructor and two learners, real Unix accounts, 01_envelope
released into the exchange. Learners work in Chromium as they would; the instructor's commands run as the
instructor, in their course directory, as in a hub terminal.
"""

from __future__ import annotations

import json
import re
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from course_grade.hub.layout import HubSettings
from tests.support.browser import Browser
from tests.support.hub_server import as_instructor, as_learner, running_hub

pytestmark = [pytest.mark.timeout(600), pytest.mark.xdist_group("hub")]

ASSIGNMENT = "01_envelope"
SOURCE = Path(__file__).resolve().parents[2] / "grading" / "source" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"


@pytest.fixture(scope="module")
def hub() -> Iterator[HubSettings]:
    folder = Path(
        tempfile.mkdtemp(prefix="course-hub-")
    )  # not pytest's tmp_path: it is 0700, closed to the accounts
    try:
        folder.chmod(0o755)
        with running_hub(folder / "hub", learners=2, assignments=[ASSIGNMENT]) as settings:
            yield settings
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def solution(grade_id: str) -> str:
    """The instructor's solution cell `grade_id`, without nbgrader's markers: what a correct learner writes."""
    cells = json.loads(SOURCE.read_text())["cells"]
    (cell,) = [c for c in cells if c["metadata"].get("nbgrader", {}).get("grade_id") == grade_id]
    return re.sub(r"\n?[ \t]*### (BEGIN|END) SOLUTION", "", "".join(cell["source"]))


def hidden_test_lines(public: str) -> list[str]:
    """Every line of the instructor's hidden tests long enough to be recognised if it leaked, but for those
    the learner may see anyway (`public`: the learners' notebook and their own answer)."""
    lines = []
    for cell in json.loads(SOURCE.read_text())["cells"]:
        hidden = re.findall(
            r"### BEGIN HIDDEN TESTS\n(.*?)### END HIDDEN TESTS", "".join(cell["source"]), re.S
        )
        lines += [line.strip() for region in hidden for line in region.splitlines() if len(line.strip()) > 24]
    lines = [
        line for line in lines if line not in public and not line.startswith("# rule:")
    ]  # rules are shown
    assert lines, "the assignment has hidden tests to look for"
    return lines


def log_in(page: Page, settings: HubSettings, account: str) -> None:
    """Log in at the hub's login page and wait for the account's JupyterLab."""
    page.goto(settings.url("hub/logout"))
    page.goto(settings.url("hub/login"))
    password = settings.admin_password if account == settings.instructor else settings.user_password
    page.fill("#username_input", account)
    page.fill("#password_input", password)
    page.click("#login_submit")
    expect(page.locator(".jp-LabShell")).to_be_visible(timeout=120_000)


def open_assignments(page: Page) -> None:
    """Open the Assignments tab from nbgrader's menu, as a learner finds it."""
    page.get_by_role("menuitem", name="Nbgrader").click()
    page.get_by_text("Assignment List").click()
    expect(page.locator("#released_assignments_list, #fetched_assignments_list").first).to_be_visible()


def fetch_and_submit(browser: Browser, settings: HubSettings, learner: str, answer: str | None) -> None:
    """Log in, fetch the assignment, write `answer` into Part A's solution cell (None: leave it blank), submit."""
    page = browser.page
    log_in(page, settings, learner)
    open_assignments(page)
    page.locator("#released_assignments_list").get_by_role("button", name="Fetch").click()
    fetched = page.locator("#fetched_assignments_list")
    expect(fetched.get_by_role("button", name="Submit")).to_be_visible()
    browser.screenshot(f"{learner}-fetched")
    if answer is not None:
        fetched.get_by_role("button", name=ASSIGNMENT).click()
        fetched.locator(".nested_list_item a").click()
        cell = page.locator(".jp-Notebook .jp-CodeCell").filter(has_text="def parse_envelope")
        cell = cell.filter(has_text="YOUR CODE HERE")
        cell.locator(".cm-content").click()
        page.keyboard.press("Control+a")
        page.keyboard.insert_text(answer)
        page.keyboard.press("Control+s")
        expect(page.locator(".jp-mod-dirty")).to_have_count(0)  # saved
        browser.screenshot(f"{learner}-answer-written")
        page.get_by_role("tab", name="Assignments").click()
        fetched.locator(".nested_list_item").get_by_role("button", name="Validate").click()
        dialog = page.locator(".jp-Dialog")
        expect(dialog).to_contain_text("Validation Results", timeout=120_000)
        browser.screenshot(f"{learner}-validated")
        dialog.get_by_role("button").last.click()
    fetched.get_by_role("button", name="Submit").click()
    expect(page.locator("#submitted_assignments_list")).to_contain_text(ASSIGNMENT)
    browser.screenshot(f"{learner}-submitted")


def fetch_feedback(browser: Browser, settings: HubSettings, learner: str) -> str:
    """Log in, fetch the feedback from the Assignments tab, open it; return the page's text."""
    page = browser.page
    log_in(page, settings, learner)
    open_assignments(page)
    submitted = page.locator("#submitted_assignments_list")
    submitted.get_by_role("button", name="Fetch Feedback").click()
    expect(submitted.get_by_text("view feedback")).to_be_visible()
    browser.screenshot(f"{learner}-feedback-fetched")
    (page_file,) = (settings.home(learner) / ASSIGNMENT / "feedback").glob(f"*/{ASSIGNMENT}.html")
    relative = page_file.relative_to(settings.home(learner))
    page.goto(settings.url(f"user/{learner}/files/{relative}"))
    browser.screenshot(f"{learner}-feedback")
    return page.locator("body").inner_text()


def formgrader_autograde_refuses(browser: Browser, settings: HubSettings, learner: str) -> None:
    """As the instructor, press the formgrader's Autograde for `learner`: it refuses and names course-grade."""
    page = browser.page
    log_in(page, settings, settings.instructor)
    page.get_by_role("menuitem", name="Nbgrader").click()
    page.locator("#jp-mainmenu-nbgrader").get_by_text("Formgrader", exact=True).click()
    formgrader = page.frame_locator("iframe").first  # blank if the hub forbade framing the server's own pages
    formgrader.locator("td.num-submissions a").first.click()
    formgrader.locator("tr", has_text=learner).locator("td.autograde a").click()
    refusal = formgrader.locator(".modal-dialog")
    expect(refusal).to_contain_text(f"course-grade autograde submitted {ASSIGNMENT}", timeout=120_000)
    browser.screenshot("instructor-formgrader-autograde-refused")
    refusal.get_by_role("button", name="Close").first.click()


def test_a_class_fetches_submits_is_graded_by_course_grade_and_reads_its_feedback_on_the_hub(
    hub: HubSettings, browser: Browser
) -> None:
    first, second = hub.learners
    fetch_and_submit(browser, hub, first, solution("parse_envelope"))
    fetch_and_submit(browser, hub, second, None)

    as_instructor(hub, "nbgrader", "collect", ASSIGNMENT)
    formgrader_autograde_refuses(browser, hub, first)
    graded = as_instructor(hub, "course-grade", "run", "submitted", "--sandbox", "on")
    assert "failed" not in graded, graded
    released = as_instructor(hub, "nbgrader", "release_feedback", ASSIGNMENT)
    assert released.count("Feedback released to") == 2, released

    released = Path(hub.exchange) / "tool-call-boundary" / "outbound" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    cells = json.loads(released.read_text())["cells"]
    leaked = hidden_test_lines(
        "\n".join("".join(cell["source"]) for cell in cells) + solution("parse_envelope")
    )
    for learner, score in ((first, "15"), (second, "0")):
        text = fetch_feedback(browser, hub, learner)
        assert re.search(rf"Score:\s*{score}(\.0)?\s*/\s*24", text), text[:2000]
        shown = [line for line in leaked if line in text]
        assert not shown, f"{learner}'s feedback shows hidden tests: {shown[:3]}"
    browser.assert_no_errors()


def test_a_learners_server_holds_the_learners_edition_and_cannot_read_the_course(hub: HubSettings) -> None:
    learner = hub.learners[0]
    python = hub.python["learner"]
    probe = "import course_lib; print(course_lib.__file__); import course_lib.envelope"
    found = as_learner(hub, learner, python, "-c", probe)
    assert found.stdout.startswith(str(Path(hub.root) / "edition")), found
    assert "No module named 'course_lib.envelope'" in found.stderr, found.stderr
    assert (
        "No module named 'course_grade'"
        in as_learner(hub, learner, python, "-c", "import course_grade").stderr
    )
    course = as_learner(hub, learner, "ls", str(hub.course / "source"))
    assert course.returncode != 0 and "Permission denied" in course.stderr, course
    key = as_learner(
        hub, learner, "cat", str(hub.home(hub.instructor) / "packages" / "course_lib" / "envelope.py")
    )
    assert key.returncode != 0 and "Permission denied" in key.stderr, "a learner reads the instructor's keys"
    found = as_learner(hub, learner, "find", hub.root, "-name", "envelope.py")  # 01's key, anywhere in view
    assert found.stdout == "", f"a learner finds 01's key: {found.stdout}"


def test_the_instructors_server_has_the_whole_course_and_the_learners_config_keeps_the_assignments_tab(
    hub: HubSettings,
) -> None:
    imports = as_instructor(hub, "python", "-c", "import course_lib.envelope, course_grade.cli; print('ok')")
    assert "ok" in imports
    labconfig = json.loads((Path(hub.config_path["learner"]) / "labconfig" / "page_config.json").read_text())
    disabled = labconfig["disabledExtensions"]
    assert disabled.get("@jupyter/nbgrader:formgrader") and disabled.get(
        "@jupyter/nbgrader:create-assignment"
    )
    assert not disabled.get("@jupyter/nbgrader:assignment-list") and not disabled.get(
        "@jupyter/nbgrader:menu"
    )
