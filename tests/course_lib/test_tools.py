import json
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from course_lib.errors import ToolError
from course_lib.specs import tool_specs
from course_lib.tools import Tool, Toolbox, check_args, run_tool_call

UNIT = {"type": "string", "enum": ["celsius", "fahrenheit"]}


def make_box() -> Toolbox:
    """A small toolbox with one tool per outcome: a result, a ToolError, a crash, a destructive action."""
    box = Toolbox()
    box.tool("echo", "Echo a word.", {"word": {"type": "string"}})(lambda word: word)
    box.tool("count", "Add one to n.", {"n": {"type": "integer"}})(lambda n: n + 1)

    def refuse(word: str) -> None:
        raise ToolError(f"cannot handle {word!r}")

    def crash(word: str) -> None:
        raise KeyError("secret-db-row-17")

    box.tool("refuse", "Always refuses.", {"word": {"type": "string"}})(refuse)
    box.tool("crash", "Always crashes.", {"word": {"type": "string"}})(crash)
    box.tool("erase", "Erase a word.", {"word": {"type": "string"}}, destructive=True)(
        lambda word: f"erased {word}"
    )
    box.tool("weird", "Returns a set.", {})(lambda: {1, 2})
    return box


def call(
    name: str,
    raw: str,
    offered: tuple[str, ...] = ("echo", "count", "refuse", "crash", "erase", "weird"),
    **kw: Any,
) -> Any:
    return json.loads(run_tool_call(make_box(), name, raw, offered, **kw))


# ---- check_args -------------------------------------------------------------------------------------


def test_bool_is_not_an_integer() -> None:
    assert check_args({"x": True}, {"properties": {"x": {"type": "integer"}}}) == [
        "$.x: expected integer, got bool"
    ]


def test_bool_is_not_a_number() -> None:
    assert check_args(False, {"type": "number"}) == ["$: expected number, got bool"]


def test_integral_float_is_an_integer() -> None:
    """JSON Schema counts 3.0 as an integer; 3.5 is not."""
    assert check_args(3.0, {"type": "integer"}) == []
    assert check_args(3.5, {"type": "integer"}) == ["$: expected integer, got float"]


def test_a_list_of_types_accepts_any_of_them() -> None:
    schema = {"type": ["string", "null"]}
    assert check_args(None, schema) == [] and check_args("a", schema) == []
    assert check_args(1, schema) == ["$: expected ['string', 'null'], got int"]


def test_value_outside_the_enum() -> None:
    problems = check_args({"unit": "kelvin"}, {"properties": {"unit": UNIT}})
    assert problems == ["$.unit: 'kelvin' is not one of ['celsius', 'fahrenheit']"]


def test_enum_does_not_confuse_true_with_one() -> None:
    assert check_args(True, {"enum": [1]}) == ["$: True is not one of [1]"]
    assert check_args(1, {"enum": [True]}) == ["$: 1 is not one of [True]"]
    assert check_args([0], {"enum": [[False]]}) != []


def test_enum_treats_one_and_one_point_zero_as_equal() -> None:
    assert check_args(1.0, {"enum": [1]}) == [] and check_args({"a": [1]}, {"enum": [{"a": [1.0]}]}) == []


def test_missing_required_argument() -> None:
    assert check_args({}, {"type": "object", "required": ["k"]}) == ["$.k: missing required argument"]


def test_unexpected_argument() -> None:
    assert check_args({"k": 1}, {"properties": {}, "additionalProperties": False}) == [
        "$.k: unexpected argument"
    ]


def test_schema_valued_additional_properties_checks_extra_values() -> None:
    schema = {"properties": {"a": {}}, "additionalProperties": {"type": "integer"}}
    assert check_args({"a": "x", "b": 1, "c": "y"}, schema) == ["$.c: expected integer, got str"]


def test_items_are_checked_with_their_index() -> None:
    schema = {"properties": {"numbers": {"type": "array", "items": {"type": "number"}}}}
    assert check_args({"numbers": [1, "2"]}, schema) == ["$.numbers[1]: expected number, got str"]


