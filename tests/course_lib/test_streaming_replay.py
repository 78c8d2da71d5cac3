"""Replaying a reasoning model's turn: `encrypted_content` when asked for, checked when it comes back; echoed tools."""

from __future__ import annotations

import json
from typing import Any

import pytest

from course_lib.standin import Answer, StandIn
from course_lib.wire.responses import seal
from tests.support.http_helpers import PARIS, RESPONSES_TOOLS, USER

ASK = {"model": "m", "input": USER, "tools": RESPONSES_TOOLS, "include": ["reasoning.encrypted_content"]}


def send(server: StandIn, body: dict[str, Any]) -> Answer:
    return server.handle("POST", "/v1/responses", json.dumps(body).encode())


def replay(output: list[dict[str, Any]]) -> dict[str, Any]:
    outputs = [{"type": "function_call_output", "call_id": item["call_id"], "output": "15 C"}
               for item in output if item["type"] == "function_call"]  # fmt: skip
    return {**ASK, "input": USER + output + outputs}


@pytest.fixture
def reasoner() -> Any:
    with StandIn([("calls", [("get_weather", PARIS)]), ("text", "15 C")], reasoning=True) as server:
        yield server


def test_reasoning_items_carry_encrypted_content_only_when_included(reasoner: StandIn) -> None:
    asked = send(reasoner, ASK).payload["output"][0]
    reasoner.reset([("calls", [("get_weather", PARIS)])])
    unasked = send(reasoner, {**ASK, "include": []}).payload["output"][0]
    assert asked["encrypted_content"] == seal(asked["id"]) and "encrypted_content" not in unasked


def test_the_same_script_issues_the_same_encrypted_content(reasoner: StandIn) -> None:
    first = send(reasoner, ASK).payload["output"][0]["encrypted_content"]
    reasoner.reset([("calls", [("get_weather", PARIS)])])
    assert send(reasoner, ASK).payload["output"][0]["encrypted_content"] == first


def test_an_unchanged_replay_is_accepted(reasoner: StandIn) -> None:
    output = send(reasoner, ASK).payload["output"]
    assert send(reasoner, replay(output)).status == 200


def test_a_tampered_encrypted_content_is_rejected_and_takes_no_step(reasoner: StandIn) -> None:
    output = send(reasoner, ASK).payload["output"]
    output[0]["encrypted_content"] = output[0]["encrypted_content"][:-2] + "xx"
    answer = send(reasoner, replay(output))
    assert answer.status == 400 and "could not be verified" in answer.payload["error"]["message"]
    assert reasoner.remaining_steps == 1


def test_a_missing_encrypted_content_is_rejected(reasoner: StandIn) -> None:
    output = send(reasoner, ASK).payload["output"]
    del output[0]["encrypted_content"]
    answer = send(reasoner, replay(output))
    assert answer.status == 400 and "replayed without it" in answer.payload["error"]["message"]
    assert answer.payload["error"]["param"] == "input[1].encrypted_content"


def test_include_must_be_a_list_of_strings(reasoner: StandIn) -> None:
    answer = send(reasoner, {**ASK, "include": "reasoning.encrypted_content"})
    assert (answer.status, answer.payload["error"]["param"]) == (400, "include")


def test_the_streamed_reasoning_item_is_done_with_its_encrypted_content(reasoner: StandIn) -> None:
    events = send(reasoner, {**ASK, "stream": True}).events or []
    done = [
        e.data["item"] for e in events if e.name == "response.output_item.done" and isinstance(e.data, dict)
    ]
    assert done[0]["type"] == "reasoning" and done[0]["encrypted_content"] == seal(done[0]["id"])


def test_echoed_tools_always_carry_strict_and_parameters(reasoner: StandIn) -> None:
    tools = [{"type": "function", "name": "get_weather"}, {**RESPONSES_TOOLS[0], "strict": True, "name": "b"}]
    echoed = send(reasoner, {**ASK, "tools": tools}).payload["tools"]
    assert echoed == [{**tools[0], "strict": None, "parameters": None}, tools[1]]
