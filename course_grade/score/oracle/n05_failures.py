"""Notebook 05's parts: `check_args` and `run_tool_call` against `course_lib.tools`, `tighten_average` against
the reading of its list below (course_lib has no key for it).

Examples are plain data: a `run_tool_call` example names the call, the kind of `confirm` and the extra tool of the
toolbox, and `observe` builds a fresh `weather_toolbox()` from it, so the reference and the answer each meet their
own toolbox, notes and log. Left out on purpose (open questions of the prose, decided elsewhere): an `offered`
holding a name twice, and a tool or a `confirm` raising `SystemExit` or `KeyboardInterrupt`.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any, NamedTuple

from hypothesis import strategies as st

from course_grade.score.oracle import contract
from course_grade.score.oracle.contract import Family, Part, call_outcome, shape
from course_lib.errors import ToolError

ASSIGNMENT = "05_failures"


def spread(items: list[Any]) -> st.SearchStrategy[Any]:
    """One of `items`, drawn evenly (hypothesis's `sampled_from` favours the first ones on a small budget)."""
    return st.permutations(items).map(lambda shuffled: shuffled[0])


# -- check_args ------------------------------------------------------------------------------------------------

TYPES = ("string", "integer", "number", "boolean", "object", "array", "null")
KEYS = ("a", "b", "c", "numbers", "é", "", "a.b")

NUMBERS = [0, 1, -1, 2, 3, 1.0, 0.0, -0.0, 2.5, 3.0, -7.0, 0.1, 1e300, 5e-324, 2**53 + 1, 2.0**53, 10**20,
           10**400, -(10**400), 2**64, 10**400 + 1]  # fmt: skip
BOOLS = [True, False]
STRINGS = ["", "a", "1", "true", "null", "celsius", "x" * 120, "é", "ｃ", " ", "\x00"]
scalars = st.one_of(
    st.sampled_from([*NUMBERS, *BOOLS, *STRINGS, None]),
    st.integers(),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=5),
)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(KEYS), inner, max_size=3),
    max_leaves=10,
)
type_names = st.sampled_from(TYPES)
type_values = type_names | st.lists(type_names, max_size=3)


def schemas(depth: int = 2) -> st.SearchStrategy[dict[str, Any]]:
    """Schemas using only Part A's keywords, each with a value of its stated JSON type, in any combination."""
    inner = schemas(depth - 1) if depth else st.just({})
    enum = st.lists(values, max_size=3)
    obj = st.fixed_dictionaries(
        {},
        optional={
            "type": st.just("object") | type_values,
            "properties": st.dictionaries(st.sampled_from(KEYS), inner, max_size=3),
            "required": st.lists(st.sampled_from(KEYS), max_size=3),
            "additionalProperties": st.booleans() | inner,
            "enum": enum,
        },
    )
    array = st.fixed_dictionaries(
        {},
        optional={
            "type": st.just("array") | type_values,
            "items": inner,
            "minItems": st.integers(-1, 4),
            "enum": enum,
        },
    )
    anything = st.fixed_dictionaries(
        {},
        optional={
            "type": type_values,
            "enum": enum,
            "required": st.lists(st.sampled_from(KEYS), max_size=2),
            "minItems": st.integers(0, 2),
            "properties": st.dictionaries(st.sampled_from(KEYS), inner, max_size=2),
            "items": inner,
        },
    )
    return obj | array | anything


NEAR: dict[str, list[Any]] = {
    "string": ["", "a", "x" * 120, 1, "1"],
    "integer": [0, 2, 3.0, -0.0, 10**20, 10**400, 2.5, True, False, 1e300],
    "number": [1, 2.5, 1.0, False, True, "1", 10**400],
    "boolean": [True, False, 0, 1, 1.0],
    "null": [None, False, 0, "", []],
}


def twins(option: Any) -> list[Any]:
    """Values Python's == confuses with `option` while JSON may not (True and 1, [0] and [False]), or the reverse."""
    if isinstance(option, bool):
        return [int(option), float(option)]
    if isinstance(option, int | float):
        twin: list[Any] = [float(option)] if abs(option) < 2**60 else []
        if isinstance(option, float) and option.is_integer():
            twin.append(int(option))
        return twin + ([bool(option)] if option in (0, 1) else [])
    if isinstance(option, list):
        first = [(twins(item) or [item])[0] for item in option]
        return [first, [(twins(item) or [item])[-1] for item in option], option[:-1], [*option, 0]]
    if isinstance(option, dict):
        swapped = {key: (twins(item) or [item])[0] for key, item in option.items()}
        return [swapped, {**option, "z": 1}, dict(reversed(option.items())), dict(reversed(swapped.items()))]
    return []


def near(draw: st.DrawFn, schema: Any, depth: int = 0) -> Any:
    """A value shaped after `schema`, or near it: the inputs where Part A's rules decide something."""
    if not isinstance(schema, dict) or depth > 3 or not draw(st.integers(0, 5)):
        return draw(values)
    if schema.get("enum") and draw(st.booleans()):
        option = draw(st.sampled_from(schema["enum"]))
        return draw(st.sampled_from([option, *twins(option)]))
    shaped = ["object"] if "properties" in schema else ["array"] if "items" in schema else list(TYPES)
    kinds = schema.get("type", shaped) or shaped
    kind = draw(st.sampled_from(kinds if isinstance(kinds, list) else [kinds]))
    if kind == "object":
        properties, extra = schema.get("properties", {}), schema.get("additionalProperties", True)
        keys = draw(st.lists(st.sampled_from([*properties, *schema.get("required", []), *KEYS]), max_size=4))
        keys = list(dict.fromkeys(keys))
        sub = {key: properties.get(key, extra if isinstance(extra, dict) else {}) for key in keys}
        return {key: near(draw, sub[key], depth + 1) for key in keys}
    if kind == "array":
        size = draw(st.integers(0, 4))
        return [near(draw, schema.get("items", {}), depth + 1) for _ in range(size)]
    return draw(st.sampled_from(NEAR[kind]))


