# ruff: noqa: E501 - the misreadings are edits of source lines, quoted whole
"""Notebook 03's differential families (course_grade.score.oracle.n03_loop): each sentence-level misreading below,
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

ASSIGNMENT = "03_loop"


@pytest.fixture(autouse=True)
def no_shrinking(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A caught answer is reported as first found: these tests ask only whether it is caught."""
    monkeypatch.setattr(judge, "SHRINK_SECONDS", 0.0)
    yield


@pytest.fixture(scope="module")
def notebook() -> Iterator[dict[str, Any]]:
    """The namespace of every cell up to Part B's solution (the instructor's Part A included), run once."""
    with answer(ASSIGNMENT, "responses_tool_loop") as namespace:
        yield namespace


def defined(notebook: dict[str, Any], sources: list[str]) -> dict[str, Any]:
    """A copy of the notebook's namespace in which each of `sources` has run, in order."""
    namespace = dict(notebook)
    for source in sources:
        exec(compile(source, f"<{ASSIGNMENT}>", "exec"), namespace)
    return namespace


def differs(namespace: dict[str, Any], name: str, *, first: bool = False) -> list[str]:
    """The families of the part `name` that tell the namespace's `name` from the reference (only the first, if
    `first`)."""
    found = []
    for key in parts(ASSIGNMENT)[name].families:
        try:
            judge.judge(f"{ASSIGNMENT}.{name}", key, namespace[name])
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


CHAT, RESPONSES = "chat_tool_loop", "responses_tool_loop"
CALL = 'message = post_json(base, "/chat/completions", body)["choices"][0]["message"]'
RESPONSES_CALL = 'output = post_json(base, "/responses", body)["output"]'
CHAT_RUN = "result = toolbox.run(name, arguments, names, confirm)"
RESPONSES_RUN = 'result = toolbox.run(call["name"], call["arguments"], names, confirm)'

