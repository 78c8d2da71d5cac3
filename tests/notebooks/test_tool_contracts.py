"""Notebook 05's instructor solutions of Parts A and B against course_lib.tools, over generated inputs.

The inputs keep to what the parts' prose covers (JSON values, schemas using the listed keywords with values of
their documented types, argument strings `json.loads` reads as the reference does) and vary everything the
prose rules on: bools beside numbers, 3.0 beside 3, long enum values, nested lists and dicts, required and
extra keys, minItems on lists and on other values; names offered or not, argument strings that do not parse or
are not objects, destructive calls and every kind of confirm, tools that fail expectedly, unexpectedly or with a
result JSON cannot hold. Both must give the same answer, the same server log and the same notes.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from course_lib import tools
from course_lib.demo_tools import notes_of, weather_toolbox
from course_lib.errors import ToolError
from tests.support.instructor_solutions import instructor_solution

SETTINGS = settings(
    max_examples=500, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
KEYS = ("a", "b", "c")
TYPES = ("string", "integer", "number", "boolean", "object", "array", "null")

scalars = st.sampled_from([True, False, 0, 1, 1.0, 2, 2.5, -0.0, 10**20, None, "", "a", "x" * 120])
values = scalars | st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(KEYS), inner, max_size=3),
    max_leaves=8,
)


def schemas(depth: int = 2) -> st.SearchStrategy[dict[str, Any]]:
    """Schemas using only the keywords Part A lists, each with a value of its documented JSON type.

    Mostly shaped like tool parameters (an object schema, an array schema, a scalar one), with keywords left
    out at random and now and then put where they do not apply (`required` on a string, `minItems` on a dict).
    """
    inner = schemas(depth - 1) if depth else st.just({})
    types = st.sampled_from(TYPES) | st.lists(st.sampled_from(TYPES), min_size=1, max_size=3)
    enum = st.lists(scalars | st.lists(scalars, max_size=2), min_size=1, max_size=3)
    obj = st.fixed_dictionaries(
        {"properties": st.dictionaries(st.sampled_from(KEYS), inner, max_size=3)},
        optional={
            "type": st.just("object") | types,
            "required": st.lists(st.sampled_from(KEYS), max_size=3, unique=True),
            "additionalProperties": st.just(False) | st.booleans() | inner,
            "minItems": st.integers(0, 2),
        },
    )
    array = st.fixed_dictionaries(
        {},
        optional={
            "type": st.just("array") | types,
            "items": inner,
            "minItems": st.integers(0, 3),
            "enum": enum,
        },
    )
    scalar = st.fixed_dictionaries({}, optional={"type": types, "enum": enum, "required": st.just(["a"])})
    return obj | array | scalar


@pytest.fixture(scope="module")
def solutions() -> Iterator[dict[str, Any]]:
    """Both instructor solutions: the namespace up to Part B's solution also holds Part A's."""
    with instructor_solution("05_failures", "run_tool_call") as namespace:
        yield namespace


NEAR = {
    "string": ["", "a", "x" * 120, 1],
    "integer": [0, 2, 3.0, -0.0, 10**20, 2.5, True],
    "number": [1, 2.5, 1.0, False, "1"],
    "boolean": [True, False, 0, 1],
    "null": [None, False, 0, ""],
}
"""For each scalar type, values of it and the near misses the prose rules on (bools, 3.0, strings of digits)."""


def twins(option: Any) -> list[Any]:
    """Values Python's == confuses with `option` while JSON may not: True and 1, 1 and 1.0, [0] and [False]."""
    if isinstance(option, bool):
        return [int(option)]
    if isinstance(option, int | float):
        return [float(option), int(option), *([bool(option)] if option in (0, 1) else [])]
    if isinstance(option, list):
        return [[twin for item in option for twin in twins(item)[:1] or [item]]]
    return []


def near(draw: st.DrawFn, schema: dict[str, Any], depth: int = 0) -> Any:
    """A value shaped after `schema`, or near it: the inputs where the rules of Part A decide something."""
    if depth > 3 or not draw(st.integers(0, 5)):
        return draw(values)
    if schema.get("enum") and draw(st.booleans()):
        option = draw(st.sampled_from(schema["enum"]))
        return draw(st.sampled_from([option, *twins(option)]))
    shape = ["object"] if "properties" in schema else ["array"] if "items" in schema else list(TYPES)
    kinds = schema.get("type", shape)
    kind = draw(st.sampled_from(kinds if isinstance(kinds, list) else [kinds]))
    if kind == "object":
        properties, extra = schema.get("properties", {}), schema.get("additionalProperties", True)
        keys = draw(st.lists(st.sampled_from([*properties, *schema.get("required", []), *KEYS]), max_size=3))
        keys = list(dict.fromkeys(keys))
        sub = {key: properties.get(key, extra if isinstance(extra, dict) else {}) for key in keys}
        return {key: near(draw, sub[key], depth + 1) for key in keys}
    if kind == "array":
        size = draw(st.integers(0, 3) | st.just(2))
        return [near(draw, schema.get("items", {}), depth + 1) for _ in range(size)]
    return draw(st.sampled_from(NEAR[kind]))


