"""The Anthropic Messages route: documented rules, its own error envelope, strict SDK validation."""

from __future__ import annotations

import json
from typing import Any

import anthropic
import pytest
from anthropic.types import Message

from course_lib.standin import StandIn
from tests.support.http_helpers import PARIS, call

TOOLS = [{"name": "get_weather", "description": "Weather.", "input_schema": {"type": "object"}}]
USER = [{"role": "user", "content": "Weather in Paris?"}]


def body(**extra: Any) -> dict[str, Any]:
    return {"model": "m", "max_tokens": 100, "messages": USER, "tools": TOOLS, **extra}


def strict_client(server: StandIn) -> anthropic.Anthropic:
    return anthropic.Anthropic(base_url=server.root, api_key="stand-in", _strict_response_validation=True)


def test_a_call_is_a_tool_use_block_with_an_object_input(server: StandIn) -> None:
    server.reset([("calls", [("get_weather", PARIS)])])
    status, answer, _ = call(server, "/messages", body())
    assert status == 200 and answer["stop_reason"] == "tool_use"
    block = {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": json.loads(PARIS)}
    assert answer["content"][0] == block


def test_arguments_that_are_no_json_object_end_the_turn_at_max_tokens(server: StandIn) -> None:
    server.reset([("calls", [("get_weather", '{"city": "Par')])])
    _, answer, _ = call(server, "/messages", body())
    assert answer["stop_reason"] == "max_tokens" and answer["content"] == []


def test_errors_use_the_anthropic_envelope(server: StandIn) -> None:
    status, answer, headers = call(server, "/messages", {"model": "m", "messages": USER})
    assert status == 400 and answer["type"] == "error" and answer["error"]["type"] == "invalid_request_error"
    assert "max_tokens" in answer["error"]["message"] and headers["x-should-retry"] == "false"


def test_a_tool_use_without_its_tool_result_is_400(server: StandIn) -> None:
    use = {"type": "tool_use", "id": "toolu_9", "name": "get_weather", "input": {}}
    history = [*USER, {"role": "assistant", "content": [use]}, {"role": "user", "content": "and?"}]
    status, answer, _ = call(server, "/messages", body(messages=history))
    assert status == 400 and "toolu_9" in answer["error"]["message"]


def test_a_tool_result_for_an_unknown_id_is_400(server: StandIn) -> None:
    result = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_5", "content": "15"}]}
    status, answer, _ = call(server, "/messages", body(messages=[*USER, result]))
    assert status == 400 and "toolu_5" in answer["error"]["message"]


def test_tool_results_reach_the_script_function(server: StandIn) -> None:
    server.reset([("calls", [("get_weather", PARIS)]), ("text", lambda results: f"got {results}")])
    _, first, _ = call(server, "/messages", body())
    result = {"type": "tool_result", "tool_use_id": "toolu_1", "content": "15 C", "is_error": False}
    history = [
        *USER,
        {"role": "assistant", "content": first["content"]},
        {"role": "user", "content": [result]},
    ]
    _, second, _ = call(server, "/messages", body(messages=history))
    assert second["content"][0]["text"] == "got ['15 C']" and second["stop_reason"] == "end_turn"


@pytest.mark.parametrize(
    ("choice", "calls"),
    [({"type": "any"}, 1), ({"type": "tool", "name": "get_weather"}, 1), ({"type": "none"}, 0)],
)
def test_tool_choice_behaves_as_documented(server: StandIn, choice: dict[str, Any], calls: int) -> None:
    server.reset([("text", "no tools")])
    _, answer, _ = call(server, "/messages", body(tool_choice=choice))
    assert sum(block["type"] == "tool_use" for block in answer["content"]) == calls


def test_disable_parallel_tool_use_gives_one_call(server: StandIn) -> None:
    server.reset([("calls", [("get_weather", PARIS)] * 3)])
    _, answer, _ = call(
        server, "/messages", body(tool_choice={"type": "auto", "disable_parallel_tool_use": True})
    )
    assert len(answer["content"]) == 1


@pytest.mark.parametrize(
    "step",
    [("text", "15 C"), ("calls", [("get_weather", PARIS)] * 2), ("calls", []), ("calls", [("x", "{")])],
)
def test_every_answer_validates_as_an_anthropic_message(step: tuple[Any, ...]) -> None:
    with StandIn([step]) as server:
        Message.model_validate(server.handle("POST", "/v1/messages", json.dumps(body()).encode()).payload)


def test_the_anthropic_sdk_runs_a_tool_round_under_strict_validation() -> None:
    with StandIn([("calls", [("get_weather", PARIS)]), ("text", "It is 15 C.")]) as server:
        client = strict_client(server)
        first = client.messages.create(model="m", max_tokens=100, messages=USER, tools=TOOLS)  # type: ignore[arg-type]
        use = first.content[0]
        assert use.type == "tool_use" and first.stop_reason == "tool_use"
        result = {"type": "tool_result", "tool_use_id": use.id, "content": "15", "is_error": False}
        history = [
            *USER,
            {"role": "assistant", "content": first.content},
            {"role": "user", "content": [result]},
        ]
        final = client.messages.create(model="m", max_tokens=100, messages=history, tools=TOOLS)  # type: ignore[arg-type]
    assert final.content[0].type == "text" and final.content[0].text == "It is 15 C."


@pytest.mark.parametrize(
    ("step", "exception"),
    [
        (("error", 400, "bad"), anthropic.BadRequestError),
        (("error", 529, "busy"), anthropic.InternalServerError),
    ],
)
def test_sdk_errors_map_without_retries(step: tuple[Any, ...], exception: type[Exception]) -> None:
    with StandIn([step]) as server, pytest.raises(exception):
        strict_client(server).messages.create(model="m", max_tokens=10, messages=USER)  # type: ignore[arg-type]
    assert len(server.log) == 1
