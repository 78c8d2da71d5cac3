"""Notebook 03's parts: `chat_tool_loop` and `responses_tool_loop` against `course_lib.loops`.

A loop is observed as notebook 04's `chained_responses_loop` is: `post_json` is swapped, in the answer's own
namespace, for an in-process recorder that answers from the example's script of stand-in model answers (no
server, no thread, no clock). What is compared: the returned text and trace (or MaxStepsExceeded with its trace,
and whether its message is a non-empty str; ModelHTTPError by its status; any other exception by type), every
request sent (base, path, body as it was when sent), what each tool of the toolbox received, in order, and every
question `confirm` was asked.

Left out, because the prose states it as a precondition: `max_steps` below 1 ("`max_steps` is at least 1"),
`names` naming a tool the toolbox does not hold, `extra` holding `messages`, `tools` or `input`, answers of
another shape than the documented one ("What to do with any other answer is not part of this exercise"), and a
`sticky` that is not a bool.
"""

from __future__ import annotations

import copy
from typing import Any, NamedTuple
from unittest import mock

from hypothesis import strategies as st

from course_grade.score.oracle import contract
from course_grade.score.oracle.contract import Family, Part, shape
from course_lib.errors import MaxStepsExceeded, ModelHTTPError, ToolError

ASSIGNMENT = "03_loop"
BASE = "http://127.0.0.1:9/v1"


# -- the toolbox and confirm an observation builds --------------------------------------------------------------

BOX_NAMES = ["get_weather", "lookup", "delete_note", "explode", "crash"]
"""The observed toolbox's tools: a lookup with fixed parameters, one taking any, a destructive one, one raising
ToolError and one raising another exception."""


def _toolbox() -> Any:
    """A fresh toolbox whose tools record what they receive (in `state["received"]`, in order)."""
    from course_lib.toolbox import Toolbox  # noqa: PLC0415

    box = Toolbox()
    received: list[Any] = []
    box.state["received"] = received

    def note(name: str, arguments: dict[str, Any]) -> int:
        received.append((name, shape(arguments)))
        return len(received)

    @box.tool("get_weather", "Current temperature for a city.", {"city": {"type": "string"}})
    def get_weather(city: Any) -> Any:
        return {"n": note("get_weather", {"city": city}), "city": city, "celsius": 15}

    @box.tool("lookup", "Look anything up.", {"q": {"type": "string"}}, required=[])
    def lookup(**arguments: Any) -> Any:
        return {"n": note("lookup", arguments), "found": arguments}

    @box.tool("delete_note", "Delete a note.", {"note_id": {"type": "integer"}}, destructive=True)
    def delete_note(**arguments: Any) -> Any:
        return {"n": note("delete_note", arguments), "deleted": True}

    @box.tool("explode", "Fails as a tool may.", {})
    def explode(**arguments: Any) -> Any:
        note("explode", arguments)
        raise ToolError("the tool refused")

    @box.tool("crash", "Fails as a bug does.", {})
    def crash(**arguments: Any) -> Any:
        note("crash", arguments)
        raise RuntimeError("a bug")

    return box


CONFIRMS = ["yes", "no", "second", "raise", "truthy", None, "left out"]
"""How `confirm` answers: True, False, True for note 2 only, by raising, with 1 (not True); None; not given."""


def _confirm(kind: Any, questions: list[Any]) -> Any:
    if kind is None:
        return None

    def confirm(name: Any, arguments: Any) -> Any:
        questions.append((shape(name), shape(arguments)))
        if kind == "raise":
            raise RuntimeError("no one to ask")
        if kind == "second":
            return type(arguments) is dict and arguments.get("note_id") == 2
        return {"yes": True, "no": False, "truthy": 1}[kind]

    return confirm


# -- a script: the stand-in model's answers, and the loop's arguments --------------------------------------------


