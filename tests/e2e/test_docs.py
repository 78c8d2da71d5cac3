"""The documentation site (docs/, `python3 course.py docs`): built once per session, offline, with no warning;
read as a person would in Chromium; holding no hidden test, solution or quiz answer; and missing no CLI option,
public course_lib name or notebook (issue 40)."""

from __future__ import annotations

import ast
import html
import json
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from functools import partial
from html.parser import HTMLParser
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urldefrag, urljoin, urlsplit

import pytest

import course
from course_grade.cli import parser as course_grade_parser
from tests.test_layers import _exists

if TYPE_CHECKING:
    from tests.support.browser import Browser

pytestmark = pytest.mark.xdist_group("docs")  # one worker builds the site, once

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
NOT_ON_THE_SITE = {"course_lib.quiz_answers"}
"""course_lib modules the reference leaves out: the quizzes' answers (keys)."""


@dataclass(frozen=True)
class Site:
    html: Path
    warnings: str
    returncode: int
    seconds: float

    def pages(self) -> list[Path]:
        return sorted(self.html.rglob("*.html"))


@pytest.fixture(scope="session")
def site(tmp_path_factory: pytest.TempPathFactory) -> Site:
    """The site as `course.py docs` builds it (warnings as errors), into a folder of this session."""
    import time

    out = tmp_path_factory.mktemp("docs") / "html"
    doctrees = out.parent / "doctrees"
    command = [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html", "-d", str(doctrees)]
    start = time.monotonic()
    done = subprocess.run([*command, str(DOCS), str(out)], capture_output=True, text=True, cwd=ROOT)
    return Site(out, done.stderr, done.returncode, time.monotonic() - start)


class _Page(HTMLParser):
    """A page's ids, links, resources and text."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.links: list[str] = []
        self.resources: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {name: value or "" for name, value in attrs}
        if "id" in values:
            self.ids.add(values["id"])
        if tag == "a" and "href" in values:
            self.links.append(values["href"])
        if tag in ("script", "img", "iframe") and values.get("src"):
            self.resources.append(values["src"])
        if tag == "link" and values.get("href"):
            self.resources.append(values["href"])

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def read_page(path: Path) -> _Page:
    page = _Page()
    page.feed(path.read_text(encoding="utf-8"))
    return page


def test_the_site_builds_without_a_warning(site: Site) -> None:
    """The build's time (about 20 s on a quiet 2-core machine) shows in `pytest --durations` as this setup."""
    assert site.returncode == 0 and site.warnings == "", site.warnings


def test_every_internal_link_and_anchor_resolves(site: Site) -> None:
    pages = {path: read_page(path) for path in site.pages()}
    broken = []
    for path, page in pages.items():
        for link in page.links:
            if urlsplit(link).scheme or link.startswith("mailto:"):
                continue
            target, anchor = urldefrag(urljoin(path.as_uri(), link))
            target_path = Path(urlsplit(target).path)
            if target_path.is_dir():
                target_path /= "index.html"
            if not target_path.exists():
                broken.append(f"{path.relative_to(site.html)}: {link} (no such file)")
            elif anchor and target_path.suffix == ".html":
                ids = pages[target_path].ids if target_path in pages else read_page(target_path).ids
                if anchor not in ids:
                    broken.append(f"{path.relative_to(site.html)}: {link} (no such anchor)")
    assert not broken, "\n".join(broken)


def test_no_page_loads_anything_from_the_network(site: Site) -> None:
    remote = [
        f"{path.relative_to(site.html)}: {resource}"
        for path in site.pages()
        for resource in read_page(path).resources
        if urlsplit(resource).scheme in ("http", "https") or resource.startswith("//")
    ]
    assert not remote, "\n".join(remote)
    for css in site.html.rglob("*.css"):
        assert not re.search(r"url\(\s*['\"]?(https?:)?//", css.read_text(encoding="utf-8")), css


def _region_lines(source: str, begin: str, end: str) -> Iterator[str]:
    inside = False
    for line in source.splitlines():
        if begin in line:
            inside = True
        elif end in line:
            inside = False
        elif inside:
            yield line.strip()


def _secret_lines() -> set[str]:
    """Lines of grading/source's hidden tests and solutions, and the quizzes' answer rules, that no learners'
    notebook shows (a line a learner sees anyway, `return result`, is no secret); long enough to be telling."""
    secrets: set[str] = set()
    for notebook in sorted((ROOT / "grading" / "source").glob("*/*.ipynb")):
        for cell in json.loads(notebook.read_text(encoding="utf-8"))["cells"]:
            source = "".join(cell["source"])
            secrets |= set(_region_lines(source, "### BEGIN HIDDEN TESTS", "### END HIDDEN TESTS"))
            secrets |= set(_region_lines(source, "### BEGIN SOLUTION", "### END SOLUTION"))
    import course_lib.quiz_answers as answers

    for module in sorted((ROOT / "course_lib" / "quiz_answers").glob("n*.py")):
        keys = __import__(f"{answers.__name__}.{module.stem}", fromlist=["ANSWERS"]).ANSWERS
        secrets |= {key.rule for key in keys}
    from course_grade.release.keys import KEYS

    keys = {module for modules in KEYS.values() for module in modules}
    shown = [  # what a learner reads anyway: the learners' notebooks and the library's infrastructure
        "".join(cell["source"])
        for notebook in sorted((ROOT / "notebooks").glob("*.ipynb"))
        for cell in json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    ]
    shown += [
        path.read_text(encoding="utf-8")
        for path in (ROOT / "course_lib").rglob("*.py")
        if ".".join(path.relative_to(ROOT).with_suffix("").parts) not in keys
    ]
    seen = " ".join(
        " ".join(shown).replace("`", "").split()
    )  # the prose's `code` reads as plain text on a page
    return {line for line in secrets if len(line) >= 30 and " ".join(line.split()) not in seen}


def test_no_page_holds_a_hidden_test_a_solution_or_a_quiz_answer(site: Site) -> None:
    secrets = _secret_lines()
    assert len(secrets) > 500  # the check checks something
    found = []
    for path in [*site.pages(), *site.html.rglob("*.js"), *site.html.rglob("*.txt")]:
        text = path.read_text(encoding="utf-8", errors="replace")
        text = " ".join(
            html.unescape("".join(read_page(path).text) if path.suffix == ".html" else text).split()
        )
        found += [
            f"{path.relative_to(site.html)}: {line}" for line in secrets if " ".join(line.split()) in text
        ]
    assert not found, "\n".join(found[:20])


def test_every_notebook_is_a_page(site: Site) -> None:
    for notebook in sorted((ROOT / "notebooks").glob("*.ipynb")):
        assert (site.html / "learners" / "notebooks" / f"{notebook.stem}.html").exists(), notebook.name


def _public_names(path: Path, module: str) -> Iterator[str]:
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names = [node.name]
        elif isinstance(node, ast.Assign):
            names = [target.id for target in node.targets if isinstance(target, ast.Name)]
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names = [node.target.id]
        else:
            continue
        yield from (f"{module}.{name}" for name in names if not name.startswith("_"))


def test_every_public_name_of_course_lib_is_in_the_reference(site: Site) -> None:
    documented = read_page(site.html / "reference" / "api.html").ids
    missing = []
    for path in sorted((ROOT / "course_lib").rglob("*.py")):
        module = ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
        if module.endswith("__main__") or any(module.startswith(left) for left in NOT_ON_THE_SITE):
            continue
        if f"module-{module}" not in documented:
            missing.append(f"{module} (the module)")
        missing += [name for name in _public_names(path, module) if name not in documented]
    assert not missing, "\n".join(missing)


def _options(parser: object) -> Iterator[str]:
    import argparse

    assert isinstance(parser, argparse.ArgumentParser)
    for action in parser._actions:
        yield from action.option_strings
        if isinstance(action, argparse._SubParsersAction):
            yield from action.choices
            for sub in action.choices.values():
                yield from _options(sub)


def test_every_option_of_both_command_lines_is_in_their_reference(site: Site) -> None:
    for page, parser in (("course-grade", course_grade_parser()), ("course-py", course.parser())):
        text = "".join(read_page(site.html / "reference" / f"{page}.html").text)
        missing = sorted({option for option in _options(parser) if option not in text} - {"-h", "--help"})
        assert not missing, f"{page}: {missing}"


@pytest.mark.parametrize("page", sorted(str(p.relative_to(DOCS)) for p in DOCS.rglob("*.md")))
def test_every_module_a_page_names_exists(page: str) -> None:
    """As tests/test_layers.py checks the README: a path or dotted name of course_lib or course_grade exists."""
    problems = []
    for number, line in enumerate((DOCS / page).read_text(encoding="utf-8").splitlines(), 1):
        for found in re.findall(r"(?<![\w./])((?:course_grade|course_lib)(?:/[\w.]+)+/?)", line):
            if not (ROOT / found).exists():
                problems.append(f"{page}:{number}: {found} does not exist")
        for found in re.findall(r"(?<![\w./-])((?:course_grade|course_lib)(?:\.[A-Za-z_]\w*)+)", line):
            if not _exists(found) and found.removeprefix("course_lib.") not in ("quiz_answers",):
                problems.append(f"{page}:{number}: {found} names no module (or name in one)")
    assert not problems, "\n".join(problems)


@pytest.fixture(scope="session")
def served(site: Site) -> Iterator[str]:
    """The built site over HTTP on loopback (Sphinx's search fetches pages, which file:// refuses)."""
    handler = partial(_QuietHandler, directory=str(site.html))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


def test_every_page_opens_in_a_browser_without_an_error(site: Site, served: str, browser: Browser) -> None:
    page = browser.page
    page.goto(served + "index.html")
    browser.screenshot("home")
    for path in site.pages():
        page.goto(served + path.relative_to(site.html).as_posix())
        browser.assert_no_errors()


def test_a_notebook_page_shows_a_worked_examples_output(served: str, browser: Browser) -> None:
    from playwright.sync_api import expect

    browser.page.goto(served + "learners/notebooks/01_envelope.html")
    outputs = browser.page.locator(".cell_output")
    expect(outputs.first).to_be_visible()
    assert outputs.count() >= 5
    browser.screenshot("notebook-01")


@pytest.mark.parametrize("word", ["sandbox", "previous_response_id"])
def test_the_search_box_finds(word: str, served: str, browser: Browser) -> None:
    from playwright.sync_api import expect

    page = browser.page
    page.goto(served + "index.html")
    box = page.locator("input[name=q]").first
    box.fill(word)
    box.press("Enter")
    results = page.locator("#search-results ul.search li")
    expect(results.first).to_be_visible()
    browser.screenshot(f"search-{word}")
