# ruff: noqa: E501 - the misreadings are lines of source, quoted whole
"""Notebook 07's differential families (course_grade.score.oracle.n07_capstone): the instructor's solution and
every independent answer agree with the reference on every family, and sentence-level misreadings of each part's
list, written as small changes of the instructor's solution, are each caught by some family.

07's graded names are not its cells' grade_ids, so the answers are defined with `CELLS` (the part's cell).
"""

from __future__ import annotations

import pytest

from course_grade.score.oracle import judge as judge_module
from course_grade.score.oracle.judge import Disagreement, judge
from course_grade.score.oracle.n07_capstone import CELLS, PARTS
from grading import differential
from grading.independent_answers import independent

ASSIGNMENT = "07_capstone"


@pytest.fixture(autouse=True)
def no_shrinking(monkeypatch: pytest.MonkeyPatch) -> None:
    """A caught answer is reported as first found: these tests ask whether, not where."""
    monkeypatch.setattr(judge_module, "SHRINK_SECONDS", 0.0)


def disagreements(name: str, source: str | None = None, first: bool = False) -> dict[str, str]:
    """family -> the disagreement, for `source` in the cell of part `name` (default: the instructor's); with
    `first`, only the first family that catches it."""
    found: dict[str, str] = {}
    with differential.answer(ASSIGNMENT, CELLS[name], source) as namespace:
        for key in PARTS[name].families:
            try:
                judge(f"{ASSIGNMENT}.{name}", key, namespace[name])
            except Disagreement as error:
                found[key] = str(error)
                if first:
                    break
    return found


def solution(name: str) -> str:
    return differential._cells_before(ASSIGNMENT, CELLS[name])[1]


@pytest.mark.parametrize("name", sorted(PARTS))
def test_honest_answers_agree_with_the_reference(name: str) -> None:
    honest = [("instructor", None)] + [
        (one.author, one.cells[CELLS[name]]) for one in independent(ASSIGNMENT) if CELLS[name] in one.cells
    ]
    for who, source in honest:
        assert disagreements(name, source) == {}, who