def test_min_items() -> None:
    schema = {"properties": {"numbers": {"type": "array", "minItems": 1}}}
    assert check_args({"numbers": []}, schema) == ["$.numbers: needs at least 1 item(s)"]


def test_boolean_schemas() -> None:
    assert check_args([1, 2], {"items": True}) == []
    assert check_args([1], {"items": False}) == ["$[0]: no value is allowed here"]


def test_deep_value_against_a_recursive_schema_is_a_problem_not_a_crash() -> None:
    schema: dict[str, Any] = {"type": "array"}
    schema["items"] = schema
    value: list[Any] = []
    for _ in range(100_000):
        value = [value]
    assert check_args(value, schema)[-1].endswith("nested deeper than 64 levels")


def test_cyclic_value_and_schema_do_not_hang() -> None:
    schema: dict[str, Any] = {}
    schema["items"] = schema
    value: list[Any] = []
    value.append(value)
    assert check_args(value, schema) != []


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "kelvin"},
        {"type": [{}]},
        {"properties": 5},
        {"required": 5},
        {"enum": 3},
        {"minItems": "x"},
        "x",
    ],
)
def test_malformed_schema_is_reported_not_raised(schema: Any) -> None:
    """A broken schema fails closed: the value is reported, never accepted, and nothing raises."""
    assert check_args({"a": [1]}, schema) != []


# Differential test: on the subset it supports, check_args agrees with jsonschema's Draft 2020-12 validator.
KEYS = st.sampled_from(["a", "b", "c"])
SCALARS = st.sampled_from([None, True, False, 0, 1, 2, -1, 0.0, 1.0, 2.0, -0.0, 1.5, "", "a"])
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(KEYS, inner, max_size=3),
    max_leaves=8,
)
TYPE_NAMES = st.sampled_from(["string", "integer", "number", "boolean", "object", "array", "null"])