@st.composite
def checks(draw: st.DrawFn) -> tuple[Any, dict[str, Any]]:
    """A schema and a value shaped after it, or near it, or anything."""
    schema = draw(schemas())
    return near(draw, schema), schema


@SETTINGS
@given(checks(), st.sampled_from(["$", "$.limit"]))
def test_the_checker_lists_the_problems_the_reference_lists(
    solutions: dict[str, Any], check: tuple[Any, dict[str, Any]], path: str
) -> None:
    value, schema = check
    kept = copy.deepcopy(check)
    assert solutions["check_args"](value, schema, path) == tools.check_args(value, schema, path)
    assert (value, schema) == kept, "check_args modified its input"


def odd_tools(box: tools.Toolbox) -> tools.Toolbox:
    """The demo toolbox plus tools that fail in every way step 5 covers."""
    box.tool("ratio", "A ratio.", {})(lambda: float("nan"))
    box.tool("tags", "The tags in use.", {})(lambda: {"home", "work"})
    box.tool("lookup", "Look up a row.", {"key": {"type": "string"}})(lambda key: {"row": 1}[key])

    def refuse(key: str) -> None:
        raise ToolError(f"no row {key!r}")

    box.tool("refuse", "Always refuses.", {"key": {"type": "string"}})(refuse)
    return box


CALLS: dict[Any, list[Any]] = {
    "get_weather": ['{"city": "Paris", "unit": "celsius"}', '{"city": "Atlantis", "unit": "celsius"}',
                    '{"city": "Paris", "unit": "kelvin", "days": 3}', '{"unit": "celsius"}'],
    "average": ['{"numbers": [2, 4]}', '{"numbers": []}', '{"numbers": [1, true]}'],
    "delete_note": ['{"note_id": 1}', '{"note_id": 2.0}', '{"note_id": true}', '{"note_id": "all"}'],
    "ratio": ["{}"], "tags": ["{}"], "refuse": ['{"key": "row"}'],
    "lookup": ['{"key": "row"}', '{"key": "password=hunter2"}'],
}  # fmt: skip
NAMES = [*CALLS, "delete_note", "get_wether", "", None, 7, ["get_weather"]]
BAD_ARGUMENTS = ["{}", "[]", "null", '"Paris"', '{"city": "Par', "", "[" * 5000, None, b"{}", {"note_id": 1}]


@st.composite
def calls(draw: st.DrawFn) -> tuple[Any, Any, Any]:
    """A call (name, raw arguments, offered): mostly a name's own arguments, often offered, in any collection."""
    name = draw(st.sampled_from(NAMES))
    own = CALLS.get(name, []) if isinstance(name, str) else []
    raw = draw(st.sampled_from(own if own and draw(st.integers(0, 3)) else BAD_ARGUMENTS))
    names = draw(st.lists(st.sampled_from([n for n in NAMES if not isinstance(n, list)]), max_size=3))
    if isinstance(name, str) and draw(st.integers(0, 3)):
        names.append(name)
    return name, raw, draw(st.sampled_from([list, tuple, set]))(names)


def confirms(kind: str) -> Callable[[str, dict[str, Any]], Any] | None:
    """A confirm of each kind the prose rules on: missing, yes, no, truthy, raising, editing what it is shown."""
    if kind == "none":
        return None
    if kind == "raises":

        def closed(name: str, args: dict[str, Any]) -> bool:
            raise RuntimeError("dialog closed")

        return closed
    if kind == "edits":
        return lambda name, args: args.update(note_id=2) is None
    answer = {"yes": True, "no": False, "truthy": "yes"}[kind]
    return lambda name, args: answer


@SETTINGS
@given(calls(), st.sampled_from(["none", "yes", "no", "truthy", "raises", "edits"]))
def test_the_dispatcher_answers_every_call_as_the_reference_does(
    solutions: dict[str, Any], call: tuple[Any, Any, Any], confirm: str
) -> None:
    name, raw, offered = call
    mine, reference = odd_tools(weather_toolbox()), odd_tools(weather_toolbox())
    got = solutions["run_tool_call"](mine, name, raw, offered, confirm=confirms(confirm))
    want = tools.run_tool_call(reference, name, raw, offered, confirm=confirms(confirm))
    assert got == want
    assert mine.server_log == reference.server_log
    assert notes_of(mine) == notes_of(reference)
