"""The README's first command opens JupyterLab on the learners' notebooks, without nbgrader's instructor tools."""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.request
from pathlib import Path

from tests.support.lab_server import ROOT, Lab, running_lab

INSTRUCTOR_PLUGINS = ("formgrader", "create-assignment", "course-list")
LEARNER_PLUGINS = ("assignment-list", "menu")
"""nbgrader's Assignments tab and its menu entry: how learners on a hub fetch, validate and submit."""


def status(lab: Lab, path: str) -> int:
    try:
        with urllib.request.urlopen(lab.url(path), timeout=10) as answer:
            return int(answer.status)
    except urllib.error.HTTPError as error:
        return error.code


def test_course_py_lab_serves_the_learners_notebooks_with_the_assignments_tab_and_no_instructor_tools(
    tmp_path: Path,
) -> None:
    with running_lab(tmp_path) as lab:
        listing = lab.get_json("api/contents")
        with urllib.request.urlopen(lab.url("lab"), timeout=10) as answer:
            lab_page = answer.read()
        formgrader = status(lab, "formgrader")
        assignments = status(lab, "assignments")
    names = sorted(item["name"] for item in listing["content"] if item["type"] == "notebook")
    assert names == sorted(path.name for path in (ROOT / "notebooks").glob("*.ipynb")) and len(names) >= 6
    assert b"JupyterLab" in lab_page
    found = re.search(
        rb'<script id="jupyter-config-data" type="application/json">(.*?)</script>', lab_page, re.S
    )
    disabled = json.loads(found.group(1))["disabledExtensions"] if found else []
    assert all(f"@jupyter/nbgrader:{plugin}" in disabled for plugin in INSTRUCTOR_PLUGINS), disabled
    assert formgrader == 404, "nbgrader's formgrader is served to learners"
    hidden = [plugin for plugin in LEARNER_PLUGINS if f"@jupyter/nbgrader:{plugin}" in disabled]
    assert not hidden, f"the learners' config hides what they fetch and submit with: {hidden}"
    assert assignments != 404, "nbgrader's assignment list (the Assignments tab's server side) is off"