MISREADINGS: list[tuple[str, str, tuple[tuple[str, str], ...]]] = [
    # Part A: the history's start
    (
        CHAT,
        "strips the user's text",
        (('{"role": "user", "content": user_text}', '{"role": "user", "content": user_text.strip()}'),),
    ),
    (
        CHAT,
        "replaces an empty user text",
        (('{"role": "user", "content": user_text}', '{"role": "user", "content": user_text or "Hello"}'),),
    ),
    (
        CHAT,
        "starts with a system message",
        (
            (
                'messages = [{"role": "user"',
                'messages = [{"role": "system", "content": "You may call tools."}, {"role": "user"',
            ),
        ),
    ),
    # the body
    (CHAT, "sends model '' as given", (("model or MODEL", "model if model is not None else MODEL"),)),
    (
        CHAT,
        "drops the keys of extra whose value is None",
        (("**extra,", "**{key: value for key, value in extra.items() if value is not None},"),),
    ),
    (CHAT, "offers each name once", (("for name in names]", "for name in dict.fromkeys(names)]"),)),
    (CHAT, "sorts the tools by name", (("for name in names]", "for name in sorted(names)]"),)),
    (
        CHAT,
        "answers an HTTP error with an empty text",
        ((CALL, f"try:\n            {CALL}\n        except ModelHTTPError:\n            return '', trace"),),
    ),
    (
        CHAT,
        "leaves tools out when no names are offered",
        (('"tools": tools, ', '**({"tools": tools} if tools else {}), '),),
    ),
    # tool_choice
    (CHAT, "leaves out a falsy tool_choice", (("if tool_choice is not None and", "if tool_choice and"),)),
    (CHAT, "ignores sticky", (("(step == 1 or sticky)", "step == 1"),)),
    (
        CHAT,
        "sends tool_choice 'auto' after the first request",
        (
            (
                '            body["tool_choice"] = tool_choice\n',
                '            body["tool_choice"] = tool_choice\n        elif tool_choice is not None:\n            body["tool_choice"] = "auto"\n',
            ),
        ),
    ),
    # the replay
    (
        CHAT,
        "replays the turn without its keys whose value is None",
        (
            (
                "messages.append(message)",
                "messages.append({key: value for key, value in message.items() if value is not None})",
            ),
        ),
    ),
    (
        CHAT,
        "replays content None as ''",
        (
            (
                "messages.append(message)",
                'messages.append(dict(message, content=message.get("content") or ""))',
            ),
        ),
    ),
    (
        CHAT,
        "replays only the keys it knows",
        (
            (
                "messages.append(message)",
                'messages.append({key: message[key] for key in ("role", "content", "refusal", "annotations", "tool_calls") if key in message})',
            ),
        ),
    ),
    # the final text
    (
        CHAT,
        "returns None for content None",
        (('return message.get("content") or "", trace', 'return message.get("content"), trace'),),
    ),
    (
        CHAT,
        "strips the final text",
        (
            (
                'return message.get("content") or "", trace',
                'return (message.get("content") or "").strip(), trace',
            ),
        ),
    ),
    (
        CHAT,
        "goes round again when tool_calls is None or empty",
        (("if not calls:", 'if "tool_calls" not in message:'),),
    ),
    # running the calls
    (
        CHAT,
        "runs the calls of a turn in reverse order",
        (("for call in calls:", "for call in reversed(calls):"),),
    ),
    (
        CHAT,
        "offers every tool in the box",
        ((CHAT_RUN, "result = toolbox.run(name, arguments, toolbox.names, confirm)"),),
    ),
    (CHAT, "does not pass confirm on", ((CHAT_RUN, "result = toolbox.run(name, arguments, names)"),)),
    (
        CHAT,
        "takes any truthy answer of confirm as yes",
        (
            (
                CHAT_RUN,
                "result = toolbox.run(name, arguments, names, confirm and (lambda n, a: bool(confirm(n, a))))",
            ),
        ),
    ),
    (
        CHAT,
        "skips a call of a name it did not offer",
        ((CHAT_RUN, f"if name not in names:\n                continue\n            {CHAT_RUN}"),),
    ),
    # the trace
    (CHAT, "numbers the steps from 0", (("trace.append((step, name", "trace.append((step - 1, name"),)),
    (
        CHAT,
        "numbers the calls instead of the requests",
        (("trace.append((step, name", "trace.append((len(trace) + 1, name"),),
    ),
    (
        CHAT,
        "writes (step, name, result, arguments)",
        (("trace.append((step, name, arguments, result))", "trace.append((step, name, result, arguments))"),),
    ),
    # the tool messages
    (
        CHAT,
        "adds the tool's name to the tool message",
        (
            (
                '{"role": "tool", "tool_call_id": call["id"], "content": result}',
                '{"role": "tool", "tool_call_id": call["id"], "name": name, "content": result}',
            ),
        ),
    ),
    (CHAT, "sends the result decoded", (('"content": result}', '"content": json.loads(result)}'),)),
    (
        CHAT,
        "appends the assistant turn after its results",
        (
            ("messages.append(message)  #", "pass  #"),
            ('"content": result})\n', '"content": result})\n        messages.append(message)\n'),
        ),
    ),
    # max_steps
    (CHAT, "sends max_steps - 1 requests", (("range(1, max_steps + 1)", "range(1, max_steps)"),)),
    (CHAT, "sends max_steps + 1 requests", (("range(1, max_steps + 1)", "range(1, max_steps + 2)"),)),
    (CHAT, "defaults max_steps to 10", (("max_steps=5", "max_steps=10"),)),
    (CHAT, "raises with an empty trace", (('model calls", trace)', 'model calls", [])'),)),
    (
        CHAT,
        "raises without running the calls of the last answer",
        (
            (
                "if not calls:  # zero calls: this is the answer",
                "if calls and step == max_steps:\n            break\n        if not calls:",
            ),
        ),
    ),
    (
        CHAT,
        "raises with max_steps as its message",
        (
            (
                'MaxStepsExceeded(f"no final answer after {max_steps} model calls", trace)',
                "MaxStepsExceeded(max_steps, trace)",
            ),
        ),
    ),
    # Part B: the body
    (
        RESPONSES,
        "sends the user's text as input_text parts",
        (
            (
                'items = [{"role": "user", "content": user_text}]',
                'items = [{"role": "user", "content": [{"type": "input_text", "text": user_text}]}]',
            ),
        ),
    ),
    (
        RESPONSES,
        "nests the tools as chat does",
        (
            (
                '{"type": "function", **toolbox[name].declaration()}',
                '{"type": "function", "function": toolbox[name].declaration()}',
            ),
        ),
    ),
    (RESPONSES, "sends model '' as given", (("model or MODEL", "model if model is not None else MODEL"),)),
    (
        RESPONSES,
        "drops the keys of extra whose value is None",
        (("**extra,", "**{key: value for key, value in extra.items() if value is not None},"),),
    ),
    (
        RESPONSES,
        "answers an HTTP error with an empty text",
        (
            (
                RESPONSES_CALL,
                f"try:\n            {RESPONSES_CALL}\n        except ModelHTTPError:\n            return '', trace",
            ),
        ),
    ),
    (
        RESPONSES,
        "sends the history as input and messages",
        (('"input": items}', '"input": items, "messages": items}'),),
    ),
    # tool_choice
    (
        RESPONSES,
        "leaves out a falsy tool_choice",
        (("if tool_choice is not None and", "if tool_choice and"),),
    ),
    (RESPONSES, "ignores sticky", (("(step == 1 or sticky)", "step == 1"),)),
    # the replay
    (
        RESPONSES,
        "replays only reasoning, message and function_call items",
        (
            (
                "items.extend(output)",
                'items.extend(item for item in output if item.get("type") in ("reasoning", "message", "function_call"))',
            ),
        ),
    ),
    (
        RESPONSES,
        "replays the function calls last",
        (
            (
                "items.extend(output)",
                'items.extend(sorted(output, key=lambda item: item.get("type") == "function_call"))',
            ),
        ),
    ),
    (
        RESPONSES,
        "replays the message items without their refusal parts",
        (
            (
                "items.extend(output)",
                'items.extend(dict(item, content=[p for p in item["content"] if p.get("type") != "refusal"]) if item.get("type") == "message" else item for item in output)',
            ),
        ),
    ),
    # running the calls
    (
        RESPONSES,
        "runs the calls of a turn in reverse order",
        (("for call in calls:", "for call in reversed(calls):"),),
    ),
    (
        RESPONSES,
        "offers every tool in the box",
        ((RESPONSES_RUN, 'result = toolbox.run(call["name"], call["arguments"], toolbox.names, confirm)'),),
    ),
    (
        RESPONSES,
        "does not pass confirm on",
        ((RESPONSES_RUN, 'result = toolbox.run(call["name"], call["arguments"], names)'),),
    ),
    (RESPONSES, "numbers the steps from 0", (("trace.append((step, call", "trace.append((step - 1, call"),)),
    (
        RESPONSES,
        "takes the message's text as the answer when it comes with calls",
        (("if not calls:", 'if not calls or any(item.get("type") == "message" for item in output):'),),
    ),
    # the outputs
    (RESPONSES, "quotes the item's id", (('"call_id": call["call_id"]', '"call_id": call["id"]'),)),
    (RESPONSES, "sends the output decoded", (('"output": result}', '"output": json.loads(result)}'),)),
    (
        RESPONSES,
        "appends the output items after their answers",
        (
            ("items.extend(output)  #", "pass  #"),
            (
                '"output": result})\n',
                '"output": result})\n        items.extend(output)\n',
            ),
        ),
    ),
    # the final text
    (
        RESPONSES,
        "joins the parts with a space",
        (('return "".join(texts), trace', 'return " ".join(texts), trace'),),
    ),
    (
        RESPONSES,
        "returns the last part only",
        (('return "".join(texts), trace', 'return "".join(texts[-1:]), trace'),),
    ),
    (
        RESPONSES,
        "strips the final text",
        (('return "".join(texts), trace', 'return "".join(texts).strip(), trace'),),
    ),
    # max_steps
    (RESPONSES, "sends max_steps - 1 requests", (("range(1, max_steps + 1)", "range(1, max_steps)"),)),
    (RESPONSES, "defaults max_steps to 3", (("max_steps=5", "max_steps=3"),)),
    (RESPONSES, "raises with an empty trace", (('model calls", trace)', 'model calls", [])'),)),
]


@pytest.mark.parametrize(("name", "why", "edits"), MISREADINGS, ids=[why for _, why, _ in MISREADINGS])
def test_a_misreading_is_caught(
    notebook: dict[str, Any], name: str, why: str, edits: tuple[tuple[str, str], ...]
) -> None:
    namespace = defined(notebook, [edited(name, *edits)])
    assert differs(namespace, name, first=True), f"{name}: no family catches: {why}"


def test_the_solution_and_the_independent_answers_agree(notebook: dict[str, Any]) -> None:
    honest: list[tuple[str, dict[str, Any]]] = [("instructor", notebook)]
    honest += [
        (one.author, defined(notebook, [one.cells[name] for name in parts(ASSIGNMENT) if name in one.cells]))
        for one in independent(ASSIGNMENT)
    ]
    found = [
        (who, name, message[:300])
        for who, namespace in honest
        for name in parts(ASSIGNMENT)
        for message in differs(namespace, name)
    ]
    assert found == []