MISREADINGS: list[tuple[str, str, str, str]] = [
    (
        "mode_for",
        "a mode stripped before comparing: ' auto' taken for auto",
        'mode in ("auto", "confirm")',
        'mode.strip() in ("auto", "confirm")',
    ),
    (
        "mode_for",
        "a mode compared case-insensitively",
        'type(mode) is str and mode in ("auto", "confirm")',
        'type(mode) is str and mode.lower() in ("auto", "confirm")',
    ),
    ("mode_for", "a missing name fails open", "mode = policy.get(name)", 'mode = policy.get(name, "auto")'),
    (
        "offered_tools",
        "offers the names in registered order",
        "return sorted(name for name in registered",
        "return list(name for name in registered",
    ),
    (
        "offered_tools",
        "offers every name the policy allows, registered or not",
        "return sorted(name for name in registered if",
        "return sorted(name for name in {*registered, *policy} if",
    ),
    (
        "offered_tools",
        "sorts the caller's list in place",
        'return sorted(name for name in registered if mode_for(policy, name) != "never")',
        'registered = registered if not isinstance(registered, list) else (registered.sort() or registered)\n    return sorted(name for name in registered if mode_for(policy, name) != "never")',
    ),
    (
        "effective_mode",
        "a concern only counts when it is truthy",
        "and len(concerns) > 0",
        "and any(concerns)",
    ),
    (
        "effective_mode",
        "a concern makes every mode confirm",
        'return "confirm" if mode == "auto" and len(concerns) > 0 else mode',
        'return "confirm" if len(concerns) > 0 else mode',
    ),
    (
        "ask_approver",
        "an approver answering 1 is a yes",
        'if outcome.get("answer") is True:',
        'if outcome.get("answer") == True:  # noqa',
    ),
    (
        "ask_approver",
        "a shallow copy for the approver",
        "approver(name, copy.deepcopy(arguments))",
        "approver(name, dict(arguments))",
    ),
    (
        "ask_approver",
        "only an Exception is caught",
        "except BaseException as error:",
        "except Exception as error:",
    ),
    ("ask_approver", "a thread that is not a daemon", 'name="approver", daemon=True)', 'name="approver")'),
    (
        "ask_approver",
        "the timeout doubled for slow approvers",
        "worker.join(max(timeout, 0.0))",
        "worker.join(max(2 * timeout, 0.0))",
    ),
    (
        "canonical",
        "whole floats turned into ints at the top level only",
        "return {key: whole(item) for key, item in value.items()}",
        "return dict(value)",
    ),
    (
        "canonical",
        "True counted as a whole number",
        "if isinstance(value, float) and value.is_integer():",
        "if isinstance(value, (float, bool)) and float(value).is_integer():",
    ),
    (
        "canonical",
        "the fallback writes the repr of the converted value",
        'return name + " " + repr(arguments)',
        'return name + " " + repr(whole(arguments))',
    ),
    ("canonical", "keys left unsorted", "sort_keys=True, allow_nan=False", "allow_nan=False"),
    (
        "Budget",
        "a request past the time is counted",
        '            return "time_budget"\n',
        '            self.steps += 1\n            return "time_budget"\n',
    ),
    (
        "Budget",
        "the time checked before the steps",
        '        if self.steps >= self.max_steps:\n            return "step_budget"\n        if self.out_of_time():\n            return "time_budget"\n',
        '        if self.out_of_time():\n            return "time_budget"\n        if self.steps >= self.max_steps:\n            return "step_budget"\n',
    ),
    (
        "Budget",
        "out of time only once remaining is below 0",
        "return self.remaining() <= 0.0",
        "return self.max_seconds - self.elapsed() < 0.0",
    ),
    (
        "Budget",
        "repeat True at max_repeats, not past it",
        "return self.seen[key] > self.max_repeats",
        "return self.seen[key] >= self.max_repeats",
    ),
    (
        "Budget",
        "repeats counted back to back only",
        "self.seen[key] = self.seen.get(key, 0) + 1",
        "self.seen = {key: self.seen.get(key, 0) + 1}",
    ),
    (
        "Budget",
        "the clock read twice when the budget is created",
        "self.started = clock()",
        "self.started = clock()\n        clock()",
    ),
    ("redact", "step 1 only in lower case", "flags=re.IGNORECASE", "flags=0"),
    (
        "redact",
        "the whole secret only, not its pieces",
        "for size in range(len(CANARY), SECRET_PIECE - 1, -1)",
        "for size in range(len(CANARY), len(CANARY) - 1, -1)",
    ),
    ("redact", "no casefold when looking", ").casefold()\n    pieces", ")\n    pieces"),
    ("redact", "one round of decoding only", "for _ in range(4):", "for _ in range(1):"),
    (
        "redact",
        "a key replaced with the whole text",
        "text = KEY_PATTERN.sub(REDACTED, ",
        "text = (lambda t: REDACTED if KEY_PATTERN.search(t) else t)(",
    ),
    (
        "audit_entry",
        "clipped before redacting",
        'text = redact(value.encode("utf-8", "backslashreplace").decode("utf-8"))',
        'text = value.encode("utf-8", "backslashreplace").decode("utf-8")[:MAX_AUDIT_CHARS + 50]\n            text = redact(text)',
    ),
    (
        "audit_entry",
        "the count of cut characters off by the marker",
        "...[{len(text) - MAX_AUDIT_CHARS} more chars]",
        "...[{len(text)} more chars]",
    ),
    (
        "audit_entry",
        "a tuple kept as a tuple",
        "return [safe(item) for item in value]",
        "return type(value)(safe(item) for item in value)",
    ),
    (
        "audit_entry",
        "dict keys not made safe",
        "return {safe(str(key)): safe(item)",
        "return {str(key): safe(item)",
    ),
    ("audit_entry", "surrogates replaced, not made visible", '"backslashreplace"', '"replace"'),
    (
        "ChatAdapter",
        "tools always sent",
        '        if self.tools:\n            body["tools"] = self.tools\n',
        '        body["tools"] = self.tools\n',
    ),
    (
        "ChatAdapter",
        "start keeps the earlier history",
        'self.messages = [{"role": "user", "content": user_text}]',
        'self.messages.append({"role": "user", "content": user_text})',
    ),
    (
        "ChatAdapter",
        "a failed request not counted",
        '        self.requests += 1\n        answer = post_json(self.base, "/chat/completions", body, timeout=timeout)\n',
        '        answer = post_json(self.base, "/chat/completions", body, timeout=timeout)\n        self.requests += 1\n',
    ),
    (
        "ChatAdapter",
        "only the keys role and content kept",
        "self.messages.append(message)",
        'self.messages.append({key: message[key] for key in ("role", "content", "tool_calls") if key in message})',
    ),
    (
        "ChatAdapter",
        "a cut-off turn with text returned",
        'if finish == "length":',
        'if finish == "length" and turn:',
    ),
    ("ChatAdapter", "calls of any type turned into items", 'if call.get("type") == "function"]', "]"),
]


@pytest.mark.parametrize(("name", "why", "old", "new"), MISREADINGS, ids=[m[1][:60] for m in MISREADINGS])
def test_misreadings_are_caught(name: str, why: str, old: str, new: str) -> None:
    source = solution(name)
    assert old in source, f"{why}: the solution no longer holds {old!r}"
    assert disagreements(name, source.replace(old, new, 1), first=True), f"no family catches: {why}"
