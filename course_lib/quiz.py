"""Every notebook's checkpoint quiz: its questions (here), its answers (a key), and a self-check widget.

A quiz is graded like any part: the learner writes each answer as a value in the notebook's answer cell
(`q1 = "B"`, `q2 = ["A", "C"]`, `q3 = 4`), and one test cell per question checks it. The questions live here
and nowhere else: `grading/quiz_cells.py` writes the quiz's cells (questions, answer cell, tests) into each
instructor notebook from them, and `python3 course.py build --check` fails when a notebook's quiz is stale.

The answers are a key, like a reference implementation: `course_lib/quiz_answers/<notebook>.py` is listed in
`course_grade.release.keys.KEYS` under its assignment, so a learners' edition holds it only once the
assignment's keys are published. This module never imports it by name (the edition's import check reads
`import` statements): `answers()` looks it up at run time and returns None while it is absent.

`self_check("01_envelope")` shows the questions as widgets with a Check button. It never writes `q1`: the
graded value is the one in the answer cell. Headless (nbclient, nbval, nbgrader; see `course_lib.frontend`) it
prints one fixed line instead, so a notebook's stored output stays the same from run to run.
"""

from __future__ import annotations

import html
import importlib
import re
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple

from course_lib.frontend import is_interactive

__all__ = ["QUIZZES", "Key", "Question", "answers", "feedback", "self_check"]

LETTERS = "ABCDEF"

Kind = Literal["choice", "choices", "number"]
"""choice: one letter; choices: a list of letters (order free); number: a whole number."""


@dataclass(frozen=True)
class Question:
    """One question of a checkpoint quiz, as the learner reads it (no answer)."""

    text: str
    """The question, in markdown (one paragraph)."""
    kind: Kind
    options: tuple[str, ...] = ()
    """The options of a choice or choices question, lettered A, B, ... in this order (markdown)."""

    @property
    def letters(self) -> tuple[str, ...]:
        """The letters of its options."""
        return tuple(LETTERS[: len(self.options)])

    def form(self) -> str:
        """What kind of value answers it, as the answer cell's comment says it."""
        if self.kind == "number":
            return "a whole number"
        shown = ", ".join(f'"{letter}"' for letter in self.letters)
        return f"one of {shown}" if self.kind == "choice" else f"a list of letters among {shown}"

    def fits(self, value: object) -> bool:
        """Whether `value` has the form of an answer (says nothing of whether it is right)."""
        if self.kind == "number":
            return type(value) is int
        if self.kind == "choice":
            return type(value) is str and value in self.letters
        return type(value) is list and all(type(v) is str and v in self.letters for v in value)


class Key(NamedTuple):
    """The answer to one question and the idea it checks (shown to a learner who misses it, never the value)."""

    value: object
    rule: str


def same(question: Question, value: object, key: object) -> bool:
    """Whether `value` answers `question` as `key` does (a list of letters in any order)."""
    if question.kind == "choices":
        return type(value) is list and sorted(map(str, value)) == sorted(map(str, key))  # type: ignore[call-overload]
    return type(value) is type(key) and value == key