class Script(NamedTuple):
    """The stand-in model's answers in order (("json", payload) or ("http", status); the last one again after
    them), the offered names, the user's text, how `confirm` answers, and the loop's other keyword arguments."""

    answers: tuple[tuple[str, Any], ...]
    offered: tuple[str, ...]
    user_text: str
    confirm: Any
    options: dict[str, Any]


CALL_NAMES = [*BOX_NAMES, "get_wether", "", "LOOKUP", "lооkup", "delete note", "x" * 65]
"""Names a model calls: the toolbox's (offered or not), and names it does not hold."""
CALL_ARGUMENTS = [
    '{"city": "Paris"}',
    '{"city": "Par',
    "{}",
    '{"note_id": 1}',
    '{"note_id": 2}',
    '{"q": "ü ☂", "n": [1, {"a": null}]}',
    '{"wrong": true}',
    "[1]",
    "null",
    "",
    '{"a": 1, "a": 2}',
    '{"q": NaN}',
    ' {"city": "Oslo"} ',
]
"""Arguments a model writes: JSON objects, broken JSON, JSON that is not an object, repeated keys, NaN."""
USER_TEXTS = st.one_of(
    st.sampled_from(
        ["Weather in Paris?", "", " ", " two\nlines ", "\t\u00a0\u2003", "Ünï ☂ 名前", "\x00", "a" * 300]
    ),
    st.text(max_size=12),
)
MODELS = [None, "", "gpt-test", " ", "ｍｏｄｅｌ", "MODEL"]
TOOL_CHOICES = ["auto", "required", "none", "", {}, False, 0, "left out", None]
EXTRAS: list[dict[str, Any]] = [
    {},
    {"parallel_tool_calls": False},
    {"parallel_tool_calls": True, "temperature": 0},
    {"metadata": {}, "max_tokens": None},
    {"metadata": {"k": "v"}, "user": "", "store": False},
    {"reasoning": {"effort": "low"}, "temperature": 0.5},
    {"user": "u1", "parallel_tool_calls": False, "max_tokens": 1},
]
"""The `extra` keyword arguments a loop may be given (a value None too)."""


def _forced(api: str) -> dict[str, Any]:
    if api == "chat":
        return {"type": "function", "function": {"name": "get_weather"}}
    return {"type": "function", "name": "get_weather"}


@st.composite
def _calls(draw: st.DrawFn, offered: list[str], size: tuple[int, int]) -> list[tuple[str, str]]:
    """(name, arguments) pairs, mostly of offered tools with good arguments (two draws a call)."""
    names = st.sampled_from([*(offered or BOX_NAMES)] * 3 + CALL_NAMES)
    arguments = st.sampled_from(CALL_ARGUMENTS[:6] * 3 + CALL_ARGUMENTS)
    return [(draw(names), draw(arguments)) for _ in range(draw(st.integers(*size)))]


MESSAGE_EXTRAS: list[dict[str, Any]] = [
    {"refusal": None, "annotations": []},
    {"refusal": None, "annotations": []},
    {"refusal": None, "annotations": []},
    {"refusal": "", "annotations": None},
    {"refusal": "I cannot.", "annotations": [{"type": "url_citation"}]},
    {"annotations": []},
    {"refusal": None},
    {},
    {"refusal": None, "annotations": [], "audio": None, "function_call": None},
    {"function_call": 0, "reasoning_content": ""},
    {"reasoning_content": "hm", "refusal": None, "annotations": []},
]
"""The keys a message brings beside role, content and tool_calls."""
ORDERS = ["as built", "as built", "reversed", "sorted"]