def schemas(child: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    """Schemas built from the supported keywords, each present or not."""
    return st.fixed_dictionaries(
        {},
        optional={
            "type": TYPE_NAMES | st.lists(TYPE_NAMES, min_size=1, max_size=3, unique=True),
            "enum": st.lists(VALUES, max_size=3),
            "properties": st.dictionaries(KEYS, child, max_size=3),
            "required": st.lists(KEYS, max_size=3, unique=True),
            "additionalProperties": st.booleans() | child,
            "items": child,
            "minItems": st.integers(0, 3),
        },
    )


SCHEMAS = st.recursive(st.just({}) | schemas(st.just({})), schemas, max_leaves=6)


@settings(max_examples=300, deadline=None)
@given(schema=SCHEMAS, value=SCALARS | VALUES)
@example(schema={"type": "integer"}, value=3.0)
@example(schema={"type": ["number", "null"]}, value=True)
@example(schema={"enum": [1, [1]]}, value=True)
@example(schema={"enum": [True]}, value=1.0)
@example(schema={"enum": [{"a": [1]}]}, value={"a": [1.0]})
@example(schema={"items": {"additionalProperties": {"type": "integer"}}}, value=[{"a": 1.0}, {"b": False}])
def test_check_args_agrees_with_jsonschema(schema: dict[str, Any], value: Any) -> None:
    assert (check_args(value, schema) == []) == Draft202012Validator(schema).is_valid(value)


@settings(max_examples=300, deadline=None)
@given(schema=SCHEMAS, enum=st.lists(VALUES, min_size=1, max_size=4), data=st.data())
def test_check_args_agrees_with_jsonschema_on_enum_members(
    schema: dict[str, Any], enum: list[Any], data: st.DataObject
) -> None:
    """Values drawn from the enum itself, so True-versus-1 and 1-versus-1.0 meet often."""
    schema = {**schema, "enum": enum}
    value = data.draw(
        st.sampled_from(enum) | st.sampled_from([0, 1, 0.0, 1.0, True, False, [1], [True], {"a": 1}])
    )
    assert (check_args(value, schema) == []) == Draft202012Validator(schema).is_valid(value)


@settings(max_examples=300, deadline=None)
@given(
    schema=st.dictionaries(
        st.sampled_from(
            ["type", "enum", "properties", "required", "items", "minItems", "additionalProperties"]
        ),
        st.from_type(object) | VALUES,
    ),
    value=st.from_type(object) | VALUES,
)
def test_check_args_never_raises_on_garbage(schema: dict[str, Any], value: Any) -> None:
    assert all(isinstance(problem, str) for problem in check_args(value, schema))


# ---- Toolbox ------------------------------------------------------------------------------------------


def test_tool_decorator_builds_a_strict_schema() -> None:
    assert make_box()["echo"].parameters == {
        "type": "object",
        "properties": {"word": {"type": "string"}},
        "required": ["word"],
        "additionalProperties": False,
    }


def test_required_can_be_narrowed_but_must_name_properties() -> None:
    box = Toolbox()
    box.tool("f", "F.", {"a": {}, "b": {}}, required=["a"])(print)
    assert box["f"].parameters["required"] == ["a"]
    with pytest.raises(ValueError, match="not properties: \\['c'\\]"):
        box.tool("g", "G.", {"a": {}}, required=["c"])


@pytest.mark.parametrize("name", ["", "has space", "x" * 65, "name\n", "café", "a.b"])
def test_badly_formed_tool_name_is_refused(name: str) -> None:
    with pytest.raises(ValueError, match="breaks the rule"):
        Toolbox().add(Tool(name, "Bad.", {"type": "object"}, print))


def test_duplicate_tool_name_is_refused() -> None:
    with pytest.raises(ValueError, match="'echo' is already registered"):
        make_box().add(Tool("echo", "Again.", {"type": "object"}, print))


def test_names_are_sorted_and_membership_works() -> None:
    box = make_box()
    assert box.names == ["count", "crash", "echo", "erase", "refuse", "weird"]
    assert "echo" in box and "nope" not in box and ["echo"] not in box


def test_two_toolboxes_share_nothing() -> None:
    first, second = Toolbox(), Toolbox()
    first.tool("only_here", "Here.", {})(print)
    first.server_log.append("x")
    assert "only_here" not in second and second.server_log == [] and second.state == {}


# ---- run_tool_call: the five checks, in order ------------------------------------------------------------


def test_result_is_wrapped() -> None:
    assert call("echo", '{"word": "hi"}') == {"result": "hi"}


def test_unoffered_tool_is_refused_even_if_registered() -> None:
    assert call("crash", '{"word": "x"}', ("echo",)) == {
        "error": "unknown tool 'crash'",
        "available_tools": ["echo"],
    }


def test_unknown_tool_lists_only_offered_tools_that_exist() -> None:
    out = call("get_wether", "{}", ("refuse", "echo", "not_registered"))
    assert out == {"error": "unknown tool 'get_wether'", "available_tools": ["echo", "refuse"]}


def test_a_bare_string_is_one_offered_name_not_its_substrings() -> None:
    assert call("echo", '{"word": "a"}', "echo") == {"result": "a"}  # type: ignore[arg-type]
    assert "available_tools" in call("echo", '{"word": "a"}', "echo_more")  # type: ignore[arg-type]


def test_arguments_that_are_not_json() -> None:
    out = call("echo", '{"word": "hi')
    assert out == {
        "error": "arguments are not valid JSON: Unterminated string starting at: line 1 column 10 (char 9)"
    }


@pytest.mark.parametrize("raw", ["[]", '"hi"', "3", "null"])
def test_arguments_must_be_a_json_object(raw: str) -> None:
    assert call("echo", raw) == {"error": "arguments must be a JSON object"}


def test_invalid_arguments_list_every_problem() -> None:
    out = call("echo", '{"word": 5, "extra": 1}')
    assert out == {
        "error": "invalid arguments",
        "problems": ["$.word: expected string, got int", "$.extra: unexpected argument"],
    }


def test_tool_error_message_reaches_the_model() -> None:
    assert call("refuse", '{"word": "x"}') == {"error": "cannot handle 'x'"}


def test_unexpected_exception_details_stay_in_server_log() -> None:
    box = make_box()
    out = run_tool_call(box, "crash", '{"word": "x"}', ["crash"])
    assert out == '{"error": "tool \'crash\' failed with KeyError"}' and "secret" not in out
    assert box.server_log == ["crash: KeyError: 'secret-db-row-17'"]


def test_result_json_cannot_hold_is_an_unexpected_failure() -> None:
    box = make_box()
    assert json.loads(run_tool_call(box, "weird", "{}", ["weird"])) == {
        "error": "tool 'weird' failed with TypeError"
    }
    assert box.server_log == ["weird: TypeError: Object of type set is not JSON serializable"]


def test_nan_result_is_an_unexpected_failure() -> None:
    box = Toolbox()
    box.tool("nan", "NaN.", {})(lambda: float("nan"))
    assert run_tool_call(box, "nan", "{}", ["nan"]) == '{"error": "tool \'nan\' failed with ValueError"}'


# ---- run_tool_call: destructive tools -----------------------------------------------------------------


def test_destructive_tool_without_confirm_is_not_run() -> None:
    assert call("erase", '{"word": "x"}') == {
        "error": "a human did not confirm this action; it was NOT performed"
    }


@pytest.mark.parametrize("answer", [False, None, 1, "yes", [True]])
def test_only_exactly_true_confirms(answer: object) -> None:
    out = call("erase", '{"word": "x"}', confirm=lambda name, args: answer)
    assert out == {"error": "a human did not confirm this action; it was NOT performed"}


def test_confirmed_destructive_tool_runs() -> None:
    assert call("erase", '{"word": "x"}', confirm=lambda name, args: True) == {"result": "erased x"}


def test_confirm_that_raises_counts_as_no() -> None:
    box = make_box()
    out = run_tool_call(box, "erase", '{"word": "x"}', ["erase"], confirm=lambda name, args: 1 / 0)
    assert "NOT performed" in out and box.server_log == [
        "erase: confirm failed: ZeroDivisionError: division by zero"
    ]


def test_confirm_receives_the_exact_validated_arguments() -> None:
    seen: list[tuple[str, dict[str, Any]]] = []
    call("erase", '{"word": "caf\\u00e9"}', confirm=lambda name, args: seen.append((name, args)) or True)
    assert seen == [("erase", {"word": "café"})]


def test_confirm_cannot_change_the_arguments_that_run() -> None:
    out = call("erase", '{"word": "x"}', confirm=lambda name, args: args.update(word="all") or True)
    assert out == {"result": "erased x"}


def test_destructive_tool_is_not_run_before_its_arguments_are_validated() -> None:
    asked: list[str] = []
    out = call("erase", '{"word": 5}', confirm=lambda name, args: asked.append(name) or True)
    assert out["error"] == "invalid arguments" and asked == []


# ---- run_tool_call: adversarial input never makes it raise --------------------------------------------

HOSTILE = [
    ('{"word": "a", "word": "b"}', "arguments repeat the key 'word'"),
    ('{"word": {"x": 1, "x": 2}}', "arguments repeat the key 'x'"),
    ('{"word": NaN}', "arguments are not valid JSON: NaN is not allowed"),
    ('{"word": Infinity}', "arguments are not valid JSON: Infinity is not allowed"),
    ('{"word": -Infinity}', "arguments are not valid JSON: -Infinity is not allowed"),
    ('{"word": 1e999}', "arguments are not valid JSON: the number 1e999 is out of range"),
    (
        '{"word": ' + "9" * 5000 + "}",
        "arguments are not valid JSON: the number 99999999999999999... has too many digits",
    ),
    ("[" * 100_000, "arguments are nested too deeply"),
    ('{"a":' * 20_000, "arguments are nested too deeply"),
    ('{"word": "' + "x" * 100_000 + '"}', "arguments are too long: 100012 characters, the limit is 100000"),
    ("", "arguments are not valid JSON: Expecting value: line 1 column 1 (char 0)"),
]


@pytest.mark.parametrize(("raw", "error"), HOSTILE)
def test_hostile_arguments_become_an_error_result(raw: str, error: str) -> None:
    assert call("echo", raw) == {"error": error}


def test_deeply_nested_but_parseable_arguments_are_an_error_result() -> None:
    out = call("echo", '{"word": ' + "[" * 500 + "]" * 500 + "}")
    assert out == {"error": "invalid arguments", "problems": ["$.word: expected string, got list"]}


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ('{"word": "\\ud800"}', '{"result": "\\ud800"}'),
        ('{"word": "\ud800"}', '{"result": "\\ud800"}'),
        (
            '{"word": "a", "\\udfff": 1}',
            '{"error": "invalid arguments", "problems": ["$.\\udfff: unexpected argument"]}',
        ),
    ],
)
def test_lone_surrogates_come_back_escaped(raw: str, expected: str) -> None:
    """A lone surrogate cannot be encoded as UTF-8; the reply escapes it, so it is plain ASCII."""
    assert run_tool_call(make_box(), "echo", raw, ["echo"]) == expected