class Check(NamedTuple):
    """A `check_args` call: the value, the schema, and the path given (None: the default is used)."""

    value: Any
    schema: dict[str, Any]
    path: str | None = None


@st.composite
def shaped_checks(draw: st.DrawFn, keep: Callable[[dict[str, Any]], bool] = lambda schema: True) -> Check:
    """A schema and a value shaped after it, or near it, or anything."""
    schema = draw(schemas().filter(keep))
    return Check(near(draw, schema), schema)


def deep_check(draw: st.DrawFn) -> Check:
    """A schema nested up to the stated 64 levels (items and properties in turn), and a value as deep or deeper."""
    levels = draw(st.sampled_from([2, 30, 63, 64]))
    kinds = draw(st.lists(st.sampled_from(["items", "properties"]), min_size=1, max_size=2))
    schema: dict[str, Any] = {"type": draw(st.sampled_from(["string", "integer"]))}
    value: Any = draw(
        st.sampled_from([1, "x", 2.0, True, [[1]], {"a": [True]}])
    )  # deeper than the schema too
    for level in range(levels - 1):
        if kinds[level % len(kinds)] == "items":
            width = draw(st.integers(1, 2)) if level < 4 else 1  # [v] * 2 at every level: 2**63 paths to walk
            schema, value = {"items": schema}, [value] * width
        else:
            schema, value = {"properties": {"k": schema}}, {"k": value}
    return Check(value, schema)


@st.composite
def path_checks(draw: st.DrawFn) -> Check:
    check = draw(shaped_checks()) if draw(st.integers(0, 5)) else deep_check(draw)
    path = draw(
        st.sampled_from([None, "$", "$.limit", "", "x", "$.a[0]", "{path}", "é", "$[1]"])
        | st.text(max_size=4)
    )
    return check._replace(path=path)


@st.composite
def type_checks(draw: st.DrawFn) -> Check:
    """Any value against a type, a list of types, or no type at all."""
    schema: dict[str, Any] = draw(
        st.sampled_from([{}, {"type": []}]) | st.fixed_dictionaries({"type": type_values})
    )
    value = draw(st.one_of(values, st.sampled_from([[], {}, [1], {"a": 1}, *NUMBERS, *BOOLS, None])))
    return Check(value, schema)


@st.composite
def number_checks(draw: st.DrawFn) -> Check:
    """Bools, ints of any length and floats, whole or not, against integer and number (alone or in a list)."""
    value = draw(st.sampled_from([*NUMBERS, *BOOLS]) | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
                 | st.integers(-(10**6), 10**6).map(float))  # fmt: skip
    kind: Any = draw(st.sampled_from(["integer", "number"]))
    if draw(st.booleans()):
        kind = draw(st.permutations([kind, *draw(st.lists(st.sampled_from(["null", "string", "boolean"]), max_size=2,
                                                          unique=True))]))  # fmt: skip
    schema: dict[str, Any] = {"type": kind}
    if draw(st.integers(0, 3)) == 0:  # the bool inside a container
        return Check(
            draw(st.sampled_from([[value], {"n": value}])), {"items": schema, "properties": {"n": schema}}
        )
    return Check(value, schema)


@st.composite
def mistyped_checks(draw: st.DrawFn) -> Check:
    """A value of the wrong type, under a schema whose other keywords would each find a problem in it."""
    kind = draw(type_values.filter(lambda kinds: kinds != []))
    schema: dict[str, Any] = {"type": kind, **draw(st.fixed_dictionaries({}, optional={
        "enum": st.just([["never"]]), "required": st.just(["zz"]), "additionalProperties": st.just(False),
        "properties": st.just({"a": {"type": "null"}}), "minItems": st.just(9), "items": st.just({"type": "null"}),
    }))}  # fmt: skip
    names = kind if isinstance(kind, list) else [kind]
    candidates = [[1, "x"], {"a": 1, "b": 2}, "text", 2.5, 3, True, None, 10**400, 3.0, [], {}]
    from course_lib.tools import _TYPES  # noqa: PLC0415 - which values fit a type is the reference's to say

    wrong = [value for value in candidates if not any(_TYPES[name](value) for name in names)]
    if not wrong:  # every type named: nothing is mistyped
        return Check([1], schema)
    return Check(draw(st.sampled_from(wrong)), schema)


def _reprs_around(limit: int) -> st.SearchStrategy[Any]:
    """Values whose repr is close to `limit` characters: strings, escapes, quotes, lists, dicts."""
    pieces = st.sampled_from(["k", "é", "\n", "\x00", "'", '"', "\\", "ｃ", "\u2028", "😀"])
    return st.one_of(
        st.integers(limit - 8, limit + 3).map(lambda size: "k" * size),
        st.builds(lambda size, piece: "k" * size + piece, st.integers(limit - 12, limit + 2), pieces),
        st.lists(pieces, min_size=20, max_size=40).map("".join),
        st.integers(20, 40).map(lambda size: list(range(size))),
        st.integers(8, 20).map(lambda size: {str(i): i for i in range(size)}),
        st.sampled_from([10**97, 10**98, 10**99, 10**100, -(10**98), 10**400]),
        values,
    )


@st.composite
def long_enum_checks(draw: st.DrawFn) -> Check:
    value = draw(_reprs_around(100))
    schema: dict[str, Any] = {
        "enum": draw(st.sampled_from([["celsius", "fahrenheit"], [1], [], [None, [0]]]))
    }
    if draw(st.booleans()):
        return Check({"unit": value}, {"properties": {"unit": schema}})
    return Check(value, schema)


