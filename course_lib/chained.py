"""Notebook 04's key: the Responses loop over stored state (`previous_response_id`).

The provider holds the history; each request after the first names the answer it continues and carries only
the `function_call_output` items answering that answer's calls. Every call is still run with `toolbox.run`
and traced here, exactly as in 03's `responses_tool_loop`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from course_lib.errors import MaxStepsExceeded
from course_lib.loops import output_text, run_function_calls
from course_lib.model_api import MODEL, TraceEntry, post_json
from course_lib.specs import tool_specs
from course_lib.toolbox import Confirm, Toolbox

__all__ = ["chained_responses_loop"]


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
        new_items = run_function_calls(calls, step, trace, toolbox, names, confirm)
    raise MaxStepsExceeded(f"no final answer after {max_steps} model calls", trace)
