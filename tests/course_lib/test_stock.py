import json
import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from course_lib import stock
from course_lib.errors import DispatchError
from course_lib.fixtures import load_fixture
from course_lib.inventory import MAX_REQUEST_BYTES, STOCK, STOCK_TOOLS, ToolRule
from course_lib.stock import dispatch, dispatch_with

ACCEPTED = load_fixture("stock_accepted")
REJECTED = load_fixture("stock_rejected")
PEN = '{"name":"stock_lookup","arguments":{"sku":"PEN"}}'
ADD = ToolRule(frozenset({"a", "b"}), lambda args: {"sum": args["a"] + args["b"]})
VALID_RESULTS = [{"sku": "PEN", "available": 12}, {"sku": "BOOK", "available": 3}]


def request(name: str = "stock_lookup", **arguments: Any) -> str:
    return json.dumps({"name": name, "arguments": arguments})


@pytest.mark.parametrize("case", ACCEPTED, ids=[case["why"] for case in ACCEPTED])
def test_accepted_fixture(case: dict[str, Any]) -> None:
    assert dispatch(case["raw"]) == case["expected"]


@pytest.mark.parametrize("case", REJECTED, ids=[case["why"] for case in REJECTED])
def test_rejected_fixture(case: dict[str, Any]) -> None:
    with pytest.raises(DispatchError, match=re.escape(case["match"])):
        dispatch(case["raw"])


def test_the_seven_seed_rejections_come_first() -> None:
    assert [case["why"].startswith("seed:") for case in REJECTED[:8]] == [True] * 7 + [False]


def test_dispatch_error_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="unknown tool: 'shell'"):
        dispatch(request("shell", sku="PEN"))


def test_stock_is_read_only_but_reads_like_a_dict() -> None:
    with pytest.raises(TypeError):
        STOCK["PEN"] = 1000  # type: ignore[index]
    assert STOCK["PEN"] == 12 and dict(STOCK) == {"PEN": 12, "BOOK": 3}


def test_non_str_request_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="request must be a str, got bytes"):
        dispatch(PEN.encode())  # type: ignore[arg-type]


def test_lone_surrogate_is_a_dispatch_error_not_a_unicode_error() -> None:
    with pytest.raises(DispatchError, match="not valid UTF-8"):
        dispatch(PEN.replace("PEN", "\ud800"))


def test_size_is_counted_in_bytes_not_characters() -> None:
    raw = PEN.replace("PEN", "PEN" + "é" * 1000)
    assert len(raw) <= MAX_REQUEST_BYTES < len(raw.encode("utf-8"))
    with pytest.raises(DispatchError, match=f"request too large: 2049 bytes > {MAX_REQUEST_BYTES}"):
        dispatch(raw)


def test_size_is_checked_before_parsing() -> None:
    with pytest.raises(DispatchError, match="request too large"):
        dispatch("{" * (MAX_REQUEST_BYTES + 1))


def test_byte_order_mark_is_malformed_json() -> None:
    with pytest.raises(DispatchError, match="malformed JSON"):
        dispatch("\ufeff" + PEN)


def test_deep_object_nesting_is_refused_before_parsing() -> None:
    with pytest.raises(DispatchError, match="nested deeper than 64 levels"):
        dispatch('{"a":' * 300 + "1" + "}" * 300)


def test_brackets_inside_strings_do_not_count_as_nesting() -> None:
    with pytest.raises(DispatchError, match="unknown sku"):
        dispatch(request(sku='[{\\"' * 200))


def test_recursion_error_from_json_is_still_a_dispatch_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """Even with the bracket pre-check switched off, json's own RecursionError is converted."""
    monkeypatch.setattr(stock, "MAX_NESTING", 10**6)
    with pytest.raises(DispatchError, match="malformed JSON"):
        dispatch("[" * 1000)


def test_a_second_tool_can_be_offered_alongside_stock_lookup() -> None:
    tools = {**STOCK_TOOLS, "add": ADD}
    assert dispatch_with(request("add", a=2, b=3), tools) == {"sum": 5}
    assert dispatch_with(PEN, tools) == {"sku": "PEN", "available": 12}


def test_forbidden_operations_stay_forbidden_with_a_second_tool() -> None:
    tools = {**STOCK_TOOLS, "add": ADD}
    for raw in [request("shell", cmd="ls"), request("add", a=1, b=2, admin=True), request("ADD", a=1, b=2)]:
        with pytest.raises(DispatchError):
            dispatch_with(raw, tools)


def test_a_tool_not_offered_is_unknown() -> None:
    with pytest.raises(DispatchError, match="unknown tool: 'stock_lookup'"):
        dispatch_with(PEN, {})


def assert_dispatch_is_safe(raw: str) -> None:
    """Either a valid stock answer comes back, or a DispatchError: nothing else may escape."""
    try:
        result = dispatch(raw)
    except DispatchError:
        return
    assert result in VALID_RESULTS


def fits(raw: str) -> bool:
    return len(raw.encode("utf-8", "surrogatepass")) <= MAX_REQUEST_BYTES


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text() | st.sampled_from(["PEN", "BOOK"]),
    lambda items: st.lists(items, max_size=3) | st.dictionaries(st.text(max_size=4), items, max_size=3),
    max_leaves=20,
)


@settings(max_examples=300)
@given(st.text(st.characters(exclude_categories=()), max_size=2048).filter(fits))
def test_any_text_only_raises_dispatch_error(raw: str) -> None:
    assert_dispatch_is_safe(raw)


@settings(max_examples=300)
@given(st.text(alphabet='[]{}",:\\ 0-eE.tnulfaPENBOOKsku', max_size=2048))
def test_bracket_heavy_text_only_raises_dispatch_error(raw: str) -> None:
    assert_dispatch_is_safe(raw)


@given(st.integers(0, 2048), st.sampled_from("[{"))
def test_any_depth_of_open_brackets_only_raises_dispatch_error(depth: int, bracket: str) -> None:
    assert_dispatch_is_safe(bracket * depth)


@settings(max_examples=300)
@given(
    st.dictionaries(
        st.sampled_from(["name", "arguments", "admin"]),
        st.sampled_from(["stock_lookup", "shell"])
        | st.fixed_dictionaries({"sku": json_values})
        | json_values,
    ).map(lambda envelope: json.dumps(envelope, allow_nan=True))
)
def test_json_shaped_requests_only_raise_dispatch_error(raw: str) -> None:
    assert_dispatch_is_safe(raw)
