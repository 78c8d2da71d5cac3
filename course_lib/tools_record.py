"""Notebook 05: what the reference checker and dispatcher answered, recorded and published with the fixtures.

`python -m course_lib.tools --record` runs the calls notebook 05 shows (`CHECKS`, `CALLS`, `PLAYED`) through
the reference, `course_lib.tools`, and writes `course_lib/fixtures/tools_reference.json`;
tests/course_lib/test_tools_record.py checks that the file still says what the reference does. A learners' edition
holds this record and not the reference: notebook 05 shows the reference's answers from it before the
learner has written their own, and its visible tests compare with it. Each call runs on a fresh
`weather_toolbox()`.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from course_lib.demo_tools import WEATHER_TOOL_NAMES, notes_of, weather_toolbox
from course_lib.fixtures import __file__ as fixtures_init
from course_lib.fixtures import load_fixture
from course_lib.scenarios import PARIS, SCENARIOS, Loop, describe, run_scenario
from course_lib.standin import StandIn
from course_lib.toolbox import Runner

__all__ = ["CALLS", "CHECKS", "FIXTURE", "PLAYED", "Recorded", "record", "reference_call",
           "reference_play", "reference_problems", "write"]  # fmt: skip

FIXTURE = "tools_reference"
"""The fixture's name (`load_fixture(FIXTURE)`)."""

Checker = Callable[[Any, Mapping[str, Any]], list[str]]
"""05's `check_args(value, schema)`."""

_BOX = weather_toolbox()
WEATHER, AVERAGE, DELETE_NOTE = (_BOX[name].parameters for name in ("get_weather", "average", "delete_note"))
_TIGHT = {
    "type": "object",
    "required": ["numbers"],
    "additionalProperties": False,
    "properties": {"numbers": {"type": "array", "items": {"type": "number"}, "minItems": 1}},
}
_NESTED = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "filter": {
            "type": "object",
            "properties": {"tag": {"type": "string"}},
            "required": ["tag"],
            "additionalProperties": False,
        }
    },
}
_UNIT = {"type": "string", "enum": ["celsius", "fahrenheit"]}

CHECKS: tuple[tuple[Any, Mapping[str, Any]], ...] = (
    # section 3's demos
    ({"city": "Paris", "unit": "kelvin", "days": 3}, WEATHER), ({"unit": "celsius"}, WEATHER),
    (True, {"type": "integer"}), (True, {"enum": [1, 2]}), (1.0, {"enum": [1, 2]}), (2.0, {"type": "integer"}),
    ({"note_id": 2.0}, DELETE_NOTE), ({"numbers": []}, AVERAGE),
    # Part A's visible tests: types
    ("Paris", {"type": "string"}), (3, {"type": "string"}), (True, {"type": "integer"}),
    (False, {"type": "number"}), (3, {"type": "integer"}), (3.0, {"type": "integer"}),
    (3.5, {"type": "integer"}), (3.5, {"type": "number"}), (None, {"type": ["string", "null"]}),
    (7, {"type": ["string", "null"]}), (True, {"type": "boolean"}), ([], {"type": "object"}),
    ({}, {"type": "array"}), ("x", {}),
    # enum
    ("kelvin", _UNIT), ("celsius", _UNIT), (True, {"enum": [1, 2]}), (1, {"enum": [True, False]}),
    (0, {"enum": [False]}), (1.0, {"enum": [1, 2]}), (None, {"enum": [None]}), ("1", {"enum": [1]}),
    ("k" * 98, _UNIT), ("k" * 150, _UNIT), (list(range(60)), {"enum": [1]}),
    # objects
    ({"city": "Paris", "unit": "celsius"}, WEATHER), ({"unit": "kelvin"}, WEATHER), ({}, WEATHER),
    ({"city": "Paris", "unit": "celsius", "days": 3}, WEATHER),
    ({"city": 5, "unit": "celsius", "extra": True}, WEATHER),
    ({"filter": {"tag": 1, "x": 2}}, _NESTED), ({"filter": {}, "page": 2}, _NESTED),
    # arrays
    ({"numbers": [2, 4]}, _TIGHT), ({"numbers": [1, "2", True]}, _TIGHT), ({"numbers": []}, AVERAGE),
    ({"numbers": [[1]]}, _TIGHT),
)  # fmt: skip
"""The `check_args(value, schema)` calls notebook 05 shows before Part A, and those its visible tests make."""