def _chat_answer(
    draw: st.DrawFn, number: int, calls: list[tuple[str, str]] | None, text: Any
) -> dict[str, Any]:
    """A chat completion: one choice whose message asks for `calls` (None: none) or answers `text`."""
    message: dict[str, Any] = {"role": "assistant", "content": text, **draw(st.sampled_from(MESSAGE_EXTRAS))}
    if calls is None:
        kind = draw(st.sampled_from(["absent", "absent", "none", "empty"]))
        if kind != "absent":
            message["tool_calls"] = None if kind == "none" else []
    else:
        odd = draw(st.sampled_from([-1] * 5 + list(range(len(calls)))))  # a call whose id repeats or is ""
        message["tool_calls"] = [
            {"id": ["call_1", "c", ""][number % 3] if i == odd else f"call_{number}_{i}", "type": "function",
             "function": {"name": name, "arguments": arguments}}
            for i, (name, arguments) in enumerate(calls)
        ]  # fmt: skip
    order = draw(st.sampled_from(ORDERS))
    keys = list(message)
    keys = keys[::-1] if order == "reversed" else sorted(keys) if order == "sorted" else keys
    message = {key: message[key] for key in keys}
    return {
        "id": f"chatcmpl-{number}",
        "object": "chat.completion",
        "model": "stand-in",
        "choices": [
            {"index": 0, "message": message, "finish_reason": "stop" if calls is None else "tool_calls"}
        ],
        "usage": {"prompt_tokens": number, "completion_tokens": 1},
    }


def _text(text: str) -> dict[str, Any]:
    return {"type": "output_text", "text": text, "annotations": []}


REFUSAL = {"type": "refusal", "refusal": "no"}
CONTENTS: list[list[list[dict[str, Any]]]] = [
    [],
    [[]],
    [[_text("It is ")]],
    [[_text("It is "), REFUSAL, _text("15 C.")]],
    [[_text("It is "), _text("15 C.")], [_text(" Ünï ☂")]],
    [[_text("")], [REFUSAL], [_text("\n"), _text(" ")]],
    [[REFUSAL]],
    [[_text("a")], [], [_text("b"), _text("c")]],
]
"""The message items of an output, each as its content parts (output_text and refusal parts)."""


def _responses_answer(
    draw: st.DrawFn, number: int, calls: list[tuple[str, str]] | None, text: Any
) -> dict[str, Any]:
    """A Responses answer: output items (reasoning, messages, other items) with `calls` as function_call items."""
    output: list[dict[str, Any]] = []
    around = draw(st.sampled_from(["reasoning", "reasoning", "none", "none", "web search", "both"]))
    if around in ("reasoning", "both"):
        output.append({"id": f"rs_{number}", "type": "reasoning", "summary": []})
    messages = draw(st.sampled_from(CONTENTS[:4] if calls is not None or text is None else CONTENTS[1:]))
    for m, parts in enumerate(messages):
        content = [dict(part) for part in parts]
        if text and m == 0:
            content.append({"type": "output_text", "text": text, "annotations": []})
        output.append({"id": f"msg_{number}_{m}", "type": "message", "status": "completed", "role": "assistant",
                       "content": content})  # fmt: skip
    if around in ("web search", "both"):
        output.insert(
            len(output) // 2, {"id": f"ws_{number}", "type": "web_search_call", "status": "completed"}
        )
    odd = draw(st.sampled_from([-1] * 5 + list(range(len(calls or [])))))  # a call_id that repeats or is ""
    for i, (name, arguments) in enumerate(calls or []):
        call_id = ["call_1", "c", ""][number % 3] if i == odd else f"call_{number}_{i}"
        output.insert(draw(st.integers(0, len(output))), {
            "id": f"fc_{number}_{i}", "type": "function_call", "status": "completed", "arguments": arguments,
            "call_id": call_id, "name": name})  # fmt: skip
    return {"id": f"resp_{number}", "object": "response", "status": "completed", "output": output}


