"""Notebook 03's key: the tool loop, written by hand over plain HTTP (standard library only), for both API styles.

Each loop sends the user's request with the offered tools (each tool's `declaration()`, nested under
`"function"` for chat, flat for responses), runs every call the model asks for with `toolbox.run`, answers
each one by its id, replays the model's turn exactly as it came back, and stops at the first plain-text
answer or raises `MaxStepsExceeded` after `max_steps` model requests. `MODEL`, `post_json`,
`REQUEST_TIMEOUT_SECONDS` and `TraceEntry` live in `course_lib.model_api` (infrastructure), re-exported here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from course_lib.errors import MaxStepsExceeded
from course_lib.model_api import MODEL, REQUEST_TIMEOUT_SECONDS, TraceEntry, post_json
from course_lib.toolbox import Confirm, Toolbox

__all__ = [
    "LOOPS",
    "MODEL",
    "REQUEST_TIMEOUT_SECONDS",
    "TraceEntry",
    "chat_tool_loop",
    "output_text",
    "post_json",
    "responses_tool_loop",
    "run_function_calls",
]


def _tools(toolbox: Toolbox, names: Sequence[str], api: Literal["chat", "responses"]) -> list[dict[str, Any]]:
    """The `tools` field: each offered tool's declaration, nested under "function" for chat, flat for responses."""
    declarations = [toolbox[name].declaration() for name in names]
    if api == "chat":
        return [{"type": "function", "function": declaration} for declaration in declarations]
    return [{"type": "function", **declaration} for declaration in declarations]


def _request(
    model: str | None,
    step: int,
    tools: list[dict[str, Any]],
    tool_choice: Any,
    sticky: bool,
    extra: dict[str, Any],
) -> dict[str, Any]:
    """The fields every request shares; a forced tool_choice goes on the first request only unless sticky."""
    payload: dict[str, Any] = {"model": model or MODEL, "tools": tools, **extra}
    if tool_choice is not None and (step == 1 or sticky):
        payload["tool_choice"] = tool_choice
    return payload


def chat_tool_loop(
    base: str,
    user_text: str,
    toolbox: Toolbox,
    names: Sequence[str],
    *,
    max_steps: int = 5,
    confirm: Confirm | None = None,
    tool_choice: Any = None,
    sticky: bool = False,
    model: str | None = None,
    **extra: Any,
) -> tuple[str, list[TraceEntry]]:
    """Run the Chat Completions tool loop; return (final text, trace) or raise MaxStepsExceeded."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": user_text}]
    tools, trace = _tools(toolbox, names, "chat"), list[TraceEntry]()
    for step in range(1, max_steps + 1):
        payload = _request(model, step, tools, tool_choice, sticky, extra)
        reply = post_json(base, "/chat/completions", {**payload, "messages": messages})
        message = reply["choices"][0]["message"]
        messages.append(message)  # the assistant turn, exactly as returned
        calls = message.get("tool_calls") or []
        if not calls:
            return message.get("content") or "", trace
        for call in calls:  # zero, one or many calls per turn, each answered by its id
            name, arguments = call["function"]["name"], call["function"]["arguments"]
            result = toolbox.run(name, arguments, names, confirm)
            trace.append(TraceEntry(step, name, arguments, result))
            messages.append({"role": "tool", "tool_call_id": call["id"], "content": result})
    raise MaxStepsExceeded(f"no final answer after {max_steps} model calls", trace)


def output_text(output: Sequence[Mapping[str, Any]]) -> str:
    """The text of every assistant message in a Responses output list, joined."""
    return "".join(
        part["text"]
        for item in output
        if item.get("type") == "message"
        for part in item.get("content", [])
        if part.get("type") == "output_text"
    )


def responses_tool_loop(
    base: str,
    user_text: str,
    toolbox: Toolbox,
    names: Sequence[str],
    *,
    max_steps: int = 5,
    confirm: Confirm | None = None,
    tool_choice: Any = None,
    sticky: bool = False,
    model: str | None = None,
    **extra: Any,
) -> tuple[str, list[TraceEntry]]:
    """Run the Responses tool loop (items in, items out, matched by call_id); same contract as the chat loop."""
    items: list[dict[str, Any]] = [{"role": "user", "content": user_text}]
    tools, trace = _tools(toolbox, names, "responses"), list[TraceEntry]()
    for step in range(1, max_steps + 1):
        payload = _request(model, step, tools, tool_choice, sticky, extra)
        reply = post_json(base, "/responses", {**payload, "input": items})
        items += reply["output"]  # replay every output item, reasoning items included
        calls = [item for item in reply["output"] if item.get("type") == "function_call"]
        if not calls:
            return output_text(reply["output"]), trace
        items += run_function_calls(calls, step, trace, toolbox, names, confirm)
    raise MaxStepsExceeded(f"no final answer after {max_steps} model calls", trace)


def run_function_calls(
    calls: list[dict[str, Any]],
    step: int,
    trace: list[TraceEntry],
    toolbox: Toolbox,
    names: Sequence[str],
    confirm: Confirm | None,
) -> list[dict[str, Any]]:
    """Run a Responses answer's function calls in order, trace each, and return their function_call_output items."""
    outputs = []
    for call in calls:
        result = toolbox.run(call["name"], call["arguments"], names, confirm)
        trace.append(TraceEntry(step, call["name"], call["arguments"], result))
        outputs.append({"type": "function_call_output", "call_id": call["call_id"], "output": result})
    return outputs


LOOPS = {"chat": chat_tool_loop, "responses": responses_tool_loop}
"""The two loops by API style, as `scenarios.run_scenario` takes them."""