_ALL = tuple(WEATHER_TOOL_NAMES)
_GET = ("get_weather",)
_DELETE = ("delete_note",)

CALLS: tuple[tuple[object, object, tuple[object, ...], object], ...] = (
    # section 4's demos: strings a model might produce, and inputs json.loads mishandles
    ("get_weather", '{"city": "Paris", "unit": "celsius"', _GET, None),
    ("get_weather", "{'city': 'Paris'}", _GET, None),
    ("get_weather", '["Paris", "celsius"]', _GET, None), ("get_weather", "", _GET, None),
    ("get_weather", "[" * 100_000, _GET, None), ("get_weather", b'{"city": "Paris", "unit": "celsius"}', _GET, None),
    ("get_weather", None, _GET, None),
    # section 6: validation before the human
    ("delete_note", '{"note_id": "all"}', _DELETE, True),
    # Part B's self-check and visible tests
    ("get_weather", PARIS, _ALL, None), ("get_weather", '{"city": "Atlantis", "unit": "celsius"}', _ALL, None),
    ("get_wether", PARIS, _ALL, None), ("delete_note", '{"note_id": 1}', _ALL, None),
    ("get_weather", '{"city": "Par', _ALL, None), ("get_weather", '{"city": "Paris", "unit": "kelvin"}', _ALL, None),
    ("average", '{"numbers": []}', _ALL, None),
    ("get_weather", '{"city": "Oslo", "unit": "fahrenheit"}', _ALL, None),
    ("get_user_city", '{"user_id": "u1"}', _ALL, None),
    ("average", '{"numbers": [2, 4, 9]}', _ALL, None), ("get_user_city", '{"user_id": "u9"}', _ALL, None),
    ("get_wether", PARIS, _ALL, True), ("delete_note", '{"note_id": 1}', _ALL, True),
    ("average", '{"numbers": []}', ("get_weather", "get_user_city"), True), ("get_weather", PARIS, (), True),
    *(("get_weather", raw, _ALL, None) for raw in (
        "", "{'city': 'Paris'}", "[]", '"Paris"', "null", '{"city": "Paris"}',
        '{"city": "Paris", "unit": "celsius", "days": 3}', '{"city": ["Paris"], "unit": "celsius"}')),
    ("average", '{"numbers": [2, "4", true]}', _ALL, None),
    ("delete_note", '{"note_id": 1}', _DELETE, None), ("delete_note", '{"note_id": 1}', _DELETE, False),
    ("delete_note", '{"note_id": 1}', _DELETE, True),
)  # fmt: skip
"""The `run_tool_call` calls notebook 05 shows before Part B, and those its visible tests make:
(name, raw_arguments, offered, answer), where `answer` is what `confirm` returns (None: no confirm)."""

PLAYED = ("recovers",)
"""The scenarios (`course_lib.scenarios.SCENARIOS`) whose run through the reference dispatcher is recorded."""


@dataclass(frozen=True)
class Recorded:
    """What the reference did with one call on a fresh `weather_toolbox()`."""

    answer: str
    """The JSON string it returned."""
    asked: list[dict[str, Any]]
    """The arguments `confirm` was asked about, in order."""
    notes: dict[int, str]
    """The toolbox's notes afterwards (`notes_of`)."""
    server_log: list[str]
    """The toolbox's server log afterwards."""


def _key(name: object, raw_arguments: object, offered: Collection[object], answer: object) -> str:
    """A short fingerprint of one call: the same call always gives the same key, whatever order `offered` has."""
    names = [offered] if isinstance(offered, str) else sorted(repr(item) for item in offered)
    text = repr((name, raw_arguments, names, answer))
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:20]


