"""The browser helpers (tests/support/browser.py) catch what a page logs and throws, and keep screenshots."""

from __future__ import annotations

from pathlib import Path

import pytest

import tests.support.browser
from tests.support.browser import Browser, chromium_or_skip

PAGE = """<button onclick="console.error('a console error'); throw new TypeError('an uncaught error')">go</button>"""


def test_console_errors_and_uncaught_errors_fail_the_check(browser: Browser) -> None:
    browser.page.set_content(PAGE)
    browser.page.get_by_role("button", name="go").click()
    browser.page.wait_for_function("() => true")  # one round trip: the page's events have reached Python
    with pytest.raises(AssertionError, match="2 browser error") as failure:
        browser.assert_no_errors()
    assert "console error at" in str(failure.value) and "TypeError: an uncaught error" in str(failure.value)


def test_an_allowed_error_passes_only_with_its_reason(browser: Browser) -> None:
    browser.page.set_content(PAGE)
    with pytest.raises(ValueError, match="reason"):
        browser.allow("an uncaught error", " ")
    browser.allow("a console error", "the test page logs it on purpose")
    browser.allow("TypeError: an uncaught error", "the test page throws it on purpose")
    browser.page.get_by_role("button", name="go").click()
    browser.page.wait_for_function("() => true")
    browser.assert_no_errors()


def test_screenshots_are_numbered_png_files_in_the_tests_folder(browser: Browser) -> None:
    browser.page.set_content("<h1>a step</h1>")
    first, second = browser.screenshot("first step"), browser.screenshot("second")
    assert [first.name, second.name] == ["01-first-step.png", "02-second.png"]
    assert first.parent == browser.folder and first.read_bytes().startswith(b"\x89PNG")


@pytest.mark.parametrize("ci", ["true", ""])
def test_a_missing_chromium_fails_under_ci_and_skips_elsewhere(
    ci: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(tests.support.browser, "CHROMIUM", tmp_path / "no-chromium")
    monkeypatch.setenv("CI", ci)
    outcome = pytest.fail.Exception if ci == "true" else pytest.skip.Exception
    with pytest.raises(outcome, match="apt-get install chromium"):
        chromium_or_skip()