PRECISION = [
    ([True], [1]),
    (2**53 + 1, 2.0**53), (2**53, 2.0**53), (10**400, 1e300), (10**400, 10**400), (10**400, 10**400 + 1),
    (-(10**400), -(10**400)), (10**400, [10**400]), ([2**53 + 1], [2.0**53]), (10**20, 1e20), (10**20 + 1, 1e20),
    ({"n": 10**400}, {"n": 10**400}), (0.1 + 0.2, 0.3), (1e308, 10**308),
    ([0], [False]), ([1, [True]], [1, [1]]), ({"a": [1]}, {"a": [True]}), ([1.0], [1]),
    ([[0.0]], [[False]]), ({"a": 1, "b": 2}, {"b": 2, "a": 1}), ([None], [False]), ([""], [0]),
    ([{"x": True, "y": [1]}], [{"y": [1], "x": True}]), ({"b": None, "a": "é"}, {"a": "é", "b": None}),
]  # fmt: skip
"""(value, enum option) pairs JSON tells apart (or not) where Python's == does otherwise, floats round or overflow,
or the difference sits inside a list or dict."""


@st.composite
def enum_checks(draw: st.DrawFn) -> Check:
    """An enum and a value equal to one option, to a twin Python confuses with it, or to none (or no options)."""
    options: list[Any] = draw(st.lists(values, max_size=4))
    if draw(st.booleans()):  # a pair where JSON's equality and Python's part
        value, option = draw(spread(PRECISION))
        options = draw(st.permutations([*options[:2], option]))
    elif options and draw(st.integers(0, 3)) > 0:
        option = draw(st.sampled_from(options))
        value = draw(st.sampled_from([option, *twins(option)]))
    else:
        value = draw(values)
    schema: dict[str, Any] = {"enum": options}
    if draw(st.integers(0, 3)) == 0:
        return Check({"n": value}, {"properties": {"n": schema}})
    return Check(value, schema)


PROPERTY_SCHEMAS: list[dict[str, Any]] = [
    {}, {"type": "string"}, {"type": "integer"}, {"enum": [1]}, {"properties": {"a": {"type": "null"}}},
    {"additionalProperties": False},
]  # fmt: skip
ITEM_SCHEMAS: list[dict[str, Any]] = [
    {}, {"type": "number"}, {"type": "integer", "enum": [1, 2]},
    {"type": "array", "minItems": 1, "items": {"type": "integer"}},
    {"properties": {"id": {"type": "integer"}}, "additionalProperties": False},
]  # fmt: skip


@st.composite
def object_checks(draw: st.DrawFn, required: bool) -> Check:
    """A dict against required names (in any order, some missing), properties and additionalProperties."""
    names = st.sampled_from(KEYS)
    schema: dict[str, Any] = {}
    if required or draw(st.booleans()):
        schema["required"] = draw(st.lists(names, max_size=4))
    properties: dict[str, Any] = draw(st.dictionaries(names, st.sampled_from(PROPERTY_SCHEMAS), max_size=3))
    if len(properties) > 0 or draw(st.booleans()):
        schema["properties"] = properties
    extra: Any = draw(st.sampled_from(["absent", False, True, {}, {"type": "integer"}, {"type": "string"},
                                  {"additionalProperties": False}]))  # fmt: skip
    if extra != "absent":
        schema["additionalProperties"] = extra
    if draw(st.booleans()):
        schema["type"] = "object"
    keys = draw(st.lists(names, max_size=5, unique=True))
    value = {key: draw(st.sampled_from(["x", 1, True, None, {}, {"a": None}, {"b": 1}, [1]])) for key in keys}
    return Check(value, schema)


@st.composite
def array_checks(draw: st.DrawFn) -> Check:
    """Lists whose length is at, below or above minItems, whose items fit or break `items`, nested."""
    size = draw(st.integers(0, 5))
    schema: dict[str, Any] = {}
    if draw(st.integers(0, 3)):
        schema["minItems"] = draw(st.sampled_from([size - 1, size, size + 1, 0, 1, 4]))
    if draw(st.integers(0, 3)):
        schema["items"] = draw(st.sampled_from(ITEM_SCHEMAS))
    if draw(st.booleans()):
        schema["type"] = "array"
    value = [draw(st.sampled_from([1, 2.0, True, "2", None, [], [1, "x"], [True], {"id": 1}, {"id": "2", "x": 0}]))
             for _ in range(size)]  # fmt: skip
    return Check(value, schema)


@st.composite
def not_dict_checks(draw: st.DrawFn) -> Check:
    schema = {"required": ["a"], "properties": {"a": {"type": "string"}}, "additionalProperties": False}
    keywords = draw(st.lists(st.sampled_from(sorted(schema)), min_size=1, unique=True))
    value = draw(st.sampled_from([["x"], ["a"], "xyz", "a", 5, None, [], "", [{"a": 1}], True]) | values)
    return Check(value, {key: schema[key] for key in keywords})


@st.composite
def not_list_checks(draw: st.DrawFn) -> Check:
    schema = {"minItems": draw(st.integers(1, 5)), "items": {"type": "integer"}}
    keywords = draw(st.lists(st.sampled_from(sorted(schema)), min_size=1, unique=True))
    value = draw(
        st.sampled_from(["abc", "", {"a": 1}, {}, {"a": "x", "b": "y"}, 7, None, [], ["x"]]) | values
    )
    return Check(value, {key: schema[key] for key in keywords})


def observe_check(answer: Any, example: Check) -> Any:
    """The returned list (its exact types and every string), or an exception's type."""
    args = (example.value, example.schema) if example.path is None else example
    return call_outcome(answer, *args)


def _check_reference() -> Any:
    from course_lib.tools import check_args  # noqa: PLC0415

    return check_args


