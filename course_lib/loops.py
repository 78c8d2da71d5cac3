"""The tool loop, written by hand over plain HTTP (standard library only), for both API styles.

Each loop sends the user's request with the offered tools, runs every call the model asks for through
`run_tool_call`, answers each one by its id, replays the model's turn exactly as it came back, and stops
at the first plain-text answer or raises `MaxStepsExceeded` after `max_steps` model requests.
`chained_responses_loop` leaves the history with the provider instead (`previous_response_id`): each request
after the first carries only the new items, and every call is still checked, run and traced here.
"""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.request
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from course_lib.errors import MaxStepsExceeded, ModelHTTPError
from course_lib.tools import Confirm, Toolbox, run_tool_call, tool_specs

MODEL = os.environ.get("OPENAI_MODEL", "stand-in-model")
"""The model name sent with every request: configuration, never a constant buried in a loop."""

REQUEST_TIMEOUT_SECONDS = 10.0


class TraceEntry(NamedTuple):
    """One executed tool call: the model request it came from, its name, raw arguments and result string."""

    step: int
    name: str
    arguments: str
    result: str


def post_json(
    base: str, path: str, payload: Mapping[str, Any], timeout: float = REQUEST_TIMEOUT_SECONDS
) -> Any:
    """POST `payload` as JSON to base + path and return the decoded answer; HTTP errors raise ModelHTTPError."""
    request = urllib.request.Request(
        base + path,
        data=json.dumps(payload).encode("utf-8"),
        headers={"Content-Type": "application/json", "Authorization": "Bearer not-a-real-key"},
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            raw = response.read()
    except urllib.error.HTTPError as error:
        body = error.read()
        raise ModelHTTPError(error.code, _error_message(body), body) from None
    except (urllib.error.URLError, TimeoutError, ConnectionError) as error:
        raise ModelHTTPError(0, f"could not reach {base}: {getattr(error, 'reason', error)}") from None
    try:
        return json.loads(raw)
    except ValueError:
        raise ModelHTTPError(200, "the answer is not JSON", raw) from None


def _error_message(body: bytes) -> str:
    """The message of a documented error envelope, or the start of the raw body."""
    try:
        return str(json.loads(body)["error"]["message"])
    except (ValueError, KeyError, TypeError):
        return body[:200].decode("utf-8", "replace")


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
    tools, trace = tool_specs(toolbox, names, "chat"), list[TraceEntry]()
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
            result = run_tool_call(toolbox, name, arguments, names, confirm)
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
    tools, trace = tool_specs(toolbox, names, "responses"), list[TraceEntry]()
    for step in range(1, max_steps + 1):
        payload = _request(model, step, tools, tool_choice, sticky, extra)
        reply = post_json(base, "/responses", {**payload, "input": items})
        items += reply["output"]  # replay every output item, reasoning items included
        calls = [item for item in reply["output"] if item.get("type") == "function_call"]
        if not calls:
            return output_text(reply["output"]), trace
        items += _run_calls(calls, step, trace, toolbox, names, confirm)
    raise MaxStepsExceeded(f"no final answer after {max_steps} model calls", trace)


def chained_responses_loop(
    base: str,
    user_text: str,
    toolbox: Toolbox,
    names: Sequence[str],
    *,
    max_steps: int = 5,
    confirm: Confirm | None = None,
    model: str | None = None,
    **extra: Any,
) -> tuple[str, list[TraceEntry]]:
    """The Responses loop over stored state: each later request sends previous_response_id and only new items.

    The provider holds the history (`store` left at its default, true); each later request names the answer
    it continues and carries only the `function_call_output` items answering that answer's calls. Every call
    is still checked, run and traced here, exactly as in `responses_tool_loop`.
    """
    tools, trace = tool_specs(toolbox, names, "responses"), list[TraceEntry]()
    payload: dict[str, Any] = {"model": model or MODEL, "tools": tools, **extra}
    new_items: list[dict[str, Any]] = [{"role": "user", "content": user_text}]
    previous: str | None = None
    for step in range(1, max_steps + 1):
        chain = {} if previous is None else {"previous_response_id": previous}
        reply = post_json(base, "/responses", {**payload, **chain, "input": new_items})
        previous = reply["id"]
        calls = [item for item in reply["output"] if item.get("type") == "function_call"]
        if not calls:
            return output_text(reply["output"]), trace
        new_items = _run_calls(calls, step, trace, toolbox, names, confirm)
    raise MaxStepsExceeded(f"no final answer after {max_steps} model calls", trace)


def _run_calls(
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
        result = run_tool_call(toolbox, call["name"], call["arguments"], names, confirm)
        trace.append(TraceEntry(step, call["name"], call["arguments"], result))
        outputs.append({"type": "function_call_output", "call_id": call["call_id"], "output": result})
    return outputs