@pytest.mark.parametrize(
    ("name", "raw"),
    [
        (None, "{}"),
        (["echo"], "{}"),
        (5, "{}"),
        ("echo", None),
        ("echo", b'{"word": "a"}'),
        ("echo", {"word": "a"}),
    ],
)
def test_non_string_name_or_arguments(name: Any, raw: Any) -> None:
    assert "error" in json.loads(run_tool_call(make_box(), name, raw, ["echo"]))


def test_miswired_offered_is_still_an_answer() -> None:
    box = make_box()
    assert json.loads(run_tool_call(box, "echo", "{}", None)) == {
        "error": "the tool call could not be handled"
    }  # type: ignore[arg-type]
    assert box.server_log[0].startswith("dispatch failed: TypeError")


@settings(max_examples=300, deadline=None)
@given(
    name=st.sampled_from(["echo", "count", "erase", "crash"]) | st.text(),
    raw=st.text() | VALUES.map(json.dumps),
)
def test_run_tool_call_always_returns_a_result_or_an_error(name: str, raw: str) -> None:
    out = run_tool_call(make_box(), name, raw, ["echo", "count", "erase", "crash"], confirm=lambda n, a: True)
    assert out.isascii() and set(json.loads(out)) in (
        {"result"},
        {"error"},
        {"error", "problems"},
        {"error", "available_tools"},
    )