CHECK = Part(
    ASSIGNMENT,
    "check_args",
    _check_reference,
    observe_check,
    "the returned list of problem strings (exact types, every string, their order), or an exception's type; "
    "the value and schema are drawn from the stated domain only (JSON values, the listed keywords).",
    {
        "order": Family(
            "in the order the rules below give them (type, enum, then a dict's keys or a list's items)",
            "test_check_args_enum",
            shaped_checks(),
            examples=50,
        ),
        "path": Family(
            "begin each problem with the path of the value it is about: `path` for the value given, "
            "`{path}.{key}` for a key of a dict, `{path}[{index}]` for an item of a list",
            "test_check_args_arrays",
            path_checks(),
            examples=40,
        ),
        "types": Family(
            "accept a value that matches any one of them (a schema without `type` accepts any type)",
            "test_check_args_types",
            type_checks(),
        ),
        "bool_number": Family(
            "never count a `bool` as an `integer` or a `number`, and count a `float` with no fractional part "
            "(`3.0`) as an `integer`",
            "test_check_args_types",
            number_checks(),
        ),
        "type_only": Family(
            "when the value matches none of the names, report only",
            "test_check_args_types",
            mistyped_checks(),
        ),
        "enum_message": Family(
            "with a `{value!r}` longer than 100 characters shortened to its first 97 followed by `...`",
            "test_check_args_enum",
            long_enum_checks(),
        ),
        "enum_json": Family(
            "compare with the `enum` options as JSON does",
            "test_check_args_enum",
            enum_checks(),
            examples=80,
        ),
        "required": Family(
            "for a `dict` value, first report",
            "test_check_args_objects",
            object_checks(required=True),
        ),
        "keys": Family(
            "then, for each key of the dict in order, check a key listed in `properties` against its schema",
            "test_check_args_objects",
            object_checks(required=False),
            examples=80,
        ),
        "only_dict": Family(
            "apply `required`, `properties` and `additionalProperties` only to a `dict`",
            "test_check_args_objects",
            not_dict_checks(),
        ),
        "arrays": Family(
            "for a `list` value, report",
            "test_check_args_arrays",
            array_checks(),
        ),
        "only_list": Family(
            "and `minItems` and `items` only to a `list`",
            "test_check_args_arrays",
            not_list_checks(),
        ),
    },
)


# -- tighten_average --------------------------------------------------------------------------------------------


def tighten_average(toolbox: Any) -> None:
    """Part A's second list read literally: course_lib has no key for it, so this is its reference."""
    toolbox["average"].parameters["properties"]["numbers"]["minItems"] = 1


class Box(NamedTuple):
    """A toolbox built the way `weather_toolbox()` is: each tool's name, its properties and whether destructive."""

    tools: tuple[tuple[str, dict[str, Any], bool], ...]