QUIZZES: dict[str, tuple[Question, ...]] = {
    "01_envelope": (
        Question(
            'A Chat Completions message has `"content": "Let me check."` and two entries in `tool_calls`. '
            "What does `chat_message_to_envelopes` return?",
            "choice",
            (
                "One final envelope carrying the text, then two call envelopes",
                "One final envelope: the text is the answer",
                "Two call envelopes, in the order of `tool_calls`, and no final envelope",
                "Two call envelopes, then one final envelope carrying the text",
            ),
        ),
        Question(
            "Which of these ids does `parse_envelope` accept?",
            "choices",
            ('`""`', '`"   "`', '`" c1 "`', '`"\\u2003"` (an em space)'),
        ),
        Question(
            'After `raw = {"kind": "call", "id": "c1", "name": "x", "arguments": {"ids": ["a"]}}`, '
            '`p = dict(raw)` and `p["arguments"]["ids"].append("b")`, what is `raw["arguments"]["ids"]`?',
            "choice",
            ("`['a', 'b']`", "`['a']`", "`['b']`", "A `KeyError` is raised"),
        ),
        Question(
            'What do `re.match(r"^[a-zA-Z0-9_-]{1,64}$", "read_note\\n")` and '
            '`re.fullmatch(r"[a-zA-Z0-9_-]{1,64}", "read_note\\n")` return?',
            "choice",
            ("A match, then a match", "`None`, then `None`", "`None`, then a match", "A match, then `None`"),
        ),
        Question(
            '`parse_envelope` accepts `{"kind": "call", "id": "call_3", "name": "read_note", '
            '"arguments": {"note_id": "../../etc/passwd"}}`. What does that establish?',
            "choices",
            (
                "`read_note` is a tool offered in this request",
                "The caller may read that document",
                "`call_3` was not used in an earlier turn",
                "The envelope has the documented shape, so the next layer can inspect it",
            ),
        ),
    ),
    "02_dispatcher": (
        Question('`s = "PEN€€"`. What is `len(s.encode("utf-8"))`?', "number"),
        Question(
            "Which length does the dispatcher compare with `MAX_REQUEST_BYTES`?",
            "choice",
            (
                "`len(request)`, the characters",
                '`len(request.encode("utf-8"))`, the bytes',
                "The number of keys",
                "The nesting depth",
            ),
        ),  # fmt: skip
        Question(
            "What does `dispatch` do with "
            '`\'{"name": "shell", "name": "stock_lookup", "arguments": {"sku": "PEN"}}\'`?',
            "choice",
            (
                "Runs `stock_lookup`: the last `name` wins, as in plain `json.loads`",
                "Runs `shell`: the first `name` wins",
                "Refuses it: `duplicate key: 'name'`",
                "Raises `KeyError`",
            ),
        ),
        Question(
            'Why must `type(call) is dict` come before `set(call) == {"name", "arguments"}`?',
            "choice",
            (
                "It is faster",
                "The order does not matter",
                "`set()` of a `dict` raises `TypeError`",
                '`set()` accepts any iterable: the JSON array `["name", "arguments"]` passes, and `call["name"]` '
                "then raises `TypeError` instead of a refusal",
            ),
        ),
        Question(
            "A request of 1,000 nested `[` followed by 1,000 `]` is 2,000 bytes. "
            "What does `json.loads` raise on it in Python 3.11?",
            "choice",
            (
                "`json.JSONDecodeError`, a `ValueError`",
                "`RecursionError`, which is not a `ValueError`",
                "Nothing: it returns nested lists",
                "`MemoryError`",
            ),
        ),  # fmt: skip
        Question(
            "After adding `price_lookup` to the table, which of these must be refused?",
            "choices",
            (
                '`{"name": "shell", "arguments": {"sku": "PEN"}}`',
                '`{"name": "price_lookup", "arguments": {"sku": "PEN", "admin": true}}`',
                '`{"name": "Price_Lookup", "arguments": {"sku": "PEN"}}`',
                '`{"name": "price_lookup", "arguments": {"sku": "BOOK"}}`',
            ),
        ),
    ),
    "03_loop": (
        Question(
            "A model answers the first request with three tool calls and the second with text. "
            "How many requests does the loop send?",
            "number",
        ),
        Question('In that run, how many `role: "tool"` messages does the second request carry?', "number"),
        Question("The same three lookups with `parallel_tool_calls=False`: how many requests?", "number"),
        Question(
            "Your Responses loop appends only the `function_call` items of each output to the input list. "
            "It works against `server`. What happens against `thinker`?",
            "choice",
            (
                "It works the same",
                "It loops until `MaxStepsExceeded`",
                "HTTP 400 naming the `reasoning` item it left out",
                "The model answers in text at once",
            ),
        ),
        Question(
            'Your chat loop sends `tool_choice={"type": "function", "function": {"name": "get_weather"}}` on every '
            "request, with `max_steps=3`. What happens?",
            "choice",
            (
                "Three requests, then `MaxStepsExceeded`: the model never answers in text",
                "The model calls `get_weather` once, then answers",
                "HTTP 400: `tool_choice` may not name a function",
                "The loop never ends",
            ),
        ),
        Question(
            'A model\'s turn holds `create_file("a.txt")` and `read_file("a.txt")`. May your loop run them on two '
            "threads?",
            "choice",
            (
                "Yes: calls of one turn are independent",
                "Yes, if the read retries on failure",
                "No: run them one at a time, in the order the model listed them",
                "Only under the Responses API",
            ),
        ),  # fmt: skip
    ),
    "04_wire": (
        Question(
            'You send `{"type": "function", "function": {"name": "get_weather", ...}}` to `POST /v1/responses`. '
            "What happens?",
            "choice",
            (
                "It is accepted: both APIs take both shapes",
                "The SDK converts it to the flat shape",
                "The tool is ignored and the model answers in text",
                "HTTP 400: Responses tools are flat, `name` and `parameters` sit next to `type`",
            ),
        ),
        Question(
            "In the Chat Completions style, the model's first turn holds two calls, `call_1` and `call_2`. "
            "How many `messages` does the second request carry?",
            "number",
        ),
        Question(
            'Is `{"type": "object", "properties": {"q": {"type": "string"}, "limit": {"type": "integer"}}, '
            '"required": ["q"], "additionalProperties": false}` strict-compatible, and how do you fix it without '
            "making `limit` mandatory for the user?",
            "choice",
            (
                "It is strict-compatible as it is",
                'No: make `limit`\'s type `["integer", "null"]` and add it to `required`',
                "No: remove `additionalProperties`",
                "No: give `limit` a `default`",
            ),
        ),
        Question(
            "A chat stream gives, for tool call index 0, the fragments `'{\"ci'`, `'ty\": \"Pa'`, `'ris\"}'`, then "
            'a chunk with `finish_reason: "tool_calls"`. When may your code call `json.loads`?',
            "choice",
            (
                "Once, after the `finish_reason` chunk, on the fragments joined",
                "On each fragment as it arrives",
                "As soon as the joined text ends with `}`",
                "Never: the SDK decodes it",
            ),
        ),
        Question(
            "A loop chains with `previous_response_id`. `resp_1` asked for `call_1`, `resp_2` for `call_2`. "
            "What happens if the third request names `resp_1` instead of `resp_2`?",
            "choice",
            (
                "It works the same: both are in the same conversation",
                "HTTP 400: no tool call found for the output of `call_2`",
                "The provider continues from `resp_2` anyway",
                "HTTP 404: `resp_1` is gone",
            ),
        ),
        Question(
            "A support assistant reads customers' card numbers. Which field do you set on every request?",
            "choice",
            (
                '`include: ["reasoning.encrypted_content"]`',
                "`previous_response_id`",
                "`metadata`",
                "`store: false`",
            ),
        ),  # fmt: skip
    ),
    "05_failures": (
        Question(
            "A tool raises an unexpected `KeyError`. What does the model receive?",
            "choice",
            (
                "The traceback",
                "A tool result naming only the exception type; the details go to the server-side log",
                "Nothing: the loop stops",
                "The `KeyError`'s message",
            ),
        ),
        Question(
            'What does `check_args(True, {"type": "integer"})` return?',
            "choice",
            (
                "`[]`",
                "`['$: expected integer, got bool']`",
                "`['$: expected integer, got int']`",
                "It raises `TypeError`",
            ),
        ),  # fmt: skip
        Question(
            'What does `check_args(1.0, {"enum": [1, 2]})` return?',
            "choice",
            (
                "`['$: expected integer, got float']`",
                "`['$: not one of [1, 2]']`",
                "It raises `ValueError`",
                "`[]`",
            ),
        ),  # fmt: skip
        Question(
            'The model calls `delete_note` with `\'{"note_id": "all"}\'`, and your `confirm` would say yes to '
            "anything. How many times is the human asked?",
            "number",
        ),
        Question(
            "A request offers `get_weather` and `average`. The model calls `delete_note`, which your toolbox does "
            "have. What comes back?",
            "choice",
            (
                '`{"error": "unknown tool \'delete_note\'", "available_tools": ["average", "get_weather"]}`',
                "The result of `delete_note`, once the human confirms",
                "An error listing every tool of the toolbox",
                '`{"error": "invalid arguments", ...}`',
            ),
        ),
        Question(
            "You set `max_tool_calls` to 3 on a Responses request. Does that stop a model that calls your "
            "`get_weather` function 10 times across the conversation?",
            "choice",
            (
                "Yes: the provider refuses the fourth call",
                "Yes, but only within one turn",
                "No: it limits calls to built-in tools; bound your functions in your loop",
                "No: it only limits parallel calls",
            ),
        ),
    ),
    "06_security": (
        Question(
            'The model calls `calculate` with `{"expression": "10 ** 10 ** 10"}`. What does the dispatcher send back?',
            "choice",
            (
                "A number with ten billion digits, after a long wait",
                '`{"error": "operator not allowed: Pow"}`, before either operand is computed',
                "An error about the size of the result, once it is computed",
                "`inf`",
            ),
        ),
        Question(
            "This request offered only `fetch_page`, but your registry also holds `delete_note`. The model calls "
            '`delete_note` with `{"note_id": 1}`. What does `run_tool_call` do?',
            "choice",
            (
                "Asks the human to confirm, then runs it",
                "Parses the arguments, then refuses",
                "Runs it: the registry has it",
                "Answers `unknown tool 'delete_note'` with `available_tools: [\"fetch_page\"]`, checking nothing else",
            ),
        ),
        Question(
            'A colleague\'s approver returns the string the person typed, `"no"`. What happens with '
            "`run_tool_call`?",
            "choice",
            (
                "The call is NOT performed; `if confirm(name, args):` would have run it",
                "The call runs: a non-empty string is true",
                "`run_tool_call` raises `TypeError`",
                "Both refuse it",
            ),
        ),
        Question(
            "Why does `ApprovalQueue.confirm` answer no at once instead of showing the dialog and waiting for "
            "the click?",
            "choice",
            (
                "Denying is always safer",
                "It is faster",
                "A kernel handles widget messages only when no cell runs: waiting inside the loop's cell would hang",
                "nbgrader forbids widgets",
            ),
        ),
        Question(
            'A person approved `delete_note({"note_id": 2})` in the dialog. Before `approve` runs it, could '
            "anything change the call to delete note 1?",
            "choice",
            (
                "Yes: the arguments are a dict anyone holding it can edit",
                "Yes: the model can send the call again",
                "Only the person who approved it",
                "No: the recorded call is frozen, and its one-shot confirm says yes only to those arguments, once",
            ),
        ),
        Question(
            "The fetched page in section 7 was labelled `UNTRUSTED_DATA_NOT_INSTRUCTIONS`, yet the note "
            "disappeared under the first policy. What do you change first?",
            "choice",
            (
                "Stop offering `delete_note` to a request that only summarises a page",
                "A louder label",
                "A lower temperature",
                "Strip the HTML from the page",
            ),
        ),
    ),
    "07_capstone": (
        Question(
            "The model proposes 50 `search_orders` calls in one turn, then answers. How many tools run?",
            "number",
        ),
        Question("In that run, how many audit entries are written?", "number"),
        Question("In that run, how many model requests are sent?", "number"),
        Question(
            "An approver returns `1`. What does `ask_approver` return?",
            "choice",
            (
                '`(True, "approved")`: `1 == True`',
                '`(False, "the approver answered 1, not True")`',
                "It raises `TypeError`",
                '`(None, "no answer")`',
            ),
        ),
        Question(
            "`same_call_forever` proposes the same lookup on every turn. After how many requests does the run "
            "end with `repeated_call`?",
            "number",
        ),
        Question(
            "Why does the harness redact a tool result *before* the model reads it, and not only in the audit log?",
            "choice",
            (
                "To keep the audit log small",
                "The provider requires it",
                "It is faster",
                "The model is the path out: what it never sees, it cannot copy into a call",
            ),
        ),
    ),
}
"""notebook -> its checkpoint questions, in order: question k is answered by `qk` in the answer cell."""

