"""The worked scenarios of notebooks 03 and 05: scripted models meeting the hand-written loops.

`run_scenario` runs one with the loops it is given, `{"chat": ..., "responses": ...}`: the learner's own,
or notebook 03's reference in `course_lib.loops.LOOPS`.

Each scenario is data (who asks what, which tools are offered, what the scripted model does) so the
notebooks show them and the tests pin their request counts from one definition.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from course_lib import model_api
from course_lib.demo_tools import WEATHER_TOOL_NAMES, weather_toolbox
from course_lib.errors import MaxStepsExceeded, ModelHTTPError
from course_lib.model_api import TraceEntry
from course_lib.scripted import Step
from course_lib.standin import StandIn
from course_lib.toolbox import Toolbox

PARIS = json.dumps({"city": "Paris", "unit": "celsius"})
Loop = model_api.Loop[str]
"""A hand-written tool loop (`model_api.Loop` over a base URL): (base, user_text, toolbox, names, **options)
-> (text, trace); the options a scenario passes (`tool_choice`, `sticky`) are 03's own."""


def temperature(results: list[str], index: int = 0) -> Any:
    """The temperature inside a get_weather result string."""
    return json.loads(results[index])["result"]["temperature"]


def _three_cities() -> list[tuple[str, str]]:
    return [
        ("get_weather", json.dumps({"city": city, "unit": "celsius"})) for city in ("Paris", "Bogota", "Oslo")
    ]


def _paris_answer(results: list[str]) -> str:
    return f"It is {temperature(results)} C in Paris."


@dataclass(frozen=True)
class Scenario:
    """One scripted conversation: the loop style, the request, the offered tools and the model's steps."""

    title: str
    api: str
    user_text: str
    script: Callable[[], list[Step]]
    names: tuple[str, ...] = WEATHER_TOOL_NAMES
    options: dict[str, Any] = field(default_factory=dict)


@dataclass
class Outcome:
    """What a scenario did: the final text (or why it stopped), the executed calls and the requests sent."""

    text: str
    trace: list[TraceEntry]
    requests: int
    stopped: bool = False


def run_scenario(
    server: StandIn, scenario: Scenario, loops: Mapping[str, Loop], toolbox: Toolbox | None = None
) -> Outcome:
    """Run one scenario against the stand-in with `loops[scenario.api]` and a fresh weather toolbox (or `toolbox`)."""
    server.reset(scenario.script())
    loop = loops[scenario.api]
    box = toolbox if toolbox is not None else weather_toolbox()
    try:
        text, trace = loop(server.base, scenario.user_text, box, list(scenario.names), **scenario.options)
    except MaxStepsExceeded as stop:
        return Outcome(f"STOPPED: {stop}", stop.trace, len(server.log), stopped=True)
    except ModelHTTPError as error:
        return Outcome(f"FAILED: {error}", [], len(server.log), stopped=True)
    return Outcome(text, trace, len(server.log))


def describe(title: str, outcome: Outcome, width: int = 110) -> str:
    """A few lines that read an outcome back: every round, the final text, the request count."""
    lines = [f"--- {title}"]
    for step, name, arguments, result in outcome.trace:
        shown = result if len(result) <= width else result[: width - 3] + "..."
        lines.append(f"  round {step}: {name}({arguments}) -> {shown}")
    lines.append(f"  final: {outcome.text}")
    lines.append(f"  requests sent to the model: {outcome.requests}")
    return "\n".join(lines)


FORCE_CHAT = {"type": "function", "function": {"name": "get_weather"}}
FORCE_RESPONSES = {"type": "function", "name": "get_weather"}

SCENARIOS: dict[str, Scenario] = {
    "single_chat": Scenario(
        "single call, chat API", "chat", "Weather in Paris?",
        lambda: [("calls", [("get_weather", PARIS)]), ("text", _paris_answer)],
    ),
    "single_responses": Scenario(
        "single call, responses API", "responses", "Weather in Paris?",
        lambda: [("calls", [("get_weather", PARIS)]), ("text", _paris_answer)],
    ),
    "parallel": Scenario(
        "three calls in one model turn", "chat", "Weather in 3 cities?",
        lambda: [
            ("calls", _three_cities()),
            ("text", lambda r: "Temps: " + ", ".join(str(temperature(r, i)) for i in range(3))),
        ],
    ),
    "one_per_turn": Scenario(
        "the same three, parallel_tool_calls=False: one call per turn", "chat", "Weather in 3 cities?",
        lambda: [("calls", [call]) for call in _three_cities()] + [("text", "Temps: gathered one at a time")],
        options={"parallel_tool_calls": False},
    ),
    "dependent": Scenario(
        "the second call needs the first result", "responses", "Weather where user u1 lives?",
        lambda: [
            ("calls", [("get_user_city", '{"user_id": "u1"}')]),
            ("calls", lambda r: [("get_weather", json.dumps({"city": json.loads(r[0])["result"], "unit": "celsius"}))]),
            ("text", lambda r: f"u1 lives where it is {temperature(r)} C."),
        ],
    ),
    "tool_error": Scenario(
        "a tool raises ToolError: the message goes back as a result", "chat", "Weather in Atlantis?",
        lambda: [
            ("calls", [("get_weather", '{"city": "Atlantis", "unit": "celsius"}')]),
            ("text", lambda r: "Sorry: " + json.loads(r[0])["error"]),
        ],
    ),
    "unexpected": Scenario(
        "a tool crashes with an unexpected exception", "chat", "Average of nothing?",
        lambda: [
            ("calls", [("average", '{"numbers": []}')]),
            ("text", lambda r: "Sorry: " + json.loads(r[0])["error"]),
        ],
    ),
    "recovers": Scenario(
        "malformed argument JSON, then a bad enum, then a good call", "chat", "Weather in Paris?",
        lambda: [
            ("calls", [("get_weather", '{"city": "Par')]),
            ("calls", [("get_weather", '{"city": "Paris", "unit": "kelvin"}')]),
            ("calls", [("get_weather", PARIS)]),
            ("text", _paris_answer),
        ],
    ),
    "hallucinated": Scenario(
        "a hallucinated tool name", "responses", "Weather in Paris?",
        lambda: [("calls", [("get_wether", PARIS)]), ("calls", [("get_weather", PARIS)]), ("text", _paris_answer)],
    ),
    "never_stops": Scenario(
        "the model never stops asking", "chat", "Weather in Paris?",
        lambda: [("calls", [("get_weather", PARIS)])] * 10,
        options={"max_steps": 4},
    ),
    "choice_none": Scenario(
        "tool_choice='none'", "chat", "Weather in Paris?",
        lambda: [("calls", [("get_weather", PARIS)])],
        options={"tool_choice": "none"},
    ),
    "forced_chat": Scenario(
        "a forced function, chat form", "chat", "Hi!",
        lambda: [("calls", [("get_weather", PARIS)]), ("text", lambda r: f"Forced a lookup: {temperature(r)} C.")],
        options={"tool_choice": FORCE_CHAT},
    ),
    "forced_responses": Scenario(
        "a forced function, responses form", "responses", "Hi!",
        lambda: [("calls", [("get_weather", PARIS)]), ("text", lambda r: f"Forced a lookup: {temperature(r)} C.")],
        options={"tool_choice": FORCE_RESPONSES},
    ),
    "sticky_forced": Scenario(
        "the pitfall: a forced tool_choice resent on every request", "chat", "Hi!",
        lambda: [("calls", [("get_weather", PARIS)])] * 5,
        options={"max_steps": 3, "tool_choice": FORCE_CHAT, "sticky": True},
    ),
}  # fmt: skip
