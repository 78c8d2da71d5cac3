# ruff: noqa: E501 - the misreadings are edits of source lines, quoted whole
"""Notebook 04's differential families (course_grade.score.oracle.n04_wire): each sentence-level misreading below,
a small change to the instructor's solution, is caught by some family of its part; the instructor's solution and
every independent answer agree with the reference on every family."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from course_grade.score.oracle import judge
from course_grade.score.oracle.registry import parts
from grading.differential import _cells_before, answer
from grading.independent_answers import independent

ASSIGNMENT = "04_wire"

KNOWN = {("terse", "tool_specs", "api")}
"""Independent answers that break a stated rule (reported, for the lead): terse's tool_specs checks `api in` a set
literal, so an api that cannot be hashed raises TypeError ("`api` may be any value"; "raise `ValueError` for any
other `api`")."""


@pytest.fixture(autouse=True)
def no_shrinking(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A caught answer is reported as first found: these tests ask only whether it is caught."""
    monkeypatch.setattr(judge, "SHRINK_SECONDS", 0.0)
    yield


@pytest.fixture(scope="module")
def notebook() -> Iterator[dict[str, Any]]:
    """The namespace of every cell before Part F's solution (the instructor's Parts A to E included), run once."""
    with answer(ASSIGNMENT, "chained_responses_loop") as namespace:
        yield namespace


def defined(notebook: dict[str, Any], name: str, source: str | None) -> Any:
    """`name` as `source` (default: the instructor's solution) defines it, in a copy of the notebook's namespace."""
    namespace = dict(notebook)
    exec(compile(solution(name) if source is None else source, f"<{name}>", "exec"), namespace)
    return namespace[name]


def differs(notebook: dict[str, Any], name: str, source: str | None, *, first: bool = False) -> list[str]:
    """The families of the part `name` that tell `source` from the reference (only the first, if `first`)."""
    function, found = defined(notebook, name, source), []
    for key in parts(ASSIGNMENT)[name].families:
        try:
            judge.judge(f"{ASSIGNMENT}.{name}", key, function)
        except judge.Disagreement as error:
            found.append(f"{key}: {error}")
            if first:
                break
    return found


def solution(name: str) -> str:
    """The instructor's solution cell of `name`."""
    return _cells_before(ASSIGNMENT, name)[1]


def edited(name: str, *edits: tuple[str, str]) -> str:
    """The instructor's solution of `name` with each (old, new) replaced once (old must be there)."""
    source = solution(name)
    for old, new in edits:
        assert old in source, f"{name}: {old!r} is not in the solution"
        source = source.replace(old, new, 1)
    return source


MISREADINGS: list[tuple[str, str, tuple[tuple[str, str], ...]]] = [
    # Part A
    (
        "tool_specs",
        "accepts an api that is 'chat' after strip() and lower()",
        (
            (
                'if api not in ("chat", "responses"):',
                'api = api.strip().lower() if isinstance(api, str) else api\n    if api not in ("chat", "responses"):',
            ),
        ),
    ),
    (
        "tool_specs",
        "checks the names first by turning them into a list only when they are a list",
        (("for name in names:", "for name in (names if isinstance(names, list) else []):"),),
    ),
    (
        "tool_specs",
        "deduplicates repeated names",
        (("for name in names:", "for name in dict.fromkeys(names):"),),
    ),
    (
        "tool_specs",
        "uses the key the tool is filed under as its name",
        (('fields = {"name": tool.name,', 'fields = {"name": name,'),),
    ),
    (
        "tool_specs",
        "copies the schema with dict() (shallow)",
        (('"parameters": copy.deepcopy(tool.parameters)', '"parameters": dict(tool.parameters)'),),
    ),
    (
        "tool_specs",
        "sets strict from the schema's own strictness",
        (('"strict": True}', '"strict": tool.parameters.get("additionalProperties") is False}'),),
    ),
    (
        "tool_specs",
        "writes description before name",
        (
            (
                'fields = {"name": tool.name, "description": tool.description,',
                'fields = {"description": tool.description, "name": tool.name,',
            ),
        ),
    ),
    (
        "tool_specs",
        "refuses an api of a str subclass equal to 'chat'",
        (
            (
                'if api not in ("chat", "responses"):',
                'if type(api) is not str or api not in ("chat", "responses"):',
            ),
        ),
    ),
    # Part B
    (
        "is_strict_compatible",
        "reports additionalProperties only when it is missing",
        (('if node.get("additionalProperties") is not False:', 'if "additionalProperties" not in node:'),),
    ),
    (
        "is_strict_compatible",
        "treats only the string 'object' as an object schema",
        (('if "object" in kinds:', 'if node.get("type") == "object":'),),
    ),
    (
        "is_strict_compatible",
        "walks items only when it is a list",
        (('if isinstance(node.get("items"), dict):', 'if isinstance(node.get("items"), list):'),),
    ),
    (
        "is_strict_compatible",
        "writes a property's path with a slash",
        (('walk(child, f"{path}.{name}")', 'walk(child, f"{path}/{name}")'),),
    ),
    (
        "is_strict_compatible",
        "stops at the first missing required key of an object",
        (
            (
                'problems.append(f"{path}: property {name!r} is not in required")',
                'problems.append(f"{path}: property {name!r} is not in required")\n                    break',
            ),
        ),
    ),
    (
        "is_strict_compatible",
        "does not recurse below a schema that is not an object",
        (
            (
                "        for name, child in properties.items():\n            walk",
                '        for name, child in (properties.items() if "object" in kinds else []):\n            walk',
            ),
        ),
    ),
    # Part C
    (
        "second_request_messages",
        "answers the calls in the order of results",
        (
            (
                'for tool_call in assistant.get("tool_calls") or []:\n        messages.append({"role": "tool", "tool_call_id": tool_call["id"], "content": results[tool_call["id"]]})',
                'for call_id, result in results.items():\n        messages.append({"role": "tool", "tool_call_id": call_id, "content": result})',
            ),
        ),
    ),
    (
        "second_request_messages",
        "strips the user's text",
        (('{"role": "user", "content": user_text}', '{"role": "user", "content": user_text.strip()}'),),
    ),
    (
        "second_request_messages",
        "keeps only role, content and tool_calls of the assistant turn",
        (
            (
                'messages = [{"role": "user", "content": user_text}, assistant]',
                'messages = [{"role": "user", "content": user_text}, {key: assistant[key] for key in ("role", "content", "tool_calls")}]',
            ),
        ),
    ),
    (
        "second_request_messages",
        "answers each distinct id once",
        (
            (
                'for tool_call in assistant.get("tool_calls") or []:',
                'for tool_call in {c["id"]: c for c in assistant.get("tool_calls") or []}.values():',
            ),
        ),
    ),
    # Part D
    (
        "assemble_chat_stream",
        "skips a chunk that has more than one choice",
        (
            (
                'for choice in event["choices"]:',
                'for choice in (event["choices"] if len(event["choices"]) == 1 else []):',
            ),
        ),
    ),
    (
        "assemble_chat_stream",
        "reads choices[0] whatever its index",
        (
            (
                'for choice in event["choices"]:\n            if choice["index"] != 0:\n                continue',
                'for choice in event["choices"][:1]:\n            if False:\n                continue',
            ),
        ),
    ),
    (
        "assemble_chat_stream",
        "refuses a call whose opening id is the empty string",
        (
            (
                'if part.get("id") is None or function.get("name") is None:',
                'if not part.get("id") or function.get("name") is None:',
            ),
        ),
    ),
    (
        "assemble_chat_stream",
        "lets a later delta's name replace the call's name",
        (
            (
                'calls[part["index"]]["function"]["arguments"] += function.get("arguments") or ""',
                'calls[part["index"]]["function"]["arguments"] += function.get("arguments") or ""\n                if function.get("name"):\n                    calls[part["index"]]["function"]["name"] = function["name"]',
            ),
        ),
    ),
    (
        "assemble_chat_stream",
        "refuses only length, accepting content_filter",
        (('finish in ("length", "content_filter")', 'finish == "length"'),),
    ),
    (
        "assemble_chat_stream",
        "keeps the last finish_reason, even None from a later chunk",
        (
            (
                'if choice["finish_reason"] is not None:\n                finish = choice["finish_reason"]',
                'finish = choice["finish_reason"]',
            ),
        ),
    ),
    (
        "assemble_chat_stream",
        "drops content that is the empty string",
        (('if delta.get("content") is not None:', 'if delta.get("content"):'),),
    ),
    (
        "assemble_chat_stream",
        "reads on after [DONE]",
        (('if event == "[DONE]":\n            break', 'if event == "[DONE]":\n            continue'),),
    ),
    # Part E
    (
        "assemble_responses_stream",
        "keeps the added function_call's arguments and adds the deltas",
        (
            (
                'if item["type"] == "function_call":\n                item["arguments"] = ""',
                'if item["type"] == "function_call":\n                item.setdefault("arguments", "")',
            ),
        ),
    ),
    (
        "assemble_responses_stream",
        "keeps a part's text as added",
        (
            (
                'item["content"].append({**event["part"], "text": ""})',
                'item["content"].append(dict(event["part"]))',
            ),
        ),
    ),
    (
        "assemble_responses_stream",
        "copies a reasoning done item shallowly",
        (
            (
                'items[event["output_index"]] = copy.deepcopy(event["item"])',
                'items[event["output_index"]] = dict(event["item"])',
            ),
        ),
    ),
    (
        "assemble_responses_stream",
        "takes a function call's whole done item",
        (('if item["type"] in ("function_call", "message"):', 'if item["type"] in ("message",):'),),
    ),
    (
        "assemble_responses_stream",
        "refuses only on response.failed",
        (
            (
                'if kind in ("response.incomplete", "response.failed", "error"):',
                'if kind in ("response.failed",):',
            ),
        ),
    ),
    (
        "assemble_responses_stream",
        "skips an unopened output_index on a done event",
        (
            (
                'if event["output_index"] not in items:',
                'if event["output_index"] not in items and kind != "response.output_item.done":',
            ),
        ),
    ),
    (
        "assemble_responses_stream",
        "returns the items in the order they were added",
        (("return [items[index] for index in sorted(items)]", "return list(items.values())"),),
    ),
    # Part F
    (
        "chained_responses_loop",
        "sends the model name only when one is given",
        (
            (
                'body = {"model": model or MODEL, "tools": tools, **extra, "input": new_items}',
                'body = {**({"model": model} if model else {}), "tools": tools, **extra, "input": new_items}',
            ),
        ),
    ),
    (
        "chained_responses_loop",
        "sends extra only with the first request",
        (
            (
                'body = {"model": model or MODEL, "tools": tools, **extra, "input": new_items}',
                'body = {"model": model or MODEL, "tools": tools, **(extra if previous is None else {}), "input": new_items}',
            ),
        ),
    ),
    (
        "chained_responses_loop",
        "joins the text of every part, refusals included",
        (
            (
                'for part in item.get("content", []) if part.get("type") == "output_text"]',
                'for part in item.get("content", []) if "text" in part or "refusal" in part]',
            ),
        ),
    ),
    (
        "chained_responses_loop",
        "joins the message texts with a space",
        (('return "".join(texts), trace', 'return " ".join(texts), trace'),),
    ),
    (
        "chained_responses_loop",
        "runs the calls without confirm",
        (
            (
                'result = toolbox.run(call["name"], call["arguments"], names, confirm)',
                'result = toolbox.run(call["name"], call["arguments"], names)',
            ),
        ),
    ),
    (
        "chained_responses_loop",
        "answers only the first call of a turn",
        (("for call in calls:", "for call in calls[:1]:"),),
    ),
    (
        "chained_responses_loop",
        "offers every tool of the toolbox",
        (
            (
                'tools = tool_specs(toolbox, names, "responses")',
                'tools = tool_specs(toolbox, toolbox.names, "responses")',
            ),
        ),
    ),
]


@pytest.mark.parametrize(("name", "why", "edits"), MISREADINGS, ids=[why for _, why, _ in MISREADINGS])
def test_a_misreading_is_caught(
    notebook: dict[str, Any], name: str, why: str, edits: tuple[tuple[str, str], ...]
) -> None:
    assert differs(notebook, name, edited(name, *edits), first=True), f"{name}: no family catches: {why}"


def test_the_solution_and_the_independent_answers_agree(notebook: dict[str, Any]) -> None:
    honest: list[tuple[str, str, str | None]] = [("instructor", name, None) for name in parts(ASSIGNMENT)]
    honest += [
        (one.author, name, source) for one in independent(ASSIGNMENT) for name, source in one.cells.items()
    ]
    found = [
        (who, name, message[:300])
        for who, name, source in honest
        for message in differs(notebook, name, source)
        if (who, name, message.split(":", 1)[0]) not in KNOWN
    ]
    assert found == []
