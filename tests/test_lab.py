"""The README's first command opens JupyterLab on the learners' notebooks, without nbgrader's instructor tools."""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.request
from pathlib import Path

from tests.lab_server import ROOT, Lab, running_lab

INSTRUCTOR_PLUGINS = ("formgrader", "create-assignment", "course-list")


def formgrader_status(lab: Lab) -> int:
    try:
        with urllib.request.urlopen(lab.url("formgrader"), timeout=10) as answer:
            return int(answer.status)
    except urllib.error.HTTPError as error:
        return error.code


def test_course_py_lab_serves_the_learners_notebooks_in_order_without_instructor_tools(
    tmp_path: Path,
) -> None:
    with running_lab(tmp_path) as lab:
        listing = lab.get_json("api/contents")
        with urllib.request.urlopen(lab.url("lab"), timeout=10) as answer:
            lab_page = answer.read()
        formgrader = formgrader_status(lab)
    names = sorted(item["name"] for item in listing["content"] if item["type"] == "notebook")
    assert names == sorted(path.name for path in (ROOT / "notebooks").glob("*.ipynb")) and len(names) >= 6
    assert b"JupyterLab" in lab_page
    found = re.search(
        rb'<script id="jupyter-config-data" type="application/json">(.*?)</script>', lab_page, re.S
    )
    disabled = json.loads(found.group(1))["disabledExtensions"] if found else []
    assert all(f"@jupyter/nbgrader:{plugin}" in disabled for plugin in INSTRUCTOR_PLUGINS), disabled
    assert formgrader == 404, "nbgrader's formgrader is served to learners"