@st.composite
def scripts(
    draw: st.DrawFn,
    api: str,
    turns: tuple[int, int] = (1, 4),
    size: tuple[int, int] = (1, 3),
    steps: bool = False,
    choices: bool = False,
    body: bool = False,
    http: bool = False,
    endless: bool = False,
) -> Script:
    """A script: some answers asking for calls, then (unless `endless`) one final answer. `steps`: the calls end
    next to `max_steps`; `choices`: `tool_choice` and `sticky` always drawn; `body`: the model, the offered names
    and `extra` drawn widely; `http`: an HTTP error at some request."""
    options: dict[str, Any] = {}
    max_steps = 5
    if steps or draw(st.integers(0, 2)):
        max_steps = draw(st.integers(1, 5))
        if not steps or draw(st.integers(0, 4)):
            options["max_steps"] = max_steps
    if steps:
        count = draw(st.sampled_from([max_steps - 1, max_steps, max_steps + 1, 0]))
        count = max(0, count)
    else:
        count = draw(st.integers(max(turns[0] - 1, 0), turns[1] - 1))
    offered = draw(st.lists(st.sampled_from(BOX_NAMES), max_size=4, unique=True))
    if body and draw(st.integers(0, 3)) == 0:
        offered = offered or [draw(st.sampled_from(BOX_NAMES))]
        offered += draw(st.lists(st.sampled_from(offered), min_size=1, max_size=2))  # a name given twice
    model = draw(st.sampled_from(["left out"] * (1 if body else 6) + MODELS))
    if model != "left out":
        options["model"] = model
    if choices or draw(st.integers(0, 3)) == 0:
        choice = draw(st.sampled_from([*TOOL_CHOICES, "forced", "forced"]))
        if choice == "forced":
            options["tool_choice"] = _forced(api)
        elif choice != "left out":
            options["tool_choice"] = choice
        if choices or draw(st.booleans()):
            sticky = draw(st.sampled_from([True, False, "left out"]))
            if sticky != "left out":
                options["sticky"] = sticky
    options.update(draw(st.sampled_from(EXTRAS if body else [{}] * 12 + EXTRAS)))
    build = _chat_answer if api == "chat" else _responses_answer
    answers: list[tuple[str, Any]] = []
    for number in range(1, count + 1):
        calls = draw(_calls(offered, size))
        text = draw(st.sampled_from([None, None, "Let me look.", ""])) if api == "chat" else None
        answers.append(("json", build(draw, number, calls, text)))
    if not endless:
        text = draw(st.sampled_from(["Done.", "", "It is 15 C in Paris.", "Ünï ☂ \n", None]))
        answers.append(("json", build(draw, count + 1, None, text)))
    if not answers:
        answers.append(("json", build(draw, 1, draw(_calls(offered, (1, 2))), None)))
    if http:
        status = draw(st.sampled_from([400, 401, 404, 429, 500, 503]))
        answers.insert(draw(st.integers(0, len(answers) - 1)), ("http", status))
    return Script(
        tuple(answers),
        tuple(offered),
        draw(USER_TEXTS) if body or draw(st.integers(0, 3)) == 0 else "Weather?",
        draw(st.sampled_from(CONFIRMS)),
        options,
    )


# -- the observation ----------------------------------------------------------------------------------------------


class _Endpoint:
    """post_json's stand-in: records each request as it is when sent, then gives the script's next answer (the
    last one again after them), or raises the ModelHTTPError it scripts."""

    def __init__(self, answers: tuple[tuple[str, Any], ...]) -> None:
        self.answers = answers
        self.sent: list[Any] = []

    def __call__(self, base: Any, path: Any, body: Any, *args: Any, **kwargs: Any) -> Any:
        self.sent.append((shape(base), shape(path), shape(copy.deepcopy(body))))
        kind, what = self.answers[min(len(self.sent), len(self.answers)) - 1]
        if kind == "http":
            raise ModelHTTPError(what, "the stand-in model failed")
        return copy.deepcopy(what)


def _trace(trace: Any) -> Any:
    """The trace as the contract fixes it: a list of 4-tuples (a named tuple is a tuple)."""
    try:
        return (
            type(trace) is list,
            tuple((isinstance(entry, tuple), shape(tuple(entry))) for entry in trace),
        )
    except Exception as error:
        if isinstance(error, contract.ABORTING):
            raise
        return ("unreadable", type(error).__name__)


