"""The infrastructure's plain runner (`Toolbox.run`) and declarations: what notebook 03's loops use."""

from __future__ import annotations

import json
from typing import Any

from course_lib.demo_tools import notes_of, weather_toolbox
from course_lib.errors import ToolError
from course_lib.toolbox import Toolbox
from course_lib.tools import run_tool_call

PARIS = '{"city": "Paris", "unit": "celsius"}'


def run(box: Toolbox, name: str, raw: str, offered: list[str], **kw: Any) -> Any:
    return json.loads(box.run(name, raw, offered, **kw))


def test_a_call_runs_and_its_result_comes_back_as_json() -> None:
    assert run(weather_toolbox(), "get_weather", PARIS, ["get_weather"]) == {
        "result": {"city": "Paris", "temperature": 15, "unit": "celsius"}
    }


def test_a_tool_not_offered_in_this_request_is_unknown() -> None:
    assert run(weather_toolbox(), "get_user_city", '{"user_id": "u1"}', ["get_weather"]) == {
        "error": "unknown tool 'get_user_city'",
        "available_tools": ["get_weather"],
    }


def test_arguments_that_are_not_a_json_object_are_refused() -> None:
    box = weather_toolbox()
    assert run(box, "get_weather", '{"city": "Par', ["get_weather"]) == {
        "error": "arguments are not valid JSON"
    }
    assert run(box, "get_weather", "[1]", ["get_weather"]) == {"error": "arguments must be a JSON object"}


def test_a_destructive_tool_runs_only_on_an_explicit_yes() -> None:
    box = weather_toolbox()
    for confirm in (None, lambda name, args: "yes", lambda name, args: 1 / 0):
        assert (
            "NOT performed"
            in run(box, "delete_note", '{"note_id": 1}', ["delete_note"], confirm=confirm)["error"]
        )
    assert run(box, "delete_note", '{"note_id": 1}', ["delete_note"], confirm=lambda name, args: True) == {
        "result": {"deleted": "buy milk"}
    }
    assert notes_of(box) == {2: "call the bank"}


def test_an_expected_failure_is_reported_and_an_unexpected_one_only_by_its_type() -> None:
    box = weather_toolbox()
    assert run(box, "get_weather", '{"city": "Atlantis", "unit": "celsius"}', ["get_weather"]) == {
        "error": "no weather data for city 'Atlantis'"
    }
    assert run(box, "average", '{"numbers": []}', ["average"]) == {
        "error": "tool 'average' failed with ZeroDivisionError"
    }
    assert "division by zero" in box.server_log[0]


def test_a_toolbox_with_a_runner_hands_every_call_to_it() -> None:
    box = Toolbox(runner=run_tool_call)

    @box.tool("echo", "Echo a word.", {"word": {"type": "string"}})
    def echo(word: str) -> str:
        if not word:
            raise ToolError("empty word")
        return word

    assert run(box, "echo", '{"word": 3}', ["echo"])["error"] == "invalid arguments"
    assert run(Toolbox(), "echo", '{"word": 3}', ["echo"])["error"] == "unknown tool 'echo'"


def test_a_declaration_is_a_copy_in_a_fixed_key_order() -> None:
    box = weather_toolbox()
    declaration = box["get_weather"].declaration()
    assert (
        list(declaration) == ["name", "description", "parameters", "strict"] and declaration["strict"] is True
    )
    declaration["parameters"]["required"].append("country")
    assert box["get_weather"].parameters["required"] == ["city", "unit"]