ANSWERS_MODULE = "course_lib.quiz_answers.n{}"
"""Where a notebook's key lives: `course_lib.quiz_answers.n01_envelope` (a key, see the module docstring)."""


def answers(notebook: str) -> tuple[Key, ...] | None:
    """The key of `notebook`'s quiz, one `Key` per question; None when this edition does not publish it."""
    try:
        module = importlib.import_module(ANSWERS_MODULE.format(notebook))
    except ModuleNotFoundError:
        return None
    return tuple(module.ANSWERS)


def _show(value: object) -> str:
    """A value as the learner writes it in the answer cell."""
    return repr(value).replace("'", '"')


def feedback(notebook: str, number: int, value: object) -> str:
    """What the self-check says about `value` as the answer to question `number` (from 1), as plain text."""
    question = QUIZZES[notebook][number - 1]
    if value is None or value == [] or value == "":
        return f"{number}: not answered yet"
    if not question.fits(value):
        return f"{number}: answer with {question.form()}"
    keys = answers(notebook)
    if keys is None:
        return (
            f"{number}: write q{number} = {_show(value)} in the answer cell below; "
            "the answers come with the published edition"
        )
    key = keys[number - 1]
    if same(question, value, key.value):
        return f"{number}: right"
    return f"{number}: not this one. The idea: {key.rule}"


