"""A stand-in for `post_json` in the property tests that compare an instructor's solution with the library's
reference, and the pieces those tests share: the same inputs for both, each with `post_json` replaced."""

from __future__ import annotations

import copy
from collections.abc import Callable
from contextlib import AbstractContextManager
from types import ModuleType
from typing import Any
from unittest import mock

from hypothesis import HealthCheck, settings

from course_lib.demo_tools import notes_of, weather_toolbox
from course_lib.errors import MaxStepsExceeded

SETTINGS = settings(
    max_examples=150, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
CALLS = [
    ("get_weather", '{"city": "Paris", "unit": "celsius"}'),
    ("get_weather", '{"city": "Par'),
    ("get_user_city", '{"user_id": "u1"}'),
    ("delete_note", '{"note_id": 1}'),
    ("get_wether", "{}"),
]
"""Calls a generated answer asks for: good, broken, another tool, destructive, unknown."""
OFFERED = [["get_weather"], ["get_weather", "get_user_city", "delete_note"], ["delete_note", "get_user_city"]]
"""The tool names a loop may be offered."""

Patch = Callable[["FakeEndpoint"], AbstractContextManager[Any]]


class FakeEndpoint:
    """post_json's stand-in: records a copy of each request, then gives the next answer (the last one again)."""

    def __init__(self, answers: list[Any]) -> None:
        self.answers: list[Any] = answers
        self.sent: list[tuple[str, dict[str, Any]]] = []

    def __call__(self, base: str, path: str, body: dict[str, Any], *args: Any, **kwargs: Any) -> Any:
        self.sent.append((path, copy.deepcopy(body)))
        return copy.deepcopy(self.answers[min(len(self.sent), len(self.answers)) - 1])


def responses_answer(texts: list[list[str]], calls: list[tuple[str, str]], number: int, think: bool) -> Any:
    """A Responses answer: maybe a reasoning item, message items of output_text parts, then function calls."""
    output: list[dict[str, Any]] = (
        [{"type": "reasoning", "id": f"rs_{number}", "summary": []}] if think else []
    )
    for m, parts in enumerate(texts):
        content = [{"type": "output_text", "text": part, "annotations": []} for part in parts]
        output.append({"type": "message", "id": f"msg_{number}_{m}", "role": "assistant", "content": content})
    for i, (name, arguments) in enumerate(calls):
        output.append(
            {
                "type": "function_call",
                "id": f"fc_{number}_{i}",
                "call_id": f"call_{number}_{i}",
                "name": name,
                "arguments": arguments,
            }
        )
    return {"object": "response", "output": output}


def converse(
    loop: Callable[..., Any], patch: Patch, answers: list[Any], offered: list[str], options: Any
) -> Any:
    """What a tool loop does with `answers`: its outcome, every body it sent, and the notes left in its toolbox."""
    endpoint, box = FakeEndpoint(answers), weather_toolbox()
    with patch(endpoint):
        try:
            text, trace = loop("http://127.0.0.1:9/v1", "Weather?", box, offered, **options)
            outcome: Any = ("returned", text, [tuple(entry) for entry in trace])
        except MaxStepsExceeded as stop:
            outcome = ("MaxStepsExceeded", [tuple(entry) for entry in stop.trace])
    return outcome, endpoint.sent, notes_of(box)


def reference_and_mine(
    run: Callable[..., Any], module: ModuleType, solution: dict[str, Any], name: str, *inputs: Any
) -> tuple[Any, Any]:
    """What `run` makes of the library's `module.name` and of the instructor's `name` (in the namespace of its
    solution cells) on the same `inputs`, each talking to a FakeEndpoint in place of its `post_json`."""
    reference = run(
        getattr(module, name), lambda endpoint: mock.patch.object(module, "post_json", endpoint), *inputs
    )
    mine = run(solution[name], lambda endpoint: mock.patch.dict(solution, {"post_json": endpoint}), *inputs)
    return reference, mine
