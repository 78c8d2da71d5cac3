"""The official SDKs accept every stand-in answer under strict validation, and map its errors."""

from __future__ import annotations

import json
from typing import Any

import openai
import pytest
from openai import OpenAI
from openai.types.chat import ChatCompletion
from openai.types.responses import Response

from course_lib.demo_tools import weather_toolbox
from course_lib.scenarios import PARIS
from course_lib.sdk_loop import sdk_chat_tool_loop, sdk_responses_tool_loop
from course_lib.standin import StandIn
from tests.support.http_helpers import CHAT_TOOLS, RESPONSES_TOOLS, USER

STEPS = {
    "text": ("text", "It is 15 C."),
    "one call": ("calls", [("get_weather", PARIS)]),
    "three calls": ("calls", [("get_weather", PARIS)] * 3),
    "neither text nor calls": ("calls", []),
    "unicode": ("text", "15 \u00b0C \u2603 \U0001f600"),
}
FORCED = {"chat": {"type": "function", "function": {"name": "get_weather"}},
          "responses": {"type": "function", "name": "get_weather"}}  # fmt: skip


def strict_client(server: StandIn) -> OpenAI:
    return OpenAI(base_url=server.base, api_key="stand-in", _strict_response_validation=True)


def answer(server: StandIn, path: str, body: dict[str, Any]) -> dict[str, Any]:
    result = server.handle("POST", "/v1" + path, json.dumps(body).encode())
    assert result.status == 200, result.payload
    return result.payload


@pytest.mark.parametrize("step", sorted(STEPS))
@pytest.mark.parametrize(
    "extra", [{}, {"parallel_tool_calls": False}, {"tool_choice": "required"}, {"forced": 1}]
)
def test_chat_answers_validate_as_chat_completion(step: str, extra: dict[str, Any]) -> None:
    body: dict[str, Any] = {"model": "m", "messages": USER, "tools": CHAT_TOOLS}
    body.update({"tool_choice": FORCED["chat"]} if "forced" in extra else extra)
    with StandIn([STEPS[step]]) as server:
        ChatCompletion.model_validate(answer(server, "/chat/completions", body), strict=False)


@pytest.mark.parametrize("step", sorted(STEPS))
@pytest.mark.parametrize("reasoning", [False, True])
@pytest.mark.parametrize(
    "extra", [{}, {"parallel_tool_calls": False}, {"tool_choice": "auto"}, {"forced": 1}]
)
def test_responses_answers_validate_as_response(step: str, reasoning: bool, extra: dict[str, Any]) -> None:
    body: dict[str, Any] = {
        "model": "m",
        "input": USER,
        "tools": RESPONSES_TOOLS,
        "instructions": "Be brief.",
    }
    body.update({"tool_choice": FORCED["responses"]} if "forced" in extra else extra)
    with StandIn([STEPS[step]], reasoning=reasoning) as server:
        Response.model_validate(answer(server, "/responses", body))


def test_the_sdk_chat_loop_runs_against_the_stand_in_under_strict_validation() -> None:
    with StandIn([("calls", [("get_weather", PARIS)] * 2), ("text", "Both 15 C.")]) as server:
        text, trace = sdk_chat_tool_loop(
            strict_client(server), "Weather?", weather_toolbox(), ["get_weather"]
        )
        assert (text, len(trace), len(server.log)) == ("Both 15 C.", 2, 2)


def test_the_sdk_responses_loop_replays_output_items_of_a_reasoning_model() -> None:
    with StandIn([("calls", [("get_weather", PARIS)]), ("text", "15 C.")], reasoning=True) as server:
        text, trace = sdk_responses_tool_loop(
            strict_client(server), "Weather?", weather_toolbox(), ["get_weather"]
        )
        assert (text, len(trace), len(server.log)) == ("15 C.", 1, 2)


@pytest.mark.parametrize(
    ("step", "exception"),
    [
        (("error", 400, "bad"), openai.BadRequestError),
        (("error", 429, "slow down"), openai.RateLimitError),
        (("error", 500, "boom"), openai.InternalServerError),
        (("text", lambda results: results[3]), openai.InternalServerError),
    ],
)
def test_errors_map_to_sdk_exceptions_without_retries(
    step: tuple[Any, ...], exception: type[Exception]
) -> None:
    with StandIn([step, ("text", "never reached")]) as server:
        with pytest.raises(exception):
            strict_client(server).chat.completions.create(model="m", messages=USER)  # type: ignore[arg-type]
        assert len(server.log) == 1 and server.remaining_steps == 1


def test_a_rejected_request_raises_bad_request_naming_the_param() -> None:
    with StandIn([("text", "unused")]) as server, pytest.raises(openai.BadRequestError) as error:
        strict_client(server).responses.create(model="m", input=[])
    assert error.value.param == "input"  # type: ignore[attr-defined]


def test_an_unknown_route_raises_not_found() -> None:
    with StandIn() as server, pytest.raises(openai.NotFoundError):
        strict_client(server).embeddings.create(model="m", input="hi")


def test_an_exhausted_script_is_a_readable_sdk_error() -> None:
    with StandIn([]) as server, pytest.raises(openai.InternalServerError, match="script exhausted"):
        strict_client(server).chat.completions.create(model="m", messages=USER)  # type: ignore[arg-type]