def _inline(text: str) -> str:
    """Markdown's `code` spans and *emphasis* as HTML, the rest escaped."""
    escaped = html.escape(text)
    escaped = re.sub(r"`([^`]+)`", r"<code>\1</code>", escaped)
    return re.sub(r"\*([^*]+)\*", r"<em>\1</em>", escaped)


def _plain(text: str) -> str:
    """Markdown as plain text (an option's label)."""
    return text.replace("`", "")


def self_check(notebook: str) -> Any:
    """Show `notebook`'s quiz as widgets with a Check button (in JupyterLab); headless, print one fixed line.

    Checking compares what is clicked with the key when the edition publishes it (right, or the idea missed),
    and otherwise says which value to write in the answer cell. It never writes `q1`, `q2`, ...
    """
    questions = QUIZZES[notebook]
    if not is_interactive():
        print(
            f"Self-check: {len(questions)} questions. Open this notebook in JupyterLab to click your answers "
            "here; what counts is the answer cell below."
        )
        return None
    widgets: Any = importlib.import_module("ipywidgets")
    inputs: list[tuple[Question, Any]] = []
    rows = []
    for number, question in enumerate(questions, start=1):
        rows.append(widgets.HTML(f"<b>{number}.</b> {_inline(question.text)}"))
        labelled = [
            f"{letter}. {_plain(text)}"
            for letter, text in zip(question.letters, question.options, strict=True)
        ]
        if question.kind == "choice":
            field = widgets.RadioButtons(
                options=list(zip(labelled, question.letters, strict=True)), value=None
            )
        elif question.kind == "choices":
            field = widgets.VBox(
                [widgets.Checkbox(description=label, value=False, indent=False) for label in labelled]
            )
        else:
            field = widgets.Text(placeholder="a whole number")
        rows.append(field)
        inputs.append((question, field))
    button = widgets.Button(description="Check", button_style="primary")
    verdicts = widgets.HTML()

    def check(_: object) -> None:
        lines = [
            feedback(notebook, number, _read(question, field))
            for number, (question, field) in enumerate(inputs, start=1)
        ]
        verdicts.value = "<br>".join(html.escape(line) for line in lines)

    button.on_click(check)
    box = widgets.VBox([*rows, button, verdicts])
    box.add_class("course-quiz")
    return box


def _read(question: Question, field: Any) -> object:
    """What the learner clicked or typed for `question`, as the value they would write in the answer cell."""
    if question.kind == "choice":
        return field.value
    if question.kind == "choices":
        return [letter for letter, box in zip(question.letters, field.children, strict=True) if box.value]
    return _number(field.value)


def _number(text: str) -> object:
    """A whole number typed in a text field, or the text itself when it is none."""
    try:
        return int(text.strip())
    except ValueError:
        return text.strip()