AVERAGE_NUMBERS = [
    {"type": "array", "items": {"type": "number"}},
    {"type": "array", "items": {"type": "number"}, "description": "The numbers to average."},
    {"type": "array", "items": {"type": "integer"}},
    {"items": {"type": "number"}, "type": "array"},
]
OTHER_TOOLS: list[tuple[str, dict[str, Any], bool]] = [
    ("get_weather", {"city": {"type": "string"}, "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}}, False),
    ("total", {"numbers": {"type": "array", "items": {"type": "number"}}}, False),
    ("median", {"numbers": {"type": "array", "items": {"type": "number"}, "minItems": 0}}, False),
    ("delete_note", {"note_id": {"type": "integer"}}, True),
    ("stats", {"numbers": {"type": "array"}, "average": {"type": "number"}}, False),
    ("nested", {"average": {"type": "object", "properties": {"numbers": {"type": "array"}}}}, False),
]  # fmt: skip


@st.composite
def boxes(draw: st.DrawFn) -> Box:
    average = ("average", {"numbers": draw(st.sampled_from(AVERAGE_NUMBERS))}, False)
    others = draw(st.lists(st.sampled_from(OTHER_TOOLS), max_size=4, unique_by=lambda tool: tool[0]))
    return Box(tuple(draw(st.permutations([average, *others]))))


def _noop(**arguments: Any) -> Any:
    return arguments


def build_box(example: Box) -> Any:
    from course_lib.toolbox import Toolbox  # noqa: PLC0415

    box = Toolbox()
    for name, properties, destructive in example.tools:
        box.tool(name, f"The {name} tool.", copy.deepcopy(properties), destructive=destructive)(_noop)
    return box


def observe_tighten(answer: Any, example: Box) -> Any:
    """What it returns; whether `toolbox["average"].parameters` is still the same dict; every tool's schema after;
    what `tool_specs` sends for them."""
    from course_lib.specs import tool_specs  # noqa: PLC0415

    box = build_box(example)
    before = box["average"].parameters
    got = call_outcome(answer, box)
    names = box.names
    try:
        sent = shape(tool_specs(box, names, "chat"))
    except Exception as error:
        sent = ("raised", type(error).__name__)
    return (
        got,
        box["average"].parameters is before,
        {name: shape(box[name].parameters) for name in names},
        sent,
    )


TIGHTEN = Part(
    ASSIGNMENT,
    "tighten_average",
    lambda: tighten_average,
    observe_tighten,
    "the value returned (or an exception's type), whether the average tool keeps its very parameters dict, every "
    "tool's schema afterwards and what tool_specs sends; how the change is made is open.",
    {
        "min_items": Family(
            'require at least one item in the `numbers` argument, with `"minItems": 1` in the schema of the '
            "`numbers` array",
            "test_tighten_average",
            boxes(),
            examples=30,
        ),
        "in_place": Family(
            'make that change in place, in the dict `toolbox["average"].parameters` itself',
            "test_tighten_average",
            boxes(),
            examples=20,
        ),
        "nothing_else": Family(
            "change nothing else: the `numbers` array keeps its `items` rule, and every other tool's schema stays "
            "as it was",
            "test_tighten_average",
            boxes(),
            examples=40,
        ),
        "none": Family("return nothing (`None`)", "test_tighten_average", boxes(), examples=20),
    },
)


# -- run_tool_call ----------------------------------------------------------------------------------------------


class Odd(ToolError):
    """A subclass of ToolError: still an expected failure."""


class Secret(Exception):
    """An unexpected failure whose message must stay in the log."""


BEHAVIOURS: dict[str, Callable[[dict[str, Any]], Any]] = {
    "echo": lambda arguments: arguments,
    "none": lambda arguments: None,
    "text": lambda arguments: "done ✓",
    "big": lambda arguments: [10**300, -(2**70), 1e308, -0.0],
    "int_keys": lambda arguments: {1: "one", None: "none", False: "no", 2.5: "x"},
    "tuple": lambda arguments: ("a", (1, 2)),
    "nan": lambda arguments: float("nan"),
    "inf": lambda arguments: {"ratio": [1.0, float("-inf")]},
    "inf_key": lambda arguments: {"a": {"b": [float("inf")]}},
    "set": lambda arguments: {"home", "work"},
    "bytes": lambda arguments: {"raw": b"x"},
    "tuple_key": lambda arguments: {(1, 2): "pair"},
    "object": lambda arguments: {"when": object},
}
"""What the extra tool returns."""

RAISES: dict[str, Callable[[], BaseException]] = {
    "tool_error": lambda: ToolError("no row 'x' (try another key)"),
    "odd_tool_error": lambda: Odd("odd but expected"),
    "empty_tool_error": lambda: ToolError(),
    "key_error": lambda: KeyError("password=hunter2"),
    "value_error": lambda: ValueError("invalid literal for int() with base 10: 'api_key=sk-123'"),
    "zero": lambda: ZeroDivisionError("division by zero"),
    "secret": lambda: Secret("db prod-eu-1 (user=svc_admin)"),
    "empty_runtime": lambda: RuntimeError(),
    "type_error": lambda: TypeError("unhashable type: 'list'"),
    "recursion": lambda: RecursionError("maximum recursion depth exceeded"),
}
"""What the extra tool raises instead of returning."""

EXTRA_SCHEMAS: dict[str, dict[str, Any]] = {
    "flat": {"type": "object", "properties": {"key": {"type": "string"}}, "required": ["key"],
             "additionalProperties": False},
    "nested": {"type": "object", "properties": {"which": {"type": "object", "properties": {
        "ids": {"type": "array", "items": {"type": "integer"}}}, "required": ["ids"]}}, "required": ["which"],
        "additionalProperties": False},
    "open": {"type": "object"},
    "empty": {},
    "numbers": {"type": "object", "properties": {"n": {"type": "integer"}, "tags": {"type": "array", "minItems": 1,
                "items": {"type": "string", "enum": ["a", "b"]}}}, "additionalProperties": {"type": "boolean"}},
}  # fmt: skip
"""The schemas the extra tool may be registered with."""

EXTRA = "extra_tool"


class Extra(NamedTuple):
    """The extra tool of the toolbox: its schema (a key of EXTRA_SCHEMAS), destructive or not, what it does."""

    schema: str = "open"
    destructive: bool = False
    does: str = "echo"


class Call(NamedTuple):
    """One `run_tool_call`: the call, the kind of `confirm`, and the extra tool registered beside the demo's."""

    name: Any
    raw: Any
    offered: Any
    confirm: str = "none"
    extra: Extra = Extra()


CONFIRMS = [
    "none",
    "yes",
    "no",
    "one",
    "one_float",
    "yes_str",
    "list",
    "raises",
    "raises_tool",
    "edits",
    "edits_no",
]
NEARLY_TRUE = ["one", "one_float", "yes_str", "list"]
"""Confirms whose answer is truthy, or even == True, without being True: the boundary of "exactly `True`"."""


def make_confirm(kind: str, asked: list[Any]) -> Any:
    """A confirm of the given kind that notes each question it is asked (a copy of what it was shown)."""
    if kind == "none":
        return None
    answers = {"yes": True, "no": False, "one": 1, "one_float": 1.0, "yes_str": "yes", "list": [True],
               "raises": None, "raises_tool": None, "edits": True, "edits_no": False}  # fmt: skip

    def confirm(name: Any, args: Any) -> Any:
        asked.append((shape(name), shape(copy.deepcopy(args))))
        if kind == "raises":
            raise RuntimeError("dialog closed")
        if kind == "raises_tool":
            raise ToolError("the human walked away")
        if kind.startswith("edits"):
            _meddle(args)
        return answers[kind]

    return confirm


def _meddle(value: Any) -> None:
    """Change every dict and list inside `value` (what a dialog that edits what it shows does)."""
    for item in contract.containers(value):
        if type(item) is dict:
            for key in list(item):
                if type(item[key]) is int:
                    item[key] += 1
            item["meddled"] = True
        else:
            item.append(2)


def build_toolbox(extra: Extra) -> Any:
    from course_lib.demo_tools import weather_toolbox  # noqa: PLC0415
    from course_lib.toolbox import Tool  # noqa: PLC0415

    box = weather_toolbox()
    ran: list[Any] = box.state.setdefault("ran", [])

    def extra_tool(**arguments: Any) -> Any:
        ran.append(shape(copy.deepcopy(arguments)))
        if extra.does in RAISES:
            raise RAISES[extra.does]()
        return BEHAVIOURS[extra.does](arguments)

    box.add(
        Tool(
            EXTRA, "An extra tool.", copy.deepcopy(EXTRA_SCHEMAS[extra.schema]), extra_tool, extra.destructive
        )
    )
    return box


def observe_run(answer: Any, example: Call) -> Any:
    """The answer as JSON (parsed strictly: NaN is not JSON) or an exception's type; the server log; the notes left;
    what the extra tool received; each question `confirm` was asked."""
    from course_lib.demo_tools import notes_of  # noqa: PLC0415

    box = build_toolbox(example.extra)
    asked: list[Any] = []
    got = call_outcome(
        answer, box, example.name, example.raw, example.offered, make_confirm(example.confirm, asked)
    )
    if got[0] == "returned" and got[1][0] == "str":
        got = ("answered", _strict_json(got[1][1]))
    return got, list(box.server_log), dict(notes_of(box)), list(box.state["ran"]), asked


def _strict_json(text: str) -> Any:
    def refuse(constant: str) -> Any:
        raise ValueError(constant)

    try:
        return shape(json.loads(text, parse_constant=refuse))
    except (ValueError, RecursionError):
        return ("not JSON", text[:300])


# The calls of the demo toolbox, with arguments that pass every check.
GOOD: dict[str, list[dict[str, Any]]] = {
    "get_weather": [{"city": "Paris", "unit": "celsius"}, {"unit": "fahrenheit", "city": "Oslo"},
                    {"city": "Atlantis", "unit": "celsius"}, {"city": "Café", "unit": "celsius"},
                    {"city": "", "unit": "fahrenheit"}],
    "get_user_city": [{"user_id": "u1"}, {"user_id": "u9"}, {"user_id": ""}],
    "average": [{"numbers": [2, 4, 9]}, {"numbers": [1.5, 2]}, {"numbers": [10**30, 1]}, {"numbers": [3.0]},
                {"numbers": [-0.0]}],
    "delete_note": [{"note_id": 1}, {"note_id": 2}, {"note_id": 2.0}, {"note_id": 99}, {"note_id": -1}],
    "calculate": [{"expression": "2 + 3 * 4"}],
    "fetch_page": [{"url": "https://blog.example/post"}, {"url": "https://nowhere.example"}],
}  # fmt: skip
EXTRA_GOOD: dict[str, list[dict[str, Any]]] = {
    "flat": [{"key": "row"}, {"key": "password=hunter2"}, {"key": ""}],
    "nested": [{"which": {"ids": [1]}}, {"which": {"ids": []}}, {"which": {"ids": [1, 2], "note": "x"}}],
    "open": [{}, {"a": [1, {"b": None}]}, {"x-y": 1}, {"city": "Paris"}],
    "empty": [{}, {"note_id": 1}],
    "numbers": [{"n": 1, "tags": ["a"]}, {"flag": True}, {}, {"n": 2.0}],
}  # fmt: skip
# Arguments that parse as a JSON object yet break the schema.
BAD: dict[str, list[dict[str, Any]]] = {
    "get_weather": [{"city": "Paris", "unit": "kelvin"}, {"city": "Paris"}, {}, {"city": ["Paris"], "unit": "celsius"},
                    {"city": "Paris", "unit": "celsius", "days": 3}, {"city": 5, "unit": True, "x": None}],
    "get_user_city": [{"user_id": 1}, {}],
    "average": [{"numbers": []}, {"numbers": [2, "4", True]}, {"numbers": "x"}, {"numbers": [1], "n": 1}],
    "delete_note": [{"note_id": "all"}, {"note_id": True}, {"note_id": 1.5, "x": 1}, {"note_id": 1, "force": True},
                    {}, {"note_id": None}],
    "calculate": [{"expression": 1}],
    "fetch_page": [{}],
}  # fmt: skip
EXTRA_BAD: dict[str, list[dict[str, Any]]] = {
    "flat": [{"key": 1}, {}, {"key": "x", "other": 1}],
    "nested": [{"which": {"ids": [True]}}, {"which": {}}, {"which": {"ids": "1"}}, {}],
    "open": [],
    "empty": [],
    "numbers": [{"n": True}, {"tags": []}, {"tags": ["c", 1]}, {"flag": 1}],
}  # fmt: skip

DEMO = sorted(GOOD)
NOT_NAMES = ["get_wether", "", "GET_WEATHER", "get_weather ", " average", "ｇｅｔ_weather", "delete-note", None, 7,
             True, 1.5, ["get_weather"], b"get_weather", ("get_weather",), {"name": "average"}]  # fmt: skip
NOT_STRINGS = [b'{"city": "Paris", "unit": "celsius"}', b"{}", None, b'{"note_id": 1}', bytearray(b"{}"),
               {"city": "Paris", "unit": "celsius"}, 42, 1.5, True, ["{}"], ("{}",), b"[]", {}]  # fmt: skip
NOT_JSON = ['{"city": "Par', "", " ", "{'city': 'Paris'}", '{"city": "Paris", "unit": "celsius"} trailing', "{,}",
            "\ufeff{}", "{}{}", '{"a": 1,}', "nan", "undefined", '{"a": "\\x"}', "[1,]", "\x00", '"unterminated',
            "{a: 1}", "tru", "01"]  # fmt: skip
NOT_OBJECTS = ["null", "[]", '"Paris"', "true", "false", "1e5", "0", "-1.5", '["Paris", "celsius"]', "[{}]",
               ' [ {"city": "Paris"} ] ', '""']  # fmt: skip
DEEP = [
    "[" * 100_000,
    '{"a": ' * 16_000,
    "[" * 5000 + "]" * 5000,
    '{"numbers": ' + "[" * 3000 + "]" * 3000 + "}",
]
SHALLOW_NESTED = [
    '{"numbers": ' + "[" * 40 + "]" * 40 + "}",
    "[" * 50 + "]" * 50,
    '{"a": ' * 30 + "1" + "}" * 30,
]


@st.composite
def encoded(draw: st.DrawFn, arguments: dict[str, Any]) -> str:
    """`arguments` as a JSON string the way a model may write it: any spacing, key order or escaping."""
    keys = draw(st.permutations(list(arguments)))
    ordered = {key: arguments[key] for key in keys}
    style = draw(st.sampled_from(["plain", "compact", "indent", "ascii", "padded"]))
    if style == "compact":
        return json.dumps(ordered, separators=(",", ":"))
    if style == "indent":
        return json.dumps(ordered, indent=2)
    if style == "ascii":
        return json.dumps(ordered, ensure_ascii=False)
    if style == "padded":
        return " \n\t" + json.dumps(ordered) + "\r\n "
    return json.dumps(ordered)


@st.composite
def offered_with(draw: st.DrawFn, name: Any, included: bool = True) -> Any:
    """A list, tuple or set of names sent in this request (no name twice), holding `name` when `included`."""
    pool = [*DEMO, EXTRA, "get_wether", "send_email", "", None, 7, 1.5, True]
    names = draw(st.lists(st.sampled_from(pool), max_size=4, unique_by=lambda n: (type(n), n)))
    names = [n for n in names if not (type(n) is type(name) and n == name)]
    if included:
        names.insert(draw(st.integers(0, len(names))), name)
    kind = draw(st.sampled_from(["list", "tuple", "set"]))
    if kind == "set":
        if any(type(n) is bool or type(n) is float for n in names):  # a set would merge True, 1 and 1.0
            kind = "list"
        else:
            return set(names)
    return tuple(names) if kind == "tuple" else names


def extras(destructive: bool | None = None, does: list[str] | None = None) -> st.SearchStrategy[Extra]:
    return st.builds(
        Extra,
        spread(sorted(EXTRA_SCHEMAS)),
        st.booleans() if destructive is None else st.just(destructive),
        spread(does or ["echo", "none", "tool_error", "text"]),
    )


@st.composite
def good_call(draw: st.DrawFn, extra: Extra, name: str | None = None) -> tuple[str, str]:
    """A registered name and arguments that pass its schema."""
    name = name or (EXTRA if draw(st.booleans()) else draw(spread(DEMO)))
    arguments = draw(st.sampled_from(EXTRA_GOOD[extra.schema] if name == EXTRA else GOOD[name]))
    return name, draw(encoded(arguments))


@st.composite
def result_calls(draw: st.DrawFn) -> Call:
    """Calls that pass every check: each tool's result, or its ToolError's message."""
    extra = draw(extras(does=["echo", "none", "text", "big", "int_keys", "tuple", "tool_error", "odd_tool_error",
                              "empty_tool_error"]))  # fmt: skip
    name, raw = draw(good_call(extra))
    return Call(name, raw, draw(offered_with(name)), "yes", extra)


@st.composite
def offered_calls(draw: st.DrawFn) -> Call:
    """Names registered or not, offered or not, str or not; arguments that would pass."""
    extra = draw(extras())
    registered, raw = draw(good_call(extra))
    name = draw(st.sampled_from([registered, *NOT_NAMES]))
    included = (
        isinstance(name, str | int | float | bytes | tuple | type(None)) and draw(st.integers(0, 2)) > 0
    )
    offered = (
        draw(offered_with(name, included))
        if included
        else draw(offered_with(registered, draw(st.booleans())))
    )
    if not included and isinstance(name, str) and isinstance(offered, list) and name in offered:
        offered.remove(name)
    return Call(name, raw, offered, draw(st.sampled_from(["yes", "none"])), extra)


@st.composite
def available_calls(draw: st.DrawFn) -> Call:
    """An unknown tool, and a request offering any mix of registered, unregistered and non-str names."""
    extra = draw(extras())
    name = draw(st.sampled_from([*NOT_NAMES, *DEMO, EXTRA]))
    pool = [*DEMO, EXTRA, "get_wether", "send_email", "zzz", "", "Average", None, 7, 2.5, b"average",
            ("average",), ["average"], {"get_weather": 1}]  # fmt: skip
    names = draw(st.lists(st.sampled_from(pool), max_size=7, unique_by=repr))
    names = [n for n in names if not (type(n) is type(name) and n == name)]  # the name is not offered
    kind = draw(st.sampled_from(["list", "tuple", "set"]))
    hashable = all(isinstance(n, str | int | bytes | tuple) and not isinstance(n, bool) for n in names)
    offered: Any = set(names) if kind == "set" and hashable else tuple(names) if kind == "tuple" else names
    return Call(name, '{"note_id": 1}', offered, "yes", extra)


@st.composite
def target(draw: st.DrawFn, destructive: bool | None = None) -> tuple[str, Extra]:
    """A registered, offered tool (the demo's or the extra one)."""
    extra = draw(extras(destructive))
    if destructive is None:
        return (EXTRA if draw(st.booleans()) else draw(spread(DEMO))), extra
    if destructive:
        return draw(st.sampled_from(["delete_note", EXTRA])), extra
    return draw(st.sampled_from([n for n in DEMO if n != "delete_note"])), extra


@st.composite
def not_string_calls(draw: st.DrawFn) -> Call:
    name, extra = draw(target())
    raw = draw(spread(NOT_STRINGS))
    return Call(name, raw, draw(offered_with(name)), draw(spread(CONFIRMS)), extra)


@st.composite
def parse_calls(draw: st.DrawFn) -> Call:
    name, extra = draw(target())
    raw = draw(st.one_of(spread(NOT_JSON), st.sampled_from(DEEP), st.sampled_from(SHALLOW_NESTED),
                         st.text(max_size=6), good_call(extra, name).map(lambda call: call[1][:-1])))  # fmt: skip
    return Call(name, raw, draw(offered_with(name)), draw(st.sampled_from(["yes", "none", "raises"])), extra)


@st.composite
def object_calls(draw: st.DrawFn) -> Call:
    name, extra = draw(target())
    raw = draw(
        st.sampled_from(NOT_OBJECTS) | st.builds(json.dumps, values.filter(lambda v: type(v) is not dict))
    )
    return Call(name, raw, draw(offered_with(name)), draw(st.sampled_from(["yes", "none"])), extra)


@st.composite
def schema_calls(draw: st.DrawFn) -> Call:
    """Arguments that parse as an object: breaking the schema of a tool destructive or not, or fitting it."""
    extra = draw(extras(does=["echo", "tool_error", "zero"]))
    name = draw(spread([*DEMO, EXTRA]))
    table = (
        (EXTRA_BAD[extra.schema] + EXTRA_GOOD[extra.schema]) if name == EXTRA else BAD[name] + GOOD[name][:1]
    )
    raw = draw(encoded(draw(st.sampled_from(table))))
    return Call(name, raw, draw(offered_with(name)), draw(st.sampled_from(["yes", "one", "none"])), extra)


@st.composite
def confirm_calls(draw: st.DrawFn) -> Call:
    """Destructive or not, arguments good or not, and every kind of confirm."""
    name, extra = draw(target(draw(st.sampled_from([True, True, False]))))
    if draw(st.integers(0, 3)):
        _, raw = draw(good_call(extra, name))
    else:
        table = EXTRA_BAD[extra.schema] if name == EXTRA else BAD[name]
        raw = (
            draw(encoded(draw(st.sampled_from(table))))
            if table
            else draw(st.sampled_from(NOT_JSON + NOT_OBJECTS))
        )
    confirm = draw(spread(CONFIRMS) | spread(NEARLY_TRUE))
    return Call(name, raw, draw(offered_with(name)), confirm, extra)


@st.composite
def copy_calls(draw: st.DrawFn) -> Call:
    """A destructive call with nested arguments and a confirm that edits what it is shown."""
    extra = Extra(
        draw(st.sampled_from(["nested", "open", "numbers"])), True, draw(st.sampled_from(["echo", "none"]))
    )
    name = draw(st.sampled_from([EXTRA, EXTRA, "delete_note"]))
    _, raw = draw(good_call(extra, name))
    return Call(
        name,
        raw,
        draw(offered_with(name)),
        draw(st.sampled_from(["edits", "edits", "edits_no", "yes"])),
        extra,
    )


@st.composite
def raising_confirm_calls(draw: st.DrawFn) -> Call:
    name, extra = draw(target(True))
    _, raw = draw(good_call(extra, name))
    return Call(
        name,
        raw,
        draw(offered_with(name)),
        draw(st.sampled_from(["raises", "raises_tool", "no", "yes"])),
        extra,
    )


@st.composite
def unexpected_calls(draw: st.DrawFn, does: list[str]) -> Call:
    """The extra tool (or the demo's average of nothing, when its schema allows it) failing unexpectedly."""
    extra = draw(extras(does=does))
    if extra.does == "zero" and draw(st.booleans()):  # the notebook's own bug: average([])
        return Call("average", '{"numbers": []}', draw(offered_with("average")), "yes", extra)
    name, raw = draw(good_call(extra, EXTRA))
    return Call(name, raw, draw(offered_with(name)), "yes", extra)


@st.composite
def order_calls(draw: st.DrawFn) -> Call:
    """Each check free to fail or pass, several at once: the first that fails decides the answer."""
    extra = draw(extras(does=["echo", "tool_error", "zero", "nan"]))
    registered = draw(spread([*DEMO, EXTRA]))
    name = registered if draw(st.integers(0, 2)) else draw(st.sampled_from(NOT_NAMES[:8]))
    offered_or_not = draw(st.integers(0, 3)) > 0
    table = EXTRA_BAD[extra.schema] if registered == EXTRA else BAD[registered]
    raw = draw(st.one_of(
        spread(NOT_STRINGS), spread(NOT_JSON), spread(NOT_OBJECTS), st.sampled_from(DEEP),
        good_call(extra, registered).map(lambda call: call[1]),
        st.sampled_from(table).flatmap(encoded) if table else st.just("{}"),
    ))  # fmt: skip
    offered = draw(offered_with(name if isinstance(name, str) else registered, offered_or_not))
    return Call(name, raw, offered, draw(spread(CONFIRMS)), extra)


def _run_reference() -> Any:
    from course_lib.tools import run_tool_call  # noqa: PLC0415

    return run_tool_call


RUN = Part(
    ASSIGNMENT,
    "run_tool_call",
    _run_reference,
    observe_run,
    "the answer parsed as strict JSON (its dict, key order and spacing left open; NaN is not JSON), or an exception's "
    "type; the server log; the notes left; what the tool received; what confirm was asked. A name with a repr over "
    "100 characters, an argument string over 100 000, repeated keys, NaN, huge numbers and an offered holding a "
    "name twice are not drawn.",
    {
        "never_raise": Family(
            "never raise, whatever it is given, and return `json.dumps` of one dict, built by the first of the "
            "steps below that fails",
            "test_run_tool_call_order",
            order_calls(),
            examples=80,
        ),
        "offered": Family(
            "if `name` is not a `str`, not in `offered`, or not registered in `toolbox`",
            "test_run_tool_call_offered",
            offered_calls(),
            examples=80,
        ),
        "available": Family(
            "list in `available_tools` the sorted names in `offered` that are strings registered in `toolbox`, "
            "and no other name",
            "test_run_tool_call_offered",
            available_calls(),
        ),
        "not_str": Family(
            "if `raw_arguments` is not a `str`",
            "test_run_tool_call_arguments",
            not_string_calls(),
            examples=60,
        ),
        "parse": Family(
            'parse it with `json.loads`: a `RecursionError` gives `{"error": "arguments are nested too deeply"}`, '
            "a `ValueError` (which `JSONDecodeError` is) gives",
            "test_run_tool_call_arguments",
            parse_calls(),
        ),
        "object": Family(
            "if what it parsed is not a `dict`",
            "test_run_tool_call_arguments",
            object_calls(),
            examples=60,
        ),
        "schema": Family(
            "for every tool, destructive or not, with your `check_args` from Part A",
            "test_run_tool_call_arguments",
            schema_calls(),
            examples=80,
        ),
        "confirm": Family(
            'for a destructive tool, answer `{"error": "a human did not confirm this action; it was NOT '
            'performed"}` unless `confirm` is given and returns exactly `True`, and ask it only about arguments '
            "that passed step 3",
            "test_run_tool_call_destructive",
            confirm_calls(),
            examples=80,
        ),
        "confirm_copy": Family(
            "call `confirm(name, args_copy)` with a deep copy of the arguments, so that it cannot change what runs",
            "test_run_tool_call_confirm_copy",
            copy_calls(),
            examples=40,
        ),
        "confirm_raises": Family(
            "treat a `confirm` that raises as a no",
            "test_run_tool_call_destructive",
            raising_confirm_calls(),
            examples=30,
        ),
        "results": Family(
            'answer `{"result": tool.fn(**args)}`, or `{"error": str(error)}` when the tool raises a `ToolError`',
            "test_run_tool_call_results",
            result_calls(),
            examples=80,
        ),
        "allow_nan": Family(
            "encode with `json.dumps(..., allow_nan=False)`",
            "test_run_tool_call_unexpected",
            unexpected_calls(["nan", "inf", "inf_key", "echo", "big", "zero"]),
            examples=30,
        ),
        "unexpected": Family(
            "for any other exception, including the `TypeError` and `ValueError` that `json.dumps` raises for a "
            "result JSON cannot hold",
            "test_run_tool_call_unexpected",
            unexpected_calls([*sorted(RAISES), "set", "bytes", "tuple_key", "object", "nan", "int_keys"]),
            examples=60,
        ),
    },
)

PARTS = {part.name: part for part in (CHECK, TIGHTEN, RUN)}
