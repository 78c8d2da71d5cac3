"""Every OpenAI-style stand-in body, streamed or not, validates against the published OpenAPI schemas.

The schemas are vendored in tests/support/fixtures/openai_openapi_schemas.json, copied unchanged from
openai/openai-openapi (its `source` names the commit). Anthropic publishes no OpenAPI description, so the
Messages route is checked against the `anthropic` SDK's types instead (test_messages_route, test_streaming).
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from course_lib.standin import StandIn
from tests.support.http_helpers import CHAT_TOOLS, PARIS, USER

FIXTURE = Path(__file__).resolve().parents[1] / "support" / "fixtures" / "openai_openapi_schemas.json"
STEPS = [("calls", [("get_weather", PARIS), ("get_weather", "{}")]), ("text", "15 \u00b0C"), ("calls", [])]
TOOLS = [{"type": "function", "name": "get_weather"},
         {"type": "function", "name": "strict_one", "strict": True, "parameters": {"type": "object"}}]  # fmt: skip
RESPONSES_BODY = {"model": "m", "input": USER, "tools": TOOLS, "include": ["reasoning.encrypted_content"]}
EVENT_SCHEMAS = {"response.created": "ResponseCreatedEvent", "response.in_progress": "ResponseInProgressEvent",
                 "response.output_item.added": "ResponseOutputItemAddedEvent",
                 "response.output_item.done": "ResponseOutputItemDoneEvent",
                 "response.function_call_arguments.delta": "ResponseFunctionCallArgumentsDeltaEvent",
                 "response.function_call_arguments.done": "ResponseFunctionCallArgumentsDoneEvent",
                 "response.content_part.added": "ResponseContentPartAddedEvent",
                 "response.content_part.done": "ResponseContentPartDoneEvent",
                 "response.output_text.delta": "ResponseTextDeltaEvent",
                 "response.output_text.done": "ResponseTextDoneEvent",
                 "response.completed": "ResponseCompletedEvent"}  # fmt: skip


def _nullable(schema: Any) -> Any:
    """OpenAPI 3.0's `nullable: true` (still in parts of the 3.1 description) as JSON Schema: or null."""
    if isinstance(schema, list):
        return [_nullable(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    converted = {key: _nullable(value) for key, value in schema.items() if key != "nullable"}
    return {"anyOf": [converted, {"type": "null"}]} if schema.get("nullable") is True else converted


@cache
def validator(name: str) -> Draft202012Validator:
    document = {"components": {"schemas": _nullable(json.loads(FIXTURE.read_text())["schemas"])}}
    registry = Registry().with_resource("urn:openapi", Resource(document, DRAFT202012))
    return Draft202012Validator({"$ref": f"urn:openapi#/components/schemas/{name}"}, registry=registry)


def check(name: str, body: Any) -> None:
    errors = [f"{list(e.absolute_path)}: {e.message[:200]}" for e in validator(name).iter_errors(body)]
    assert not errors, errors


def answers(path: str, body: dict[str, Any], reasoning: bool = False) -> list[Any]:
    with StandIn(STEPS, reasoning=reasoning) as server:
        return [server.handle("POST", path, json.dumps(body).encode()) for _ in STEPS]


def test_the_fixture_names_its_source_commit() -> None:
    source = json.loads(FIXTURE.read_text())["source"]
    assert source["repository"].endswith("openai/openai-openapi") and len(source["commit"]) == 40


def test_chat_completions_validate() -> None:
    for answer in answers("/v1/chat/completions", {"model": "m", "messages": USER, "tools": CHAT_TOOLS}):
        check("CreateChatCompletionResponse", answer.payload)


@pytest.mark.parametrize("usage", [False, True])
def test_chat_stream_chunks_validate(usage: bool) -> None:
    body = {"model": "m", "messages": USER, "stream": True, "stream_options": {"include_usage": usage}}
    for answer in answers("/v1/chat/completions", body):
        for event in answer.events[:-1]:
            check("CreateChatCompletionStreamResponse", event.data)


@pytest.mark.parametrize("reasoning", [False, True])
def test_responses_validate_with_echoed_tools_and_reasoning(reasoning: bool) -> None:
    for answer in answers("/v1/responses", RESPONSES_BODY, reasoning):
        check("Response", answer.payload)


def test_a_response_echoing_a_tool_without_strict_would_not_validate() -> None:
    (answer, *_) = answers("/v1/responses", RESPONSES_BODY)
    answer.payload["tools"][0].pop("strict")
    assert not validator("Response").is_valid(answer.payload)


@pytest.mark.parametrize("reasoning", [False, True])
def test_responses_stream_events_validate_against_their_event_schemas(reasoning: bool) -> None:
    for answer in answers("/v1/responses", {**RESPONSES_BODY, "stream": True}, reasoning):
        for event in answer.events:
            check(EVENT_SCHEMAS[event.name], event.data)


@pytest.mark.parametrize("path", ["/v1/chat/completions", "/v1/responses"])
def test_error_envelopes_validate(path: str) -> None:
    with StandIn() as server:
        check("ErrorResponse", server.handle("POST", path, b'{"model": ""}').payload)