def observe_loop(answer: Any, script: Script) -> Any:
    """What the loop returns (the text and the trace), or MaxStepsExceeded (its trace, and whether its message is a
    non-empty str), ModelHTTPError (its status), any other exception by type; every request sent through
    `post_json` (base, path, body); what each tool received, in order; every question `confirm` was asked."""
    box, questions = _toolbox(), list[Any]()
    endpoint = _Endpoint(script.answers)
    options = dict(script.options)
    if script.confirm != "left out":
        options["confirm"] = _confirm(script.confirm, questions)
    where = getattr(answer, "__globals__", {})
    with mock.patch.dict(where, {"post_json": endpoint}):
        try:
            text, trace = answer(BASE, script.user_text, box, list(script.offered), **options)
            got: Any = ("returned", shape(text), _trace(trace))
        except MaxStepsExceeded as stop:
            message = stop.args[0] if stop.args else None
            got = ("MaxStepsExceeded", type(message) is str and message != "", _trace(stop.trace))
        except ModelHTTPError as error:
            got = ("ModelHTTPError", getattr(error, "status", None))
        except Exception as error:
            if isinstance(error, contract.ABORTING):
                raise
            got = ("raised", type(error).__name__)
    return got, endpoint.sent, box.state["received"], questions


def _chat_reference() -> Any:
    from course_lib.loops import chat_tool_loop  # noqa: PLC0415

    return chat_tool_loop


def _responses_reference() -> Any:
    from course_lib.loops import responses_tool_loop  # noqa: PLC0415

    return responses_tool_loop


OBSERVED = (
    "with `post_json` swapped for a recording stand-in model in the answer's namespace: the returned text and trace "
    "(a list of 4-tuples), or MaxStepsExceeded with its trace and whether its message is a non-empty str, "
    "ModelHTTPError with its status, any other exception by type; every request sent (base, path, body when "
    "sent); what each tool received, in order; every question confirm was asked. Key order is left open."
)


# -- Part A: chat_tool_loop ---------------------------------------------------------------------------------------

CHAT = Part(
    ASSIGNMENT,
    "chat_tool_loop",
    _chat_reference,
    observe_loop,
    OBSERVED,
    {
        "start": Family(
            'start the history as `[{"role": "user", "content": user_text}]`',
            "test_chat_loop_one_call",
            scripts("chat", turns=(1, 2)) | scripts("chat", turns=(1, 2), body=True),
            examples=30,
        ),
        "body": Family(
            'send each request as `post_json(base, "/chat/completions", body)`, where `body` holds exactly '
            '`"model"` (`model`, or `MODEL` when `model` is None or `""`), `"tools"` (for each name of `names`, '
            'in order, `{"type": "function", "function": toolbox[name].declaration()}`), every key of `extra` '
            '(for example `parallel_tool_calls=False`), `"messages"` (the whole history) and maybe '
            '`"tool_choice"`',
            "test_chat_loop_one_call",
            scripts("chat", turns=(1, 3), body=True) | scripts("chat", turns=(1, 3), body=True, http=True),
            examples=40,
        ),
        "tool_choice": Family(
            'add `"tool_choice"` to the first request only, or to every request if `sticky` is true, and leave '
            "the key out of every other request, and out of all of them when `tool_choice` is None",
            "test_chat_loop_tool_choice",
            scripts("chat", turns=(1, 4), choices=True),
            examples=30,
        ),
        "replay": Family(
            "append the answer's `choices[0].message` to the history **exactly as it came back**: every key kept "
            "(`refusal` and `annotations` too, whatever their values), none added or changed",
            "test_chat_loop_replay",
            scripts("chat", turns=(2, 4)),
            examples=30,
        ),
        "final": Family(
            "if that message has no tool calls (`tool_calls` absent, None or empty), return its `content` as the "
            'text (`""` if the content is None) together with the trace',
            "test_chat_loop_zero_calls",
            scripts("chat", turns=(1, 3)),
            examples=30,
        ),
        "run": Family(
            "otherwise run every call of the turn, **in order**, as `toolbox.run(name, arguments, names, "
            "confirm)`: the names offered in this request (never every tool in the box), and `confirm` passed on",
            "test_chat_loop_parallel",
            scripts("chat", turns=(2, 3), size=(1, 4)),
            examples=40,
        ),
        "tool_message": Family(
            'append `{"role": "tool", "tool_call_id": <the call\'s id>, "content": result}` to the history after '
            "each call",
            "test_chat_loop_parallel",
            scripts("chat", turns=(2, 3), size=(1, 4)),
            examples=30,
        ),
        "trace": Family(
            "add `(step, name, arguments, result)` to the trace for each call, where `step` is the number of the "
            "request (1, 2, ...) whose answer asked for the call",
            "test_chat_loop_trace",
            scripts("chat", turns=(2, 5), size=(0, 3)),
            examples=30,
        ),
        "max_steps": Family(
            "send at most `max_steps` requests",
            "test_chat_loop_max_steps",
            scripts("chat", steps=True) | scripts("chat", steps=True, endless=True),
            examples=30,
        ),
        "last_turn": Family(
            "if the answer to request number `max_steps` still asks for tools, run those calls too (they belong "
            "in the trace), then raise `MaxStepsExceeded(message, trace)`",
            "test_chat_loop_last_turn",
            scripts("chat", steps=True, endless=True, size=(1, 3)),
            examples=30,
        ),
    },
)


