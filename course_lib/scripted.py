"""The model behind the stand-in: a scripted queue of steps, or a plain function of the conversation.

A step is a tuple, as in the course's worked examples:

- ``("calls", [(tool_name, raw_arguments), ...])``, or ``("calls", fn)`` with ``fn(results) -> that list``;
- ``("text", "an answer")``, or ``("text", fn)`` with ``fn(results) -> str``;
- ``("error", status, message)``: the endpoint answers with that HTTP error instead.

``results`` are the tool results answering the model's latest turn, as strings, in the order they arrived.
Nothing here decides anything a real model would: every decision is written by hand.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from course_lib.errors import ScriptError
from course_lib.wire.common import Conversation, Forced

Step = tuple[Any, ...]
Calls = list[tuple[str, str]]


@dataclass(frozen=True)
class Decision:
    """What the model answers this turn: calls, text, or an HTTP error."""

    kind: str
    """'calls', 'text' or 'error'."""
    calls: tuple[tuple[str, str], ...] = ()
    text: str = ""
    status: int = 0


NONE_ANSWER = "(tool_choice was 'none': answering without tools)"


def _resolve(step: object, results: list[str]) -> Decision:
    """Turn one script step into a Decision, calling its function with the tool results if it has one."""
    if not isinstance(step, tuple) or not step or step[0] not in ("calls", "text", "error"):
        raise ScriptError(
            f"a script step must be ('calls', ...), ('text', ...) or ('error', ...), got {step!r:.120}"
        )
    kind = step[0]
    if kind == "error":
        if (
            len(step) != 3
            or type(step[1]) is not int
            or not 400 <= step[1] <= 599
            or type(step[2]) is not str
        ):
            raise ScriptError(f"an error step is ('error', status 400-599, message), got {step!r:.120}")
        return Decision("error", text=step[2], status=step[1])
    if len(step) != 2:
        raise ScriptError(f"a {kind!r} step has exactly two parts, got {step!r:.120}")
    payload = step[1](list(results)) if callable(step[1]) else step[1]
    if kind == "text":
        if type(payload) is not str:
            raise ScriptError(f"a text step must give a str, got {type(payload).__name__}")
        return Decision("text", text=payload)
    if not isinstance(payload, list | tuple) or not all(
        isinstance(c, tuple) and len(c) == 2 and all(type(part) is str for part in c) for c in payload
    ):
        raise ScriptError(
            f"a calls step must give a list of (name, raw_arguments) string pairs, got {payload!r:.120}"
        )
    return Decision("calls", calls=tuple(payload))


def apply_controls(decision: Decision, conversation: Conversation) -> Decision:
    """Apply `tool_choice` and `parallel_tool_calls` to a decision, the way the documentation describes them."""
    choice = conversation.tool_choice
    if decision.kind == "error":
        return decision
    if isinstance(choice, Forced):  # documented: the model must call that one function
        arguments = decision.calls[0][1] if decision.calls else "{}"
        return Decision("calls", calls=((choice.name, arguments),))
    if choice == "required" and not decision.calls:  # documented: the model must call one or more tools
        return Decision("calls", calls=((conversation.tool_names[0], "{}"),))
    if decision.kind == "calls" and not conversation.parallel_tool_calls:  # documented: zero or one call
        return Decision("calls", calls=decision.calls[:1])
    return decision


class ScriptedModel:
    """A queue of steps; each model request takes the next one, and an empty queue fails loudly."""

    def __init__(self, script: Iterable[Step] = ()) -> None:
        self.steps: list[Step] = list(script)
        self.taken = 0
        self._lock = threading.Lock()

    def decide(self, conversation: Conversation) -> Decision:
        """Take the next step (or none, when tool_choice is 'none') and resolve it."""
        if conversation.tool_choice == "none":
            return Decision("text", text=NONE_ANSWER)
        with self._lock:
            if not self.steps:
                raise ScriptError(
                    f"script exhausted: the model was asked for turn {self.taken + 1} "
                    f"but the script had {self.taken} step(s); give reset() more steps"
                )
            step = self.steps.pop(0)
            self.taken += 1
        return apply_controls(_resolve(step, conversation.results), conversation)


class FunctionModel:
    """A model that is a plain function: ``fn(conversation) -> step``; it sees every request."""

    def __init__(self, fn: Callable[[Conversation], Step]) -> None:
        self.fn = fn

    def decide(self, conversation: Conversation) -> Decision:
        """Ask the function for a step and resolve it."""
        return apply_controls(_resolve(self.fn(conversation), conversation.results), conversation)


def echo(conversation: Conversation) -> Step:
    """The default model of a stand-in started with no script: it repeats the user's latest words."""
    return ("text", f"(stand-in, no script) you said: {conversation.user_text}")


Model = ScriptedModel | FunctionModel