def _canonical(value: object, schema: object) -> str:
    """`value` and `schema` as one JSON text, which keeps True, 1 and 1.0 apart."""
    return json.dumps([value, schema], sort_keys=True)


def _run(run: Runner, call: tuple[object, object, tuple[object, ...], object]) -> dict[str, Any]:
    """Run one call through `run` on a fresh toolbox, and record what happened."""
    name, raw_arguments, offered, answer = call
    box, asked = weather_toolbox(), []

    def confirm(tool: str, arguments: dict[str, Any]) -> Any:
        asked.append(arguments)
        return answer

    reply = run(box, name, raw_arguments, offered, None if answer is None else confirm)  # type: ignore[arg-type]
    shown = f"{name!r}, {raw_arguments!r:.60}, {list(offered)!r}" + (
        "" if answer is None else f", {answer!r}"
    )
    return {
        "call": f"run_tool_call(box, {shown})",
        "key": _key(name, raw_arguments, offered, answer),
        "answer": reply,
        "asked": asked,
        "notes": [[number, text] for number, text in sorted(notes_of(box).items())],
        "server_log": list(box.server_log),
    }


def record(check: Checker, run: Runner, loops: Mapping[str, Loop]) -> dict[str, Any]:
    """The fixture's content: `check` and `run` (the reference's) on every call, and the played scenarios."""
    checks = [{"value": v, "schema": s, "problems": check(v, s)} for v, s in CHECKS]
    calls = list({entry["key"]: entry for entry in (_run(run, call) for call in CALLS)}.values())
    played = {}
    with StandIn() as server:
        for key in PLAYED:
            scenario = SCENARIOS[key]
            outcome = run_scenario(server, scenario, loops, weather_toolbox(runner=run))
            played[key] = describe(scenario.title, outcome)
    return {
        "why": "notebook 05's calls through the reference check_args and run_tool_call, each on a fresh "
        "weather_toolbox(): what a learner's functions are compared with",
        "check_args": checks,
        "run_tool_call": calls,
        "scenarios": played,
    }


def write(content: Mapping[str, Any]) -> Path:
    """Write the fixture's content to `course_lib/fixtures/tools_reference.json`; return its path."""
    path = Path(fixtures_init).parent / f"{FIXTURE}.json"
    path.write_text(
        json.dumps(content, indent=2, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    return path


def reference_problems(value: object, schema: Mapping[str, Any]) -> list[str]:
    """What the reference `check_args(value, schema)` returned, read from the published record."""
    wanted = _canonical(value, schema)
    for entry in load_fixture(FIXTURE)["check_args"]:
        if _canonical(entry["value"], entry["schema"]) == wanted:
            return list(entry["problems"])
    raise ValueError(f"the published record holds no check_args call like ({wanted:.120}); "
                     "it holds those notebook 05 shows (course_lib.tools_record.CHECKS)")  # fmt: skip


def reference_call(
    name: object,
    raw_arguments: object,
    offered: Iterable[object] = WEATHER_TOOL_NAMES,
    answer: object = None,
) -> Recorded:
    """What the reference `run_tool_call` did with this call on a fresh toolbox, `confirm` answering `answer`
    (None: no confirm), read from the published record."""
    key = _key(name, raw_arguments, offered if isinstance(offered, str) else list(offered), answer)
    for entry in load_fixture(FIXTURE)["run_tool_call"]:
        if entry["key"] == key:
            notes = {number: text for number, text in entry["notes"]}
            return Recorded(entry["answer"], entry["asked"], notes, entry["server_log"])
    raise ValueError(f"the published record holds no run_tool_call call like ({name!r}, {raw_arguments!r:.60}); "
                     "it holds those notebook 05 shows (course_lib.tools_record.CALLS)")  # fmt: skip


def reference_play(key: str) -> str:
    """The report (`scenarios.describe`) of scenario `key` run through the reference dispatcher, from the record."""
    played: dict[str, str] = load_fixture(FIXTURE)["scenarios"]
    if key not in played:
        raise ValueError(f"the published record holds no run of scenario {key!r}; it holds {sorted(played)}")
    return played[key]
