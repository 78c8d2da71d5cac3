"""The same tool loop written with the official `openai` SDK, for both API styles.

The hand-written loops in `loops` show every byte; these show that nothing changes when a client library
does the HTTP (each call runs with `toolbox.run`, as in `loops`). Point the client at the stand-in and they run offline:

    client = OpenAI(base_url=server.base, api_key="stand-in")

(The stand-in marks every error `x-should-retry: false`, so the SDK's automatic retries never re-send.)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from openai import OpenAI

from course_lib.errors import MaxStepsExceeded
from course_lib.model_api import MODEL, TraceEntry
from course_lib.toolbox import Confirm, Toolbox, request_tools


def sdk_chat_tool_loop(
    client: OpenAI,
    user_text: str,
    toolbox: Toolbox,
    names: Sequence[str],
    *,
    max_steps: int = 5,
    confirm: Confirm | None = None,
    model: str | None = None,
) -> tuple[str, list[TraceEntry]]:
    """The Chat Completions loop through `client.chat.completions.create`."""
    messages: list[Any] = [{"role": "user", "content": user_text}]
    tools: Any = request_tools("chat", [toolbox[name] for name in names])
    trace: list[TraceEntry] = []
    for step in range(1, max_steps + 1):
        completion = client.chat.completions.create(model=model or MODEL, messages=messages, tools=tools)
        message = completion.choices[0].message
        calls = [call for call in message.tool_calls or [] if call.type == "function"]
        if not calls:
            return message.content or "", trace
        messages.append(  # the assistant turn, rebuilt from the SDK object field by field
            {
                "role": "assistant",
                "content": message.content,
                "tool_calls": [
                    {
                        "id": c.id,
                        "type": "function",
                        "function": {"name": c.function.name, "arguments": c.function.arguments},
                    }
                    for c in calls
                ],
            }
        )
        for call in calls:
            result = toolbox.run(call.function.name, call.function.arguments, names, confirm)
            trace.append(TraceEntry(step, call.function.name, call.function.arguments, result))
            messages.append({"role": "tool", "tool_call_id": call.id, "content": result})
    raise MaxStepsExceeded(f"no final answer after {max_steps} model calls", trace)


def sdk_responses_tool_loop(
    client: OpenAI,
    user_text: str,
    toolbox: Toolbox,
    names: Sequence[str],
    *,
    max_steps: int = 5,
    confirm: Confirm | None = None,
    model: str | None = None,
) -> tuple[str, list[TraceEntry]]:
    """The Responses loop through `client.responses.create`: replay `response.output`, answer by call_id."""
    items: list[Any] = [{"role": "user", "content": user_text}]
    tools: Any = request_tools("responses", [toolbox[name] for name in names])
    trace: list[TraceEntry] = []
    for step in range(1, max_steps + 1):
        response = client.responses.create(model=model or MODEL, input=items, tools=tools)
        items += [item.model_dump(exclude_none=True) for item in response.output]
        calls = [item for item in response.output if item.type == "function_call"]
        if not calls:
            return response.output_text, trace
        for call in calls:
            result = toolbox.run(call.name, call.arguments, names, confirm)
            trace.append(TraceEntry(step, call.name, call.arguments, result))
            items.append({"type": "function_call_output", "call_id": call.call_id, "output": result})
    raise MaxStepsExceeded(f"no final answer after {max_steps} model calls", trace)
