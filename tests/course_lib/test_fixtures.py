import json
from importlib import resources

import pytest

from course_lib.fixtures import fixture_names, load_fixture

LISTS = ["envelope_accepted", "envelope_rejected", "stock_accepted", "stock_rejected"]
EXPECTED = [
    "arithmetic_cases",
    "desk_pack_reference",
    "envelope_accepted",
    "envelope_rejected",
    "stock_accepted",
    "stock_rejected",
    "tools_reference",
]


def test_fixture_names_lists_every_published_file() -> None:
    assert fixture_names() == EXPECTED


@pytest.mark.parametrize("name", EXPECTED)
def test_fixture_files_are_pretty_printed_with_sorted_keys(name: str) -> None:
    text = (resources.files("course_lib.fixtures") / f"{name}.json").read_text(encoding="utf-8")
    assert text == json.dumps(json.loads(text), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


@pytest.mark.parametrize("name", LISTS)
def test_every_entry_says_why(name: str) -> None:
    assert all(type(case["why"]) is str and case["why"] for case in load_fixture(name))


def test_every_refused_arithmetic_case_says_why() -> None:
    assert all(case["why"] for case in load_fixture("arithmetic_cases")["refused"])


def test_load_fixture_returns_fresh_data() -> None:
    load_fixture("stock_accepted").clear()
    assert load_fixture("stock_accepted")


@pytest.mark.parametrize("name", ["../pyproject", "Stock_Rejected", "stock_rejected.json", "", "a/b", "x\n"])
def test_name_outside_the_pattern_is_rejected(name: str) -> None:
    with pytest.raises(ValueError, match="fixture name must match"):
        load_fixture(name)


def test_unknown_name_lists_the_available_ones() -> None:
    with pytest.raises(
        ValueError, match="unknown fixture 'nope'; available: arithmetic_cases, desk_pack_reference, "
    ):
        load_fixture("nope")
