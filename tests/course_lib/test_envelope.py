import re
from collections import OrderedDict
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from course_lib.envelope import EnvelopeError, parse_envelope
from course_lib.errors import EnvelopeError as ErrorsEnvelopeError
from course_lib.fixtures import load_fixture

ACCEPTED = load_fixture("envelope_accepted")
REJECTED = load_fixture("envelope_rejected")


def call(arguments: Any = None, **fields: Any) -> dict[str, Any]:
    return {
        "kind": "call",
        "id": "c1",
        "name": "read_note",
        "arguments": {} if arguments is None else arguments,
        **fields,
    }


def containers(value: Any) -> list[Any]:
    """Every dict and list inside `value`, including itself."""
    found, stack = [], [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict | list):
            found.append(item)
            stack.extend(item.values() if isinstance(item, dict) else item)
    return found


@pytest.mark.parametrize("case", ACCEPTED, ids=[case["why"] for case in ACCEPTED])
def test_accepted_fixture(case: dict[str, Any]) -> None:
    assert parse_envelope(case["raw"]) == case["expected"]


@pytest.mark.parametrize("case", REJECTED, ids=[case["why"] for case in REJECTED])
def test_rejected_fixture_names_its_field(case: dict[str, Any]) -> None:
    with pytest.raises(EnvelopeError, match=rf"\b{re.escape(case['field'])}\b"):
        parse_envelope(case["raw"])


def test_envelope_error_is_the_shared_value_error() -> None:
    assert EnvelopeError is ErrorsEnvelopeError
    assert issubclass(EnvelopeError, ValueError)


def test_blank_id_is_rejected() -> None:
    with pytest.raises(EnvelopeError, match="id: must not be blank"):
        parse_envelope(call(id="\u2003\n"))


def test_json_looking_string_is_not_an_argument_object() -> None:
    with pytest.raises(EnvelopeError, match="arguments: expected an object \\(dict\\), got str"):
        parse_envelope(call(arguments='{"a": 1}'))


def test_str_subclass_is_not_a_str() -> None:
    class Sneaky(str):
        pass

    with pytest.raises(EnvelopeError, match="text: expected a string, got Sneaky"):
        parse_envelope({"kind": "final", "text": Sneaky("hi")})


def test_dict_subclass_is_not_an_envelope() -> None:
    with pytest.raises(EnvelopeError, match="envelope: expected an object"):
        parse_envelope(OrderedDict(kind="final", text="hi"))


def test_non_string_field_name_is_rejected() -> None:
    with pytest.raises(EnvelopeError, match="envelope: field names must be strings, got int"):
        parse_envelope({"kind": "final", "text": "hi", 1: "x"})


def test_missing_and_extra_keys_are_all_named() -> None:
    with pytest.raises(EnvelopeError, match="missing field\\(s\\) for kind 'call': arguments, id, name"):
        parse_envelope({"kind": "call"})


def test_name_is_returned_exactly_as_given() -> None:
    assert parse_envelope(call(name="Read-NOTE_2"))["name"] == "Read-NOTE_2"


def test_name_with_trailing_newline_is_rejected() -> None:
    with pytest.raises(EnvelopeError, match="name: must match"):
        parse_envelope(call(name="read_note\n"))


def test_non_string_argument_key_is_rejected_at_any_depth() -> None:
    with pytest.raises(EnvelopeError, match=r"arguments\.outer\[0\]: keys must be strings, got int"):
        parse_envelope(call({"outer": [{1: "x"}]}))


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ((1, 2), r"arguments\.ids: not a JSON value: tuple"),
        ({"a"}, r"arguments\.ids: not a JSON value: set"),
        (["ok", object()], r"arguments\.ids\[1\]: not a JSON value: object"),
        ([1.0, float("nan")], r"arguments\.ids\[1\]: nan is not a JSON number"),
        ({"x": float("inf")}, r"arguments\.ids\.x: inf is not a JSON number"),
        (b"bytes", r"arguments\.ids: not a JSON value: bytes"),
    ],
)
def test_non_json_argument_value_is_rejected_with_its_path(value: Any, message: str) -> None:
    with pytest.raises(EnvelopeError, match=message):
        parse_envelope(call({"ids": value}))


def nested(levels: int) -> dict[str, Any]:
    """An arguments object `levels` containers deep (the arguments object itself is level 1)."""
    arguments: dict[str, Any] = {}
    for _ in range(levels - 1):
        arguments = {"a": arguments}
    return arguments


def test_arguments_nested_64_levels_are_accepted() -> None:
    assert parse_envelope(call(nested(64)))["arguments"] == nested(64)


def test_arguments_nested_65_levels_are_rejected() -> None:
    with pytest.raises(EnvelopeError, match="arguments nested deeper than 64 levels"):
        parse_envelope(call(nested(65)))


def test_deep_nesting_is_an_envelope_error_not_a_recursion_error() -> None:
    arguments: list[Any] = []
    for _ in range(100_000):
        arguments = [arguments]
    with pytest.raises(EnvelopeError, match="arguments nested deeper than 64 levels"):
        parse_envelope(call({"deep": arguments}))


def test_self_referencing_arguments_are_rejected() -> None:
    arguments: dict[str, Any] = {}
    arguments["self"] = arguments
    with pytest.raises(EnvelopeError, match="nested deeper than 64 levels"):
        parse_envelope(call(arguments))


def test_mutating_the_result_leaves_the_input_alone() -> None:
    raw = call({"ids": ["a"], "filter": {"tags": ["x"]}})
    parse_envelope(raw)["arguments"]["ids"].append("b")
    assert raw["arguments"]["ids"] == ["a"]


def test_mutating_the_input_leaves_the_result_alone() -> None:
    raw = call({"ids": ["a"], "filter": {"tags": ["x"]}})
    parsed = parse_envelope(raw)
    raw["arguments"]["filter"]["tags"].append("y")
    assert parsed["arguments"]["filter"]["tags"] == ["x"]


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(), children, max_size=4),
    max_leaves=30,
)


@given(st.dictionaries(st.text(), json_values, max_size=5))
def test_any_json_arguments_round_trip_equal_and_independent(arguments: dict[str, Any]) -> None:
    parsed = parse_envelope(call(arguments))
    assert parsed == call(arguments)
    assert not {id(c) for c in containers(parsed)} & {id(c) for c in containers(arguments)}