# ---- tool_specs -----------------------------------------------------------------------------------------


def test_chat_spec_nests_under_function() -> None:
    [spec] = tool_specs(make_box(), ["echo"], "chat")
    assert list(spec) == ["type", "function"] and list(spec["function"]) == [
        "name",
        "description",
        "parameters",
        "strict",
    ]
    assert spec["function"]["name"] == "echo" and spec["function"]["strict"] is True


def test_responses_spec_is_flat() -> None:
    [spec] = tool_specs(make_box(), ["echo"], "responses")
    assert list(spec) == ["type", "name", "description", "parameters", "strict"] and spec["strict"] is True


def test_specs_are_deep_copies() -> None:
    box = make_box()
    tool_specs(box, ["echo"], "responses")[0]["parameters"]["properties"]["word"]["type"] = "integer"
    assert box["echo"].parameters["properties"]["word"] == {"type": "string"}


def test_unknown_api_is_refused() -> None:
    with pytest.raises(ValueError, match="api must be 'chat' or 'responses', not 'messages'"):
        tool_specs(make_box(), ["echo"], "messages")  # type: ignore[arg-type]


def test_unknown_name_in_specs_is_named() -> None:
    with pytest.raises(ValueError, match="no tool named 'nope'"):
        tool_specs(make_box(), ["echo", "nope"], "chat")