# -- Part B: responses_tool_loop ----------------------------------------------------------------------------------

RESPONSES = Part(
    ASSIGNMENT,
    "responses_tool_loop",
    _responses_reference,
    observe_loop,
    OBSERVED,
    {
        "body": Family(
            'start the history as `[{"role": "user", "content": user_text}]`, and send each request as '
            '`post_json(base, "/responses", body)`, with the body of Part A except that `"tools"` holds '
            '`{"type": "function", **toolbox[name].declaration()}` for each name, in order, and the whole '
            'history goes in `"input"` instead of `"messages"`',
            "test_responses_loop_one_call",
            scripts("responses", turns=(1, 3), body=True)
            | scripts("responses", turns=(1, 3), body=True, http=True),
            examples=40,
        ),
        "tool_choice": Family(
            'add `"tool_choice"` to the first request only, or to every request if `sticky` is true, and leave '
            "the key out otherwise, as in Part A",
            "test_responses_loop_tool_choice",
            scripts("responses", turns=(1, 4), choices=True),
            examples=30,
        ),
        "replay": Family(
            "extend the history with **every** item of the answer's `output`, exactly as it came and in its "
            "order (reasoning and message items included), not just the function calls",
            "test_responses_loop_reasoning",
            scripts("responses", turns=(2, 4)),
            examples=30,
        ),
        "run": Family(
            'take as the calls the output items whose `type` is `"function_call"` (even when a `message` item '
            "comes with them), and run each, in order, as in Part A (the offered names, `confirm` passed on), "
            "adding `(step, name, arguments, result)` to the trace",
            "test_responses_loop_parallel",
            scripts("responses", turns=(2, 4), size=(1, 4)),
            examples=40,
        ),
        "outputs": Family(
            'answer each call by appending `{"type": "function_call_output", "call_id": <its call_id>, '
            '"output": result}` to the history',
            "test_responses_loop_parallel",
            scripts("responses", turns=(2, 3), size=(1, 4)),
            examples=30,
        ),
        "final": Family(
            "with no function calls in the output, return as the text every `output_text` part of every "
            '`"message"` item, joined with no separator (`""` if there are none)',
            "test_responses_loop_zero_calls",
            scripts("responses", turns=(1, 2)),
            examples=30,
        ),
        "max_steps": Family(
            "send at most `max_steps` requests, then raise `MaxStepsExceeded(message, trace)`, as in Part A",
            "test_responses_loop_max_steps",
            scripts("responses", steps=True) | scripts("responses", steps=True, endless=True),
            examples=30,
        ),
    },
)

PARTS = {part.name: part for part in (CHAT, RESPONSES)}
