"""A real browser for the tests: Playwright driving Debian's Chromium, every browser error kept, a screenshot per step.

`open_browser` launches /usr/bin/chromium (Debian's package, which `python3 course.py test` installs as root;
Playwright's own browser download is never used) headless, with a fresh empty profile folder and the flags
that keep it off the network, and yields a `Browser`: its Playwright `page`, the errors the page logged to
its console or threw uncaught, and `screenshot(step)`, which keeps a PNG in the artifacts folder
(`$COURSE_TEST_ARTIFACTS`, else `test-artifacts/` at the repository's root), one subfolder per test.
The `browser` fixture (tests/conftest.py) gives one per test; without Chromium the tests skip, saying why,
except under CI, where they fail. A page from disk opens as any other:

    def test_the_report_opens_from_disk(browser: Browser, tmp_path: Path) -> None:
        browser.page.goto((tmp_path / "report.html").as_uri())
        expect(browser.page.get_by_role("table").first).to_be_visible()
        browser.screenshot("report")
        browser.assert_no_errors()
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from playwright.sync_api import ConsoleMessage, Error, Page, ViewportSize, expect, sync_playwright

ROOT = Path(__file__).resolve().parents[2]

CHROMIUM = Path("/usr/bin/chromium")
"""Debian's Chromium (package `chromium`)."""

CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",  # the tests run as root in CI, where Chromium's own sandbox refuses to start
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",  # without these three, Chromium's calls home are refused by the closed
    "--disable-component-update",  # network, many at a time, and slow every start
    "--disable-sync",
)
"""Chromium's command-line flags: headless, and no traffic but the pages a test opens."""

VIEWPORT: ViewportSize = {"width": 1400, "height": 900}
"""The window size of every page, so that screenshots compare from run to run."""

ARTIFACTS_VARIABLE = "COURSE_TEST_ARTIFACTS"
"""The environment variable naming the folder screenshots go to (default: test-artifacts/ in the repository)."""

ACTION_TIMEOUT_MS = 30_000
"""Milliseconds any Playwright action (a click, a navigation) or `expect` waits, unless told otherwise, before it
fails: generous, since the suite runs on every core of a 2-core machine."""

expect.set_options(timeout=ACTION_TIMEOUT_MS)  # Playwright's default of 5 s is short on a loaded machine


def chromium_or_skip() -> Path:
    """Debian's Chromium; skip the test when it is missing, or fail under CI, which must run the browser tests."""
    if CHROMIUM.exists():
        return CHROMIUM
    reason = f"{CHROMIUM} is not installed (Debian: apt-get install chromium; `python3 course.py test` does it as root)"
    if os.environ.get("CI") == "true":
        pytest.fail(f"CI must run the browser tests: {reason}", pytrace=False)
    pytest.skip(reason)


def artifacts_folder(test_id: str) -> Path:
    """An empty folder for one test's screenshots, named from its pytest node id, under the artifacts folder."""
    root = Path(os.environ.get(ARTIFACTS_VARIABLE) or ROOT / "test-artifacts")
    folder = root / re.sub(r"[^A-Za-z0-9_.-]+", "-", test_id).strip("-")
    shutil.rmtree(folder, ignore_errors=True)  # screenshots of an earlier run would mislead
    folder.mkdir(parents=True)
    return folder


@dataclass
class Browser:
    """A page in Chromium, the errors it has logged, and its screenshots."""

    page: Page
    folder: Path
    """Where `screenshot` writes."""
    errors: list[str] = field(default_factory=list)
    """Every console error and uncaught page error so far, as text, in order."""
    allowed: list[tuple[re.Pattern[str], str]] = field(default_factory=list)
    """Patterns of errors a test has declared harmless, each with its reason."""
    shots: list[Path] = field(default_factory=list)
    checked: int = 0
    """How many of `errors` an `assert_no_errors` has looked at already."""

    def record_console(self, message: ConsoleMessage) -> None:
        """Keep a console message of type error (warnings and logs are not failures)."""
        if message.type == "error":
            where = f"{message.location.get('url', '?')}:{message.location.get('lineNumber', '?')}"
            self.errors.append(f"console error at {where}: {message.text}")

    def record_page_error(self, error: Error) -> None:
        """Keep an exception the page's scripts did not catch."""
        self.errors.append(
            f"uncaught page error: {error.name}: {error.message}\n{error.stack or ''}".rstrip()
        )

    def allow(self, pattern: str, why: str) -> None:
        """Declare errors matching `pattern` (a regular expression) harmless; `why` says why, for the reader."""
        if not why.strip():
            raise ValueError("an allowed browser error needs its reason")
        self.allowed.append((re.compile(pattern), why))

    def unexpected_errors(self, start: int = 0) -> list[str]:
        """The errors (from the `start`-th on) that no `allow` covers."""
        return [
            error
            for error in self.errors[start:]
            if not any(pattern.search(error) for pattern, _ in self.allowed)
        ]

    def assert_no_errors(self, *, new_only: bool = False) -> None:
        """Fail, listing them, on errors no `allow` covers (all, or with `new_only` those since the last check)."""
        start, self.checked = (self.checked if new_only else 0), len(self.errors)
        unexpected = self.unexpected_errors(start)
        assert not unexpected, f"{len(unexpected)} browser error(s):\n" + "\n".join(unexpected)

    def screenshot(self, step: str) -> Path:
        """Keep a PNG of the whole window as `NN-step.png` in this test's folder and return its path."""
        name = re.sub(r"[^A-Za-z0-9_.-]+", "-", step).strip("-")
        path = self.folder / f"{len(self.shots) + 1:02d}-{name}.png"
        self.page.screenshot(path=str(path))
        self.shots.append(path)
        return path


@contextlib.contextmanager
def open_browser(folder: Path, profile: Path) -> Iterator[Browser]:
    """Launch Chromium on the empty profile folder `profile` and yield a `Browser` whose screenshots go to `folder`.

    A last screenshot, `NN-at-end.png`, is taken when the block ends (it shows where a failed test stopped).
    """
    executable = chromium_or_skip()
    profile.mkdir(parents=True, exist_ok=True)
    if any(profile.iterdir()):
        raise ValueError(f"the browser's profile folder must be empty: {profile}")
    with sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            str(profile),
            executable_path=str(executable),
            headless=True,
            args=list(CHROMIUM_FLAGS),
            viewport=VIEWPORT,
        )
        try:
            context.set_default_timeout(ACTION_TIMEOUT_MS)
            page = context.pages[0] if context.pages else context.new_page()
            browser = Browser(page, folder)
            page.on("console", browser.record_console)
            page.on("pageerror", browser.record_page_error)
            try:
                yield browser
            finally:
                with contextlib.suppress(Error):
                    browser.screenshot("at-end")
        finally:
            context.close()
