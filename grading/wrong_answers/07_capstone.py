"""Plausible wrong answers to notebook 07 and the tests that catch them.

Most are a correct piece of the desk with one mistake spliced in, so each one fails for exactly the reason
in its `why`. Several are also caught by the pack itself, run through the notebook's harness.
"""

from __future__ import annotations

from grading.wrong_answers import WrongAnswer, splice

POLICY = "policy"
APPROVER = "ask_approver"
CANONICAL = "canonical"
BUDGET = "budget"
REDACT = "redact"
AUDIT = "audit_entry"
ADAPTER = "chat_adapter"
HARNESS = "test_your_harness"
POLICY_TESTS = ("test_mode_for", "test_offered_tools", "test_effective_mode")
APPROVER_TESTS = (
    "test_ask_approver_only_true",
    "test_ask_approver_failures",
    "test_ask_approver_timeout",
    "test_ask_approver_copy",
)
BUDGET_TESTS = ("test_budget_steps", "test_budget_time", "test_budget_repeats")
REDACT_TESTS = ("test_redact_plain", "test_redact_escaped", "test_redact_keys_and_safety")
AUDIT_TESTS = ("test_audit_entry_fields", "test_audit_entry_strings", "test_audit_entry_safe")
OWN_WORK = "be your own work: importing, wrapping or calling the reference (`course_lib.desk."
NEXT_REQUEST = 'if `max_steps` requests were already taken, return `"step_budget"`'
APPROVER_ONLY_TRUE = "answer yes only when the approver returned an object that **is** `True`"
ADAPTER_TESTS = ("test_chat_adapter_round_trip", "test_chat_adapter_every_call", "test_chat_adapter_errors")

_POLICY_OK = '''
def mode_for(policy, name):
    """A correct answer, written differently from the notebook's."""
    value = policy.get(name)
    if isinstance(value, str) and value == "auto":
        return "auto"
    if isinstance(value, str) and value == "confirm":
        return "confirm"
    return "never"


def offered_tools(policy, registered):
    offered = []
    for name in registered:
        if mode_for(policy, name) in ("auto", "confirm"):
            offered.append(name)
    offered.sort()
    return offered


def effective_mode(policy, name, concerns=()):
    mode = mode_for(policy, name)
    if concerns and mode == "auto":
        mode = "confirm"
    return mode
'''

_APPROVER_OK = '''
def ask_approver(approver, name, arguments, timeout):
    """A correct answer, written differently from the notebook's."""
    if approver is None:
        return (False, "nobody can approve")
    box = []

    def consult():
        try:
            box.append(("answer", approver(name, copy.deepcopy(arguments))))
        except BaseException as problem:
            box.append(("raised", type(problem).__name__))

    thread = threading.Thread(target=consult, daemon=True)
    thread.start()
    thread.join(timeout)
    if thread.is_alive() or not box:
        return (False, "no answer in time")
    kind, value = box[0]
    if kind == "raised":
        return (False, f"the approver raised {value}")
    if value is True:
        return (True, "approved")
    return (False, f"answered {value!r:.30}, which is not True")
'''

_CANONICAL_OK = '''
def canonical(name, arguments):
    """A correct answer, written differently from the notebook's."""
    def normal(value):
        if isinstance(value, dict):
            return {key: normal(item) for key, item in value.items()}
        if isinstance(value, list):
            return [normal(item) for item in value]
        if isinstance(value, float) and value.is_integer():
            return int(value)
        return value

    try:
        text = json.dumps(normal(arguments), sort_keys=True, allow_nan=False)
    except (TypeError, ValueError, RecursionError):
        text = repr(arguments)
    return f"{name} {text}"
'''

_BUDGET_OK = '''
class Budget:
    """A correct answer, written differently from the notebook's."""

    def __init__(self, max_steps=8, max_seconds=30.0, max_repeats=3, clock=time.monotonic):
        self.max_steps = max_steps
        self.max_seconds = max_seconds
        self.max_repeats = max_repeats
        self.clock = clock
        self.steps = 0
        self._start = clock()
        self._counts = {}

    def elapsed(self):
        return self.clock() - self._start

    def remaining(self):
        left = self.max_seconds - self.elapsed()
        return left if left > 0 else 0.0

    def out_of_time(self):
        return not self.remaining() > 0

    def steps_left(self):
        return self.max_steps - self.steps if self.steps < self.max_steps else 0

    def next_request(self):
        if self.steps_left() == 0:
            return "step_budget"
        if self.out_of_time():
            return "time_budget"
        self.steps = self.steps + 1
        return None

    def repeat(self, name, arguments):
        key = canonical(name, arguments)
        self._counts[key] = self._counts.get(key, 0) + 1
        return self._counts[key] > self.max_repeats
'''

_REDACT_OK = r'''
def redact(text):
    """A correct answer, written differently from the notebook's."""
    secret = CANARY.casefold()
    spans = [(i, j) for i in range(len(CANARY)) for j in range(i + SECRET_PIECE, len(CANARY) + 1)]
    pieces = sorted({CANARY[i:j] for i, j in spans}, key=len, reverse=True)
    out = re.compile("|".join(map(re.escape, pieces)), re.IGNORECASE).sub(REDACTED, text)
    out = KEY_PATTERN.sub(REDACTED, out)
    look = out
    for _ in range(4):
        step = re.sub(r"\\+u([0-9a-fA-F]{4})", lambda m: chr(int(m.group(1), 16)), look)
        step = re.sub(r"\\+x([0-9a-fA-F]{2})", lambda m: chr(int(m.group(1), 16)), step)
        step = re.sub(r"%([0-9a-fA-F]{2})", lambda m: chr(int(m.group(1), 16)), step)
        step = re.sub(r"&#[xX]([0-9a-fA-F]{1,6});", lambda m: chr(min(int(m.group(1), 16), 0x10FFFF)), step)
        step = re.sub(r"&#(\d{1,7});", lambda m: chr(min(int(m.group(1)), 0x10FFFF)), step)
        if step == look:
            break
        look = step
    look = "".join(ch for ch in unicodedata.normalize("NFKC", look) if unicodedata.category(ch) != "Cf").casefold()
    pieces_left = [secret[i:i + SECRET_PIECE] for i in range(len(secret) - SECRET_PIECE + 1)]
    if any(piece in look for piece in pieces_left) or KEY_PATTERN.search(look):
        return REDACTED
    return out
'''

_AUDIT_OK = '''
def audit_entry(step, call_id, name, arguments, decision, reason, outcome):
    """A correct answer, written differently from the notebook's."""
    def scrub(value):
        if value is None or isinstance(value, (bool, int, float)):
            return value
        if isinstance(value, str):
            visible = value.encode("utf-8", errors="backslashreplace").decode("utf-8")
            hidden = redact(visible)
            extra = len(hidden) - MAX_AUDIT_CHARS
            return hidden if extra <= 0 else hidden[:MAX_AUDIT_CHARS] + f"...[{extra} more chars]"
        if isinstance(value, dict):
            return {scrub(str(key)): scrub(item) for key, item in value.items()}
        if isinstance(value, (list, tuple)):
            return [scrub(item) for item in value]
        return scrub(repr(value))

    entry = {}
    for key, value in (("step", step), ("id", call_id), ("name", name), ("arguments", arguments),
                       ("decision", decision), ("reason", reason), ("outcome", outcome)):
        entry[key] = scrub(value)
    return entry
'''

_ADAPTER_OK = '''
class ChatAdapter:
    """A correct answer, written differently from the notebook's."""

    api = "chat"

    def __init__(self, base, tools, *, model=MODEL):
        self.base = base
        self.model = model
        self.requests = 0
        self.history = []
        self.declared = tools_field("chat", tools)

    def start(self, user_text, *, timeout):
        self.history = [{"role": "user", "content": user_text}]
        return self._turn(timeout)

    def reply(self, results, *, timeout):
        for result in results:
            self.history.append({"role": "tool", "tool_call_id": result.id, "content": result.content})
        return self._turn(timeout)

    def _turn(self, timeout):
        payload = {"model": self.model, "messages": self.history}
        if self.declared:
            payload["tools"] = self.declared
        self.requests += 1
        data = post_json(self.base, "/chat/completions", payload, timeout=timeout)
        try:
            first = data["choices"][0]
            message = first["message"]
            cut_off = first.get("finish_reason") == "length"
            items = []
            for call in message.get("tool_calls") or []:
                if call.get("type") == "function":
                    items.append(call_item(call["id"], call["function"]["name"], call["function"]["arguments"]))
        except (KeyError, IndexError, TypeError, AttributeError):
            raise ModelTurnError("not a chat completion") from None
        if cut_off:
            raise ModelTurnError("cut off at the token limit")
        self.history.append(message)
        if items:
            return items
        return final_turn(message.get("content"))

    def close(self):
        pass
'''

CORRECT = {
    POLICY: _POLICY_OK,
    APPROVER: _APPROVER_OK,
    CANONICAL: _CANONICAL_OK,
    BUDGET: _BUDGET_OK,
    REDACT: _REDACT_OK,
    AUDIT: _AUDIT_OK,
    ADAPTER: _ADAPTER_OK,
}
"""The bases above, unchanged: each must pass every test (tests/notebooks/test_notebooks.py does not use them)."""

WRONG_ANSWERS = [
    # ---- Part A: the policy table ------------------------------------------------------------------------
    WrongAnswer(
        POLICY,
        "mode_for fails open: it returns whatever the table holds ('AUTO', True), defaulting only a missing tool",
        splice(
            _POLICY_OK,
            (
                "    value = policy.get(name)\n"
                '    if isinstance(value, str) and value == "auto":\n        return "auto"\n'
                '    if isinstance(value, str) and value == "confirm":\n        return "confirm"\n    return "never"',
                '    return policy.get(name, "never")',
            ),
            ('if mode_for(policy, name) in ("auto", "confirm"):', 'if mode_for(policy, name) != "never":'),
        ),
        ("test_mode_for", "test_offered_tools"),
        '`"never"` for anything else',
    ),
    WrongAnswer(
        POLICY,
        "a never tool is still offered: offered_tools returns every registered tool",
        splice(_POLICY_OK, ('if mode_for(policy, name) in ("auto", "confirm"):', "if name:")),
        ("test_offered_tools", HARNESS),
        "whose mode, by `mode_for`, is not",
    ),
    WrongAnswer(
        POLICY,
        "offered_tools offers the tools the policy names, registered or not",
        splice(_POLICY_OK, ("for name in registered:", "for name in policy:")),
        ("test_offered_tools",),
        "offer only registered tools",
    ),
    WrongAnswer(
        POLICY,
        "effective_mode ignores the concerns: a tainted write runs unasked under the open policy",
        splice(_POLICY_OK, ('    if concerns and mode == "auto":\n        mode = "confirm"\n', "")),
        ("test_effective_mode", HARNESS),
        '`"auto"` becomes `"confirm"` when `concerns` is not empty',
    ),
    WrongAnswer(
        POLICY,
        "a concern turns every mode into confirm, never included",
        splice(_POLICY_OK, ('if concerns and mode == "auto":', "if concerns:")),
        ("test_effective_mode",),
        "never lower a mode",
    ),
    WrongAnswer(
        POLICY,
        "imports the reference policy functions",
        "from course_lib.desk.policy import effective_mode, mode_for, offered_tools\n",
        (*POLICY_TESTS, HARNESS),
        OWN_WORK,
    ),
    WrongAnswer(
        POLICY,
        "mode_for knows only 'auto': a confirm tool is treated as never and not offered",
        splice(
            _POLICY_OK,
            ('    if isinstance(value, str) and value == "confirm":\n        return "confirm"\n', ""),
        ),
        ("test_mode_for", "test_offered_tools", "test_effective_mode", HARNESS),
        'return `"auto"` or `"confirm"` when `policy` maps `name` to exactly that string',
    ),
    WrongAnswer(
        POLICY,
        "mode_for lower-cases the value first, so 'AUTO' and 'Confirm' allow the tool",
        splice(
            _POLICY_OK,
            (
                "    value = policy.get(name)\n",
                "    value = policy.get(name)\n"
                "    value = value.lower() if isinstance(value, str) else value\n",
            ),
        ),
        ("test_mode_for",),
        '`"never"` for anything else',
    ),
    WrongAnswer(
        POLICY,
        "offered_tools keeps the order registered gives, unsorted",
        splice(_POLICY_OK, ("    offered.sort()\n", "")),
        ("test_offered_tools",),
        "return that list sorted",
    ),
    WrongAnswer(
        POLICY,
        "offered_tools sorts the caller's list in place to save a copy",
        splice(
            _POLICY_OK,
            (
                "    offered = []\n    for name in registered:\n",
                "    names = registered if isinstance(registered, list) else list(registered)\n"
                "    names.sort()\n    offered = []\n    for name in names:\n",
            ),
        ),
        ("test_offered_tools",),
        "leave `registered` as it was given",
    ),
    WrongAnswer(
        POLICY,
        "effective_mode reads the table itself, failing open: 'AUTO' comes back as the mode",
        splice(
            _POLICY_OK,
            (
                "    mode = mode_for(policy, name)\n    if concerns",
                '    mode = policy.get(name, "never")\n    if concerns',
            ),
        ),
        ("test_effective_mode",),
        "return the mode `mode_for` gives",
    ),
    WrongAnswer(
        POLICY,
        "effective_mode has no default for concerns: called with two arguments it raises TypeError",
        splice(
            _POLICY_OK,
            ("def effective_mode(policy, name, concerns=()):", "def effective_mode(policy, name, concerns):"),
        ),
        ("test_effective_mode",),
        "treat a missing `concerns` as no concern",
    ),
    # ---- Part B: the approver ----------------------------------------------------------------------------
    WrongAnswer(
        APPROVER,
        "compares the answer with == True, so 1 and 1.0 count as a yes",
        splice(_APPROVER_OK, ("if value is True:", "if value == True:  # noqa: E712")),
        ("test_ask_approver_only_true",),
        APPROVER_ONLY_TRUE,
    ),
    WrongAnswer(
        APPROVER,
        "trusts any truthy answer: 'yes' and 1 approve the refund",
        splice(_APPROVER_OK, ("if value is True:", "if value:")),
        ("test_ask_approver_only_true", HARNESS),
        APPROVER_ONLY_TRUE,
    ),
    WrongAnswer(
        APPROVER,
        "calls the approver directly: its exception escapes and a slow one blocks the run",
        splice(
            _APPROVER_OK,
            (
                "    box = []\n",
                "    answer = approver(name, copy.deepcopy(arguments))\n"
                "    return (answer is True, f'answered {answer!r:.30}')\n    box = []\n",
            ),
        ),
        ("test_ask_approver_failures", "test_ask_approver_timeout", HARNESS),
        "in a worker thread started with",
    ),
    WrongAnswer(
        APPROVER,
        "joins the worker without a timeout: an approver that answers late still approves",
        splice(_APPROVER_OK, ("thread.join(timeout)", "thread.join()")),
        ("test_ask_approver_timeout", HARNESS),
        "wait for the thread at most `timeout` seconds",
    ),
    WrongAnswer(
        APPROVER,
        "shows the approver the real arguments, so it can change what runs",
        splice(_APPROVER_OK, ("approver(name, copy.deepcopy(arguments))", "approver(name, arguments)")),
        ("test_ask_approver_copy",),
        "never `arguments` itself or a shallow copy",
    ),
    WrongAnswer(
        APPROVER,
        "a shallow copy: the approver can still change nested arguments",
        splice(_APPROVER_OK, ("approver(name, copy.deepcopy(arguments))", "approver(name, dict(arguments))")),
        ("test_ask_approver_copy",),
        "never `arguments` itself or a shallow copy",
    ),
    WrongAnswer(
        APPROVER,
        "an approver that raises BaseException (KeyboardInterrupt, SystemExit) is not caught: it kills the thread",
        splice(
            _APPROVER_OK, ("        except BaseException as problem:", "        except Exception as problem:")
        ),
        ("test_ask_approver_failures",),
        "answer no when the approver raises, whatever it raises",
    ),
    WrongAnswer(
        APPROVER,
        "the worker thread is not a daemon: an abandoned approver keeps Python from exiting",
        splice(
            _APPROVER_OK,
            ("threading.Thread(target=consult, daemon=True)", "threading.Thread(target=consult)"),
        ),
        # nbgrader's run sees the flag (the trusted check's approver runs in the grader's own thread)
        ("test_ask_approver_timeout",),
        "in a worker thread started with",
    ),
    WrongAnswer(
        APPROVER,
        "no approver counts as a yes: nobody objected",
        splice(
            _APPROVER_OK,
            ('return (False, "nobody can approve")', 'return (True, "no approver: nobody objected")'),
        ),
        ("test_ask_approver_only_true",),
        "when `approver` is `None`: nobody can say yes",
    ),
    WrongAnswer(
        APPROVER,
        "a yes comes with an empty reason",
        splice(_APPROVER_OK, ('return (True, "approved")', 'return (True, "")')),
        ("test_ask_approver_only_true",),
        "and `why` a non-empty `str` for the audit log",
    ),
    WrongAnswer(
        APPROVER,
        "imports the reference ask_approver",
        "from course_lib.desk.policy import ask_approver\n",
        (*APPROVER_TESTS, HARNESS),
        OWN_WORK,
    ),
    # ---- Part C: canonical and the budget ---------------------------------------------------------------
    WrongAnswer(
        CANONICAL,
        "no sort_keys: the same call with its keys swapped looks new",
        splice(_CANONICAL_OK, ("sort_keys=True, ", "")),
        ("test_canonical", "test_budget_repeats"),
        "so that key order never matters",
    ),
    WrongAnswer(
        CANONICAL,
        "1.0 is not written as 1: the same JSON number gives two calls",
        splice(_CANONICAL_OK, ("json.dumps(normal(arguments),", "json.dumps(arguments,")),
        ("test_canonical", "test_budget_repeats"),
        "by the equal `int`, at any depth",
    ),
    WrongAnswer(
        CANONICAL,
        "only the top-level floats are made whole: 1.0 inside a list or a nested dict stays 1.0",
        splice(
            _CANONICAL_OK,
            ("return [normal(item) for item in value]", "return value"),
            (
                "return {key: normal(item) for key, item in value.items()}",
                "return {key: int(item) if isinstance(item, float) and item.is_integer() else item"
                " for key, item in value.items()}",
            ),
        ),
        ("test_canonical",),
        "by the equal `int`, at any depth",
    ),
    WrongAnswer(
        CANONICAL,
        "every number becomes an int when it can, True included: true and 1 become the same call",
        splice(
            _CANONICAL_OK,
            (
                "if isinstance(value, float) and value.is_integer():",
                "if isinstance(value, (int, float)) and float(value).is_integer():",
            ),
        ),
        ("test_canonical",),
        "keep every other value as it is",
    ),
    WrongAnswer(
        CANONICAL,
        "no fallback: a set or NaN in the arguments makes canonical raise",
        splice(
            _CANONICAL_OK,
            (
                "    try:\n        text = json.dumps(normal(arguments), sort_keys=True, allow_nan=False)\n"
                "    except (TypeError, ValueError, RecursionError):\n        text = repr(arguments)\n",
                "    text = json.dumps(normal(arguments), sort_keys=True, allow_nan=False)\n",
            ),
        ),
        ("test_canonical",),
        'return `name + " " + repr(arguments)` instead: never raise',
    ),
    WrongAnswer(
        CANONICAL,
        "imports the reference canonical",
        "from course_lib.desk.budget import canonical\n",
        ("test_canonical", HARNESS),
        OWN_WORK,
    ),
    WrongAnswer(
        BUDGET,
        "off by one: the step budget allows max_steps + 1 requests",
        splice(_BUDGET_OK, ("if self.steps_left() == 0:", "if self.steps > self.max_steps:")),
        ("test_budget_steps",),
        NEXT_REQUEST,
    ),
    WrongAnswer(
        BUDGET,
        "off by one: the third identical call already ends the run",
        splice(
            _BUDGET_OK,
            ("return self._counts[key] > self.max_repeats", "return self._counts[key] >= self.max_repeats"),
        ),
        ("test_budget_repeats", HARNESS),
        "proposed **more than** `max_repeats` times",
    ),
    WrongAnswer(
        BUDGET,
        "reads the wall clock instead of the clock it was given",
        splice(
            _BUDGET_OK,
            ("self._start = clock()", "self._start = time.monotonic()"),
            ("return self.clock() - self._start", "return time.monotonic() - self._start"),
        ),
        ("test_budget_time",),
        "never read the time any other way",
    ),
    WrongAnswer(
        BUDGET,
        "remaining() goes negative once the time is spent",
        splice(_BUDGET_OK, ("return left if left > 0 else 0.0", "return left")),
        ("test_budget_time",),
        "but never below `0.0`",
    ),
    WrongAnswer(
        BUDGET,
        "the default step budget is 10 requests",
        splice(_BUDGET_OK, ("def __init__(self, max_steps=8,", "def __init__(self, max_steps=10,")),
        ("test_budget_steps",),
        "with those defaults, and keep the four",
    ),
    WrongAnswer(
        BUDGET,
        "steps starts at 1, as if the first request were taken",
        splice(_BUDGET_OK, ("        self.steps = 0\n", "        self.steps = 1\n")),
        ("test_budget_steps",),
        "set `steps = 0`",
    ),
    WrongAnswer(
        BUDGET,
        "elapsed() returns the clock's reading, not the time since the start",
        splice(_BUDGET_OK, ("return self.clock() - self._start", "return self.clock()")),
        ("test_budget_time",),
        "return the seconds since the start",
    ),
    WrongAnswer(
        BUDGET,
        "out_of_time() waits for remaining() to go below 0, which it never does",
        splice(_BUDGET_OK, ("return not self.remaining() > 0", "return self.remaining() < 0")),
        ("test_budget_time",),
        "return `True` once `remaining()` is `0` or less",
    ),
    WrongAnswer(
        BUDGET,
        "steps_left() counts the request in flight: one less than is left",
        splice(
            _BUDGET_OK,
            (
                "return self.max_steps - self.steps if self.steps < self.max_steps else 0",
                "return self.max_steps - self.steps - 1",
            ),
            ("if self.steps_left() == 0:", "if self.steps >= self.max_steps:"),
        ),
        ("test_budget_steps",),
        "return `max_steps - steps`, never below 0",
    ),
    WrongAnswer(
        BUDGET,
        "next_request checks the time before the steps: with both spent it says time_budget",
        splice(
            _BUDGET_OK,
            (
                '        if self.steps_left() == 0:\n            return "step_budget"\n'
                '        if self.out_of_time():\n            return "time_budget"\n',
                '        if self.out_of_time():\n            return "time_budget"\n'
                '        if self.steps_left() == 0:\n            return "step_budget"\n',
            ),
        ),
        ("test_budget_time",),
        NEXT_REQUEST,
    ),
    WrongAnswer(
        BUDGET,
        "counts the request before checking it, so a refused request is counted too",
        splice(
            _BUDGET_OK,
            (
                "        if self.steps_left() == 0:\n",
                "        self.steps = self.steps + 1\n        if self.steps > self.max_steps:\n",
            ),
            ("        self.steps = self.steps + 1\n        return None\n", "        return None\n"),
        ),
        ("test_budget_steps",),
        "never count a refused request",
    ),
    WrongAnswer(
        BUDGET,
        "repeat counts proposals by tool name only: three different lookups end the run",
        splice(_BUDGET_OK, ("key = canonical(name, arguments)", "key = name")),
        ("test_budget_repeats", HARNESS),
        "count each distinct call apart",
    ),
    WrongAnswer(
        BUDGET,
        "subclasses the reference Budget",
        "import course_lib.desk.budget\n\n\nclass Budget(course_lib.desk.budget.Budget):\n    pass\n",
        (*BUDGET_TESTS, HARNESS),
        "importing, wrapping or subclassing the reference",
    ),
    # ---- Part D: redaction ------------------------------------------------------------------------------
    WrongAnswer(
        REDACT,
        "str.replace of the exact secret: its lower-case copy, its halves and its escaped spellings stay",
        "def redact(text):\n    return KEY_PATTERN.sub(REDACTED, text.replace(CANARY, REDACTED))\n",
        ("test_redact_plain", "test_redact_escaped"),
        "in any letter case, by `REDACTED`",
    ),
    WrongAnswer(
        REDACT,
        "never decodes escapes: a JSON-escaped or percent-encoded secret slips through",
        splice(_REDACT_OK, ("    for _ in range(4):", "    for _ in range(0):")),
        ("test_redact_escaped",),
        "again and again while that changes something",
    ),
    WrongAnswer(
        REDACT,
        "replaces only the whole secret: a text holding it split in two is replaced entirely",
        splice(
            _REDACT_OK,
            ("pieces = sorted({CANARY[i:j] for i, j in spans}, key=len, reverse=True)", "pieces = [CANARY]"),
        ),
        ("test_redact_plain",),
        "and so does either half of it",
    ),
    WrongAnswer(
        REDACT,
        "normalises the text through UTF-8 bytes first: a lone surrogate makes redact raise",
        splice(
            _REDACT_OK,
            ("    look = out\n", '    look = out.encode("utf-8").decode("utf-8")\n'),
        ),
        ("test_redact_keys_and_safety",),
        "`redact` never raises",
    ),
    WrongAnswer(
        REDACT,
        "key-like text is only looked for after decoding: a bearer token takes the whole line with it",
        splice(_REDACT_OK, ("    out = KEY_PATTERN.sub(REDACTED, out)\n", "")),
        ("test_redact_keys_and_safety",),
        "replace every match of `KEY_PATTERN` by `REDACTED`, keeping the text around it",
    ),
    WrongAnswer(
        REDACT,
        "keeps invisible format characters: a secret with zero-width spaces between its pieces slips through",
        splice(_REDACT_OK, ('if unicodedata.category(ch) != "Cf"', "if True")),
        ("test_redact_escaped",),
        "drop invisible format characters",
    ),
    WrongAnswer(
        REDACT,
        "wraps the reference redact",
        "import course_lib.desk.audit\n\n\ndef redact(text):\n    return course_lib.desk.audit.redact(text)\n",
        (*REDACT_TESTS, HARNESS),
        OWN_WORK,
    ),
    # ---- Part E: the audit entry ------------------------------------------------------------------------
    WrongAnswer(
        AUDIT,
        "lone surrogates stay: the log line cannot be written as UTF-8",
        splice(
            _AUDIT_OK,
            ('visible = value.encode("utf-8", errors="backslashreplace").decode("utf-8")', "visible = value"),
        ),
        ("test_audit_entry_strings",),
        "first making lone surrogates visible",
    ),
    WrongAnswer(
        AUDIT,
        "dict keys are copied as they are: a secret used as a key reaches the log",
        splice(_AUDIT_OK, ("{scrub(str(key)): scrub(item)", "{str(key): scrub(item)")),
        ("test_audit_entry_safe",),
        "whose keys (turned into `str`) and values are made safe",
    ),
    WrongAnswer(
        AUDIT,
        "strings are never clipped: one huge argument makes a megabyte log line",
        splice(_AUDIT_OK, ("return hidden if extra <= 0 else", "return hidden if True else")),
        ("test_audit_entry_strings",),
        "if it is longer than `MAX_AUDIT_CHARS` (300)",
    ),
    WrongAnswer(
        AUDIT,
        "arguments are logged as they are: only the top-level strings are cleaned",
        splice(
            _AUDIT_OK,
            (
                "        entry[key] = scrub(value)",
                "        entry[key] = value if key == 'arguments' else scrub(value)",
            ),
        ),
        ("test_audit_entry_safe", HARNESS),
        "applied all the way down into `arguments`",
    ),
    WrongAnswer(
        AUDIT,
        "never redacts: the secret reaches the log",
        splice(_AUDIT_OK, ("hidden = redact(visible)", "hidden = visible")),
        ("test_audit_entry_strings", "test_audit_entry_safe"),
        "then `redact` it (yours)",
    ),
    WrongAnswer(
        AUDIT,
        "a tuple stays a tuple",
        splice(
            _AUDIT_OK,
            (
                "            return [scrub(item) for item in value]\n",
                "            return [scrub(item) for item in value] if isinstance(value, list)"
                " else tuple(scrub(item) for item in value)\n",
            ),
        ),
        ("test_audit_entry_fields",),
        "as a new `list` of its items made safe",
    ),
    WrongAnswer(
        AUDIT,
        "numbers are written as text",
        splice(
            _AUDIT_OK,
            (
                "        if value is None or isinstance(value, (bool, int, float)):\n            return value\n",
                "        if value is None or isinstance(value, bool):\n            return value\n"
                "        if isinstance(value, (int, float)):\n            return str(value)\n",
            ),
        ),
        ("test_audit_entry_fields",),
        "keep `None`, a `bool`, an `int` or a `float` as it is",
    ),
    WrongAnswer(
        AUDIT,
        "any other object is kept as it is: a set reaches the log, and a secret in its repr too",
        splice(_AUDIT_OK, ("        return scrub(repr(value))\n", "        return value\n")),
        ("test_audit_entry_safe",),
        "make anything else safe as its `repr()`",
    ),
    WrongAnswer(
        AUDIT,
        "cleans the dicts it is given in place",
        splice(
            _AUDIT_OK,
            (
                "            return {scrub(str(key)): scrub(item) for key, item in value.items()}\n",
                "            for key in list(value):\n                value[key] = scrub(value[key])\n"
                "            return {scrub(str(key)): item for key, item in value.items()}\n",
            ),
        ),
        ("test_audit_entry_fields",),
        "never change what it was given",
    ),
    WrongAnswer(
        AUDIT,
        "wraps the reference audit_entry",
        "import course_lib.desk\n\n\ndef audit_entry(*fields):\n    return course_lib.desk.audit_entry(*fields)\n",
        (*AUDIT_TESTS, HARNESS),
        OWN_WORK,
    ),
    WrongAnswer(
        AUDIT,
        "names the id field call_id",
        splice(_AUDIT_OK, ('("id", call_id)', '("call_id", call_id)')),
        ("test_audit_entry_fields",),
        "return a dict with exactly the keys",
    ),
    # ---- Part F: the Chat Completions adapter -----------------------------------------------------------
    WrongAnswer(
        ADAPTER,
        "answers only the first call of a turn",
        splice(
            _ADAPTER_OK,
            (
                'for call in message.get("tool_calls") or []:',
                'for call in (message.get("tool_calls") or [])[:1]:',
            ),
        ),
        ("test_chat_adapter_every_call", HARNESS),
        'turn every tool call whose `type` is `"function"` into `call_item(',
    ),
    WrongAnswer(
        ADAPTER,
        "numbers the calls itself instead of keeping the wire's ids",
        splice(
            _ADAPTER_OK,
            ('items.append(call_item(call["id"],', 'items.append(call_item(f"call_{len(items) + 1}",'),
        ),
        ("test_chat_adapter_round_trip", "test_chat_adapter_every_call", HARNESS),
        'turn every tool call whose `type` is `"function"` into `call_item(',
    ),
    WrongAnswer(
        ADAPTER,
        "forgets the assistant turn: the tool results answer calls the history never made",
        splice(_ADAPTER_OK, ("        self.history.append(message)\n", "")),
        ("test_chat_adapter_round_trip", "test_chat_adapter_every_call", HARNESS),
        "otherwise append that `message` to the history",
    ),
    WrongAnswer(
        ADAPTER,
        "ignores finish_reason 'length': a cut-off turn is returned and would run",
        splice(_ADAPTER_OK, ('cut_off = first.get("finish_reason") == "length"', "cut_off = False")),
        ("test_chat_adapter_errors",),
        'raise `ModelTurnError` if `choices[0]["finish_reason"]` is `"length"`',
    ),
    WrongAnswer(
        ADAPTER,
        "never counts its requests",
        splice(_ADAPTER_OK, ("        self.requests += 1\n", "")),
        ("test_chat_adapter_round_trip", HARNESS),
        "adding 1 to `requests` before it",
    ),
    WrongAnswer(
        ADAPTER,
        "ignores the timeout it is given: a slow model outlives the wall-clock budget",
        splice(_ADAPTER_OK, ("payload, timeout=timeout)", "payload)")),
        ("test_chat_adapter_errors",),  # the pack runs on a FakeClock: its slow model cannot catch this
        "timeout=timeout)`",
    ),
    WrongAnswer(
        ADAPTER,
        "wraps the library's ChatAdapter",
        """from course_lib.adapters import ChatAdapter as _LibraryChat


class ChatAdapter:
    api = "chat"

    def __init__(self, base, tools, *, model=MODEL):
        self._inner = _LibraryChat(base, tools, model=model)

    @property
    def requests(self):
        return self._inner.requests

    def start(self, user_text, *, timeout):
        return self._inner.start(user_text, timeout=timeout)

    def reply(self, results, *, timeout):
        return self._inner.reply(results, timeout=timeout)

    def close(self):
        self._inner.close()
""",
        (*ADAPTER_TESTS, HARNESS),
        "do not import or wrap the library's adapters",
    ),
    WrongAnswer(
        ADAPTER,
        "names its api after the endpoint, not 'chat'",
        splice(_ADAPTER_OK, ('    api = "chat"\n', '    api = "chat.completions"\n')),
        ("test_chat_adapter_round_trip",),
        'have `api = "chat"` as a class attribute',
    ),
    WrongAnswer(
        ADAPTER,
        "sends a tools field even when it is empty",
        splice(_ADAPTER_OK, ("        if self.declared:\n", "        if True:\n")),
        ("test_chat_adapter_round_trip",),
        'send it as the request\'s `"tools"` only when it is not empty',
    ),
    WrongAnswer(
        ADAPTER,
        "always sends MODEL, whatever model it was given",
        splice(_ADAPTER_OK, ('payload = {"model": self.model,', 'payload = {"model": MODEL,')),
        ("test_chat_adapter_round_trip",),
        "send the `model` it was given (`MODEL` by default)",
    ),
    WrongAnswer(
        ADAPTER,
        "start adds the user's message to what an earlier conversation left in the history",
        splice(
            _ADAPTER_OK,
            (
                '        self.history = [{"role": "user", "content": user_text}]\n',
                '        self.history.append({"role": "user", "content": user_text})\n',
            ),
        ),
        ("test_chat_adapter_round_trip",),
        "afresh, whatever an earlier conversation left in it",
    ),
    WrongAnswer(
        ADAPTER,
        "answers the results last first",
        splice(
            _ADAPTER_OK, ("        for result in results:\n", "        for result in reversed(results):\n")
        ),
        ("test_chat_adapter_every_call",),
        "per `ToolResult` to the history, in the order given",
    ),
    WrongAnswer(
        ADAPTER,
        "counts a request only once it has been answered",
        splice(
            _ADAPTER_OK,
            ("        self.requests += 1\n", ""),
            ("timeout=timeout)\n", "timeout=timeout)\n        self.requests += 1\n"),
        ),
        ("test_chat_adapter_errors",),
        "(a request that fails counts too)",
    ),
    WrongAnswer(
        ADAPTER,
        "lets a KeyError out of an answer without choices[0]['message']",
        splice(
            _ADAPTER_OK,
            (
                "        except (KeyError, IndexError, TypeError, AttributeError):\n",
                "        except ZeroDivisionError:\n",
            ),
        ),
        ("test_chat_adapter_errors",),
        'raise `ModelTurnError` if the answer has no `choices[0]["message"]`',
    ),
    WrongAnswer(
        ADAPTER,
        "replays a rebuilt assistant message (role, content, tool_calls) instead of the one that came back",
        splice(
            _ADAPTER_OK,
            (
                "        self.history.append(message)\n",
                '        self.history.append({"role": "assistant", "content": message.get("content"),'
                ' "tool_calls": message.get("tool_calls")})\n',
            ),
        ),
        ("test_chat_adapter_round_trip",),
        "exactly as it came back, every key kept",
    ),
    WrongAnswer(
        ADAPTER,
        "turns a call of any type into an item, so a 'custom' call breaks the turn",
        splice(_ADAPTER_OK, ('if call.get("type") == "function":', "if True:")),
        ("test_chat_adapter_every_call",),
        "and skip a call of any other type",
    ),
    WrongAnswer(
        ADAPTER,
        "answers with an empty text when the model sent neither text nor calls",
        splice(
            _ADAPTER_OK,
            (
                '        return final_turn(message.get("content"))\n',
                '        return [{"kind": "final", "text": message.get("content") or ""}]\n',
            ),
        ),
        ("test_chat_adapter_errors",),
        "which raises `ModelTurnError` when there is no text either",
    ),
    WrongAnswer(
        POLICY,
        "refuses every tool, whatever the policy says",
        'def mode_for(policy, name):\n    return "never"\n\n\n'
        "def offered_tools(policy, registered):\n    return []\n\n\n"
        'def effective_mode(policy, name, concerns=()):\n    return "never"\n',
        POLICY_TESTS,
        'return `"auto"` or `"confirm"` when `policy` maps `name` to exactly that string',
    ),
    WrongAnswer(
        APPROVER,
        "refuses every call without asking the approver",
        'def ask_approver(approver, name, arguments, timeout):\n    return (False, "refused")\n',
        APPROVER_TESTS,
        APPROVER_ONLY_TRUE,
    ),
    WrongAnswer(
        REDACT,
        "refuses every text: redacts it whole, secret or not",
        "def redact(text):\n    return REDACTED\n",
        REDACT_TESTS,
        "return text with nothing to hide unchanged",
    ),
    WrongAnswer(
        REDACT,
        "returns its input unchanged: the text as it was given",
        "def redact(text):\n    return text\n",
        REDACT_TESTS,
        "return `REDACTED` alone: the whole string is replaced",
    ),
    WrongAnswer(
        BUDGET,
        "refuses everything: out of steps from the first request, every call a repeat",
        splice(
            _BUDGET_OK,
            ("        if self.steps_left() == 0:\n", "        if True:\n"),
            ("        return self._counts[key] > self.max_repeats\n", "        return True\n"),
        ),
        BUDGET_TESTS,
        NEXT_REQUEST,
    ),
    WrongAnswer(
        AUDIT,
        "returns its input unchanged: the fields as given, nothing redacted, nothing cut",
        "def audit_entry(step, call_id, name, arguments, decision, reason, outcome):\n"
        '    return {"step": step, "id": call_id, "name": name, "arguments": arguments, "decision": decision,\n'
        '            "reason": reason, "outcome": outcome}\n',
        AUDIT_TESTS,
        "then `redact` it (yours)",
    ),
    WrongAnswer(
        ADAPTER,
        "refuses every turn the model sends",
        splice(
            _ADAPTER_OK,
            ("        if cut_off:\n", "        if True:\n"),
        ),
        (*ADAPTER_TESTS, HARNESS),
        'return `final_turn(message.get("content"))` when no call comes of the message',
    ),
    # ---- issue 35: each bullet at its boundary, and the degenerate answers of every part --------------------
    WrongAnswer(
        POLICY,
        "offered_tools copies registered with .copy() to leave it alone: a tuple or a generator has no copy()",
        splice(_POLICY_OK, ("    for name in registered:\n", "    for name in registered.copy():\n")),
        ("test_offered_tools",),
        "any other iterable such as a generator",
    ),
    WrongAnswer(
        POLICY,
        "effective_mode asks whether any concern is truthy: a concern that is an empty string is ignored",
        splice(_POLICY_OK, ('if concerns and mode == "auto":', 'if any(concerns) and mode == "auto":')),
        ("test_effective_mode",),
        'whatever it holds (even `[""]`)',
    ),
    WrongAnswer(
        POLICY,
        "returns its input unchanged: the table's value as the mode, registered as the offer",
        "def mode_for(policy, name):\n    return policy.get(name)\n\n\n"
        "def offered_tools(policy, registered):\n    return registered\n\n\n"
        "def effective_mode(policy, name, concerns=()):\n    return policy.get(name)\n",
        POLICY_TESTS,
        '`"never"` for anything else',
    ),
    WrongAnswer(
        APPROVER,
        "asks an approver that raised a second time before giving up",
        splice(
            _APPROVER_OK,
            (
                "        except BaseException as problem:\n"
                '            box.append(("raised", type(problem).__name__))\n',
                "        except BaseException:\n"
                "            try:  # one more chance: the approval service may have been busy\n"
                '                box.append(("answer", approver(name, copy.deepcopy(arguments))))\n'
                "            except BaseException as problem:\n"
                '                box.append(("raised", type(problem).__name__))\n',
            ),
        ),
        ("test_ask_approver_failures",),
        "exactly once",
    ),
    WrongAnswer(
        APPROVER,
        "keeps waiting after the timeout, in slices, for a late answer",
        splice(
            _APPROVER_OK,
            (
                "    thread.join(timeout)\n",
                "    thread.join(timeout)\n    while thread.is_alive():  # a late answer is better than none\n"
                "        thread.join(0.05)\n",
            ),
        ),
        ("test_ask_approver_timeout",),
        "never waited for again",
    ),
    WrongAnswer(
        APPROVER,
        "gives a late approver one more chance: a second join(timeout) after the first timed out",
        splice(
            _APPROVER_OK,
            (
                "    thread.join(timeout)\n",
                "    thread.join(timeout)\n    if thread.is_alive():\n        thread.join(timeout)\n",
            ),
        ),
        ("test_ask_approver_timeout",),
        "never waited for again",
    ),
    WrongAnswer(
        APPROVER,
        "waits at least a second whatever the timeout: a short timeout becomes a one-second one",
        splice(_APPROVER_OK, ("thread.join(timeout)", "thread.join(max(timeout, 1.0))")),
        ("test_ask_approver_timeout",),
        "wait for the thread at most `timeout` seconds",
    ),
    WrongAnswer(
        APPROVER,
        "returns its input unchanged: the approver's own answer, about the real arguments, in the caller's thread",
        'def ask_approver(approver, name, arguments, timeout):\n    return (approver(name, arguments), "asked")\n',
        APPROVER_TESTS,
        APPROVER_ONLY_TRUE,
    ),
    WrongAnswer(
        CANONICAL,
        "the fallback writes the repr of the normalised arguments: 1.0 beside a NaN becomes 1",
        splice(
            _CANONICAL_OK, ("        text = repr(arguments)\n", "        text = repr(normal(arguments))\n")
        ),
        ("test_canonical",),
        'return `name + " " + repr(arguments)` instead',
    ),
    WrongAnswer(
        CANONICAL,
        "json.dumps(default=repr) instead of the fallback: a set is written as a JSON string",
        splice(
            _CANONICAL_OK,
            ("sort_keys=True, allow_nan=False)", "sort_keys=True, allow_nan=False, default=repr)"),
        ),
        ("test_canonical",),
        'return `name + " " + repr(arguments)` instead',
    ),
    WrongAnswer(
        CANONICAL,
        "refuses every call: canonical raises whatever it is given",
        'def canonical(name, arguments):\n    raise ValueError("cannot write this call")\n',
        ("test_canonical", "test_budget_repeats"),
        'return `name + " " + repr(arguments)` instead: never raise',
    ),
    WrongAnswer(
        CANONICAL,
        "returns its input unchanged: the arguments themselves",
        "def canonical(name, arguments):\n    return arguments\n",
        ("test_canonical",),
        "so that key order never matters",
    ),
    WrongAnswer(
        BUDGET,
        "counts only back-to-back repeats: a call proposed between others starts again at 1",
        splice(
            _BUDGET_OK,
            (
                "        key = canonical(name, arguments)\n",
                "        key = canonical(name, arguments)\n"
                "        if key not in self._counts:  # a new call: start afresh\n"
                "            self._counts = {}\n",
            ),
        ),
        ("test_budget_repeats",),
        "back to back or not",
    ),
    WrongAnswer(
        BUDGET,
        "keys the count by the arguments' items, not canonical: nested arguments raise TypeError",
        splice(
            _BUDGET_OK, ("key = canonical(name, arguments)", "key = (name, frozenset(arguments.items()))")
        ),
        ("test_budget_repeats",),
        "`canonical(name, arguments)` (use yours)",
    ),
    WrongAnswer(
        BUDGET,
        "returns its input unchanged: its limits as they were given, never a status, never a repeat",
        "class Budget:\n"
        "    def __init__(self, max_steps=8, max_seconds=30.0, max_repeats=3, clock=time.monotonic):\n"
        "        self.max_steps, self.max_seconds = max_steps, max_seconds\n"
        "        self.max_repeats, self.clock = max_repeats, clock\n"
        "        self.steps = 0\n\n"
        "    def elapsed(self):\n        return 0.0\n\n"
        "    def remaining(self):\n        return self.max_seconds\n\n"
        "    def out_of_time(self):\n        return False\n\n"
        "    def steps_left(self):\n        return self.max_steps\n\n"
        "    def next_request(self):\n        return None\n\n"
        "    def repeat(self, name, arguments):\n        return False\n",
        BUDGET_TESTS,
        NEXT_REQUEST,
    ),
    WrongAnswer(
        REDACT,
        "step 1 matches the secret in its own letter case only: a lower-case copy takes the whole text with it",
        splice(
            _REDACT_OK,
            ('"|".join(map(re.escape, pieces)), re.IGNORECASE)', '"|".join(map(re.escape, pieces)))'),
        ),
        ("test_redact_plain",),
        "in any letter case",
    ),
    WrongAnswer(
        REDACT,
        "looks for the pieces in their own case in the casefolded text: a piece with the capitals ITK is never found",
        splice(_REDACT_OK, ("    secret = CANARY.casefold()\n", "    secret = CANARY\n")),
        ("test_redact_escaped",),
        "(casefolded too)",
    ),
    WrongAnswer(
        REDACT,
        "decodes \\uXXXX only after a single backslash: two backslashes keep the secret hidden",
        splice(_REDACT_OK, (r'r"\\+u([0-9a-fA-F]{4})"', r'r"(?<!\\)\\u([0-9a-fA-F]{4})"')),
        ("test_redact_escaped",),
        "after one or more backslashes",
    ),
    WrongAnswer(
        REDACT,
        "never decodes \\xXX",
        splice(
            _REDACT_OK,
            (
                '        step = re.sub(r"\\\\+x([0-9a-fA-F]{2})", lambda m: chr(int(m.group(1), 16)), step)\n',
                "",
            ),
        ),
        ("test_redact_escaped",),
        r"`\xXX`",
    ),
    WrongAnswer(
        REDACT,
        "decodes decimal HTML entities only: &#x37; keeps the secret hidden",
        splice(
            _REDACT_OK,
            ('step = re.sub(r"&#[xX]', 'step = step if True else re.sub(r"&#[xX]'),
        ),
        ("test_redact_escaped",),
        "`&#xHH;`",
    ),
    WrongAnswer(
        REDACT,
        "decodes one round only: a nested escape such as %5Cu0037 keeps the secret hidden",
        splice(_REDACT_OK, ("    for _ in range(4):", "    for _ in range(1):")),
        ("test_redact_escaped",),
        "at most 4 rounds: escapes can be nested",
    ),
    WrongAnswer(
        REDACT,
        "no NFKC: full-width letters and digits keep the secret hidden",
        splice(_REDACT_OK, ('unicodedata.normalize("NFKC", look)', "look")),
        ("test_redact_escaped",),
        'normalise the result with `unicodedata.normalize("NFKC", ...)`',
    ),
    WrongAnswer(
        REDACT,
        "never casefolds what it looks at: the secret in swapped case between invisible characters slips through",
        splice(_REDACT_OK, ('!= "Cf").casefold()', '!= "Cf")')),
        ("test_redact_escaped",),
        "and `casefold()` it",
    ),
    WrongAnswer(
        REDACT,
        "returns the NFKC form of a text with nothing to hide: a ligature or a full-width letter comes back changed",
        splice(_REDACT_OK, ("    return out\n", '    return unicodedata.normalize("NFKC", out)\n')),
        ("test_redact_keys_and_safety",),
        "unchanged, character for character",
    ),
    WrongAnswer(
        AUDIT,
        "clips before redacting: a secret cut at the limit leaves its first characters, and the count is wrong",
        splice(
            _AUDIT_OK,
            ("            hidden = redact(visible)\n", "            hidden = visible\n"),
            (
                'return hidden if extra <= 0 else hidden[:MAX_AUDIT_CHARS] + f"...[{extra} more chars]"',
                "return redact(hidden) if extra <= 0 else "
                'redact(hidden[:MAX_AUDIT_CHARS]) + f"...[{extra} more chars]"',
            ),
        ),
        ("test_audit_entry_strings",),
        "then, if it is longer than",
    ),
    WrongAnswer(
        AUDIT,
        "clips a string of exactly MAX_AUDIT_CHARS characters too",
        splice(_AUDIT_OK, ("return hidden if extra <= 0 else", "return hidden if extra < 0 else")),
        ("test_audit_entry_strings",),
        "if it is longer than `MAX_AUDIT_CHARS` (300)",
    ),
    WrongAnswer(
        AUDIT,
        "makes lone surrogates visible last, after clipping: the six characters of each escape are never counted",
        splice(
            _AUDIT_OK,
            (
                '            visible = value.encode("utf-8", errors="backslashreplace").decode("utf-8")\n'
                "            hidden = redact(visible)\n",
                "            hidden = redact(value)\n",
            ),
            (
                'return hidden if extra <= 0 else hidden[:MAX_AUDIT_CHARS] + f"...[{extra} more chars]"',
                'kept = hidden if extra <= 0 else hidden[:MAX_AUDIT_CHARS] + f"...[{extra} more chars]"\n'
                '            return kept.encode("utf-8", errors="backslashreplace").decode("utf-8")',
            ),
        ),
        ("test_audit_entry_strings",),
        "first making lone surrogates visible",
    ),
    WrongAnswer(
        AUDIT,
        "writes anything else as str(), not repr(): a record whose str() is not its repr() is logged wrongly",
        splice(_AUDIT_OK, ("        return scrub(repr(value))\n", "        return scrub(str(value))\n")),
        ("test_audit_entry_safe",),
        "make anything else safe as its `repr()`",
    ),
    WrongAnswer(
        AUDIT,
        "a dict with nothing to change is returned as it is: the entry holds the caller's dict",
        splice(
            _AUDIT_OK,
            (
                "            return {scrub(str(key)): scrub(item) for key, item in value.items()}\n",
                "            made = {scrub(str(key)): scrub(item) for key, item in value.items()}\n"
                "            return value if made == value else made  # nothing changed: no copy needed\n",
            ),
        ),
        ("test_audit_entry_safe",),
        "make a `dict` safe as a new dict",
    ),
    WrongAnswer(
        AUDIT,
        "a list with nothing to change is returned as it is: the entry holds the caller's list",
        splice(
            _AUDIT_OK,
            (
                "            return [scrub(item) for item in value]\n",
                "            made = [scrub(item) for item in value]\n"
                "            return value if made == value else made  # nothing changed: no copy needed\n",
            ),
        ),
        ("test_audit_entry_safe",),
        "as a new `list` of its items made safe",
    ),
    WrongAnswer(
        AUDIT,
        "keeps a key that is not a str as it is: an int key stays an int",
        splice(
            _AUDIT_OK,
            ("{scrub(str(key)): scrub(item)", "{(scrub(key) if isinstance(key, str) else key): scrub(item)"),
        ),
        ("test_audit_entry_safe",),
        "whose keys (turned into `str`) and values are made safe",
    ),
    WrongAnswer(
        AUDIT,
        "refuses every field: each one is logged as REDACTED",
        "def audit_entry(step, call_id, name, arguments, decision, reason, outcome):\n"
        '    return dict.fromkeys(["step", "id", "name", "arguments", "decision", "reason", "outcome"], REDACTED)\n',
        AUDIT_TESTS,
        "keep `None`, a `bool`, an `int` or a `float` as it is",
    ),
    WrongAnswer(
        ADAPTER,
        "start counts its requests from 0 again",
        splice(
            _ADAPTER_OK,
            (
                '        self.history = [{"role": "user", "content": user_text}]\n',
                '        self.history = [{"role": "user", "content": user_text}]\n        self.requests = 0\n',
            ),
        ),
        ("test_chat_adapter_round_trip",),
        "across `start()` calls",
    ),
    WrongAnswer(
        ADAPTER,
        "marks an error result in its tool message with an is_error key",
        splice(
            _ADAPTER_OK,
            (
                '"tool_call_id": result.id, "content": result.content})',
                '"tool_call_id": result.id, "content": result.content,\n'
                '                                 **({"is_error": True} if result.is_error else {})})',
            ),
        ),
        ("test_chat_adapter_every_call",),
        '`{"role": "tool", "tool_call_id": r.id, "content": r.content}`',
    ),
    WrongAnswer(
        ADAPTER,
        "reads the calls only when finish_reason is 'tool_calls': calls that end with 'stop' are lost",
        splice(
            _ADAPTER_OK,
            (
                'for call in message.get("tool_calls") or []:',
                'for call in (message.get("tool_calls") or []) if first.get("finish_reason") == "tool_calls" else []:',
            ),
        ),
        ("test_chat_adapter_every_call",),
        "whatever the `finish_reason`",
    ),
    WrongAnswer(
        ADAPTER,
        "keeps a cut-off turn in the history before refusing it",
        splice(
            _ADAPTER_OK,
            (
                "        if cut_off:\n",
                "        self.history.append(message)  # keep the history whole\n        if cut_off:\n",
            ),
            ("        self.history.append(message)\n        if items:", "        if items:"),
        ),
        ("test_chat_adapter_errors",),
        "otherwise append that `message` to the history",
    ),
    WrongAnswer(
        ADAPTER,
        "returns its input unchanged: the wire's message as the turn",
        splice(
            _ADAPTER_OK,
            (
                '        if items:\n            return items\n        return final_turn(message.get("content"))\n',
                "        return [message]\n",
            ),
        ),
        (*ADAPTER_TESTS, HARNESS),
        'return `final_turn(message.get("content"))` when no call comes of the message',
    ),
    # ---- held-out wrong answers of a red-team check (issue 35), each caught by a hidden check added with it ----
    WrongAnswer(
        CANONICAL,
        "falls back on TypeError and ValueError only: a deeply nested argument raises RecursionError",
        splice(
            _CANONICAL_OK,
            ("except (TypeError, ValueError, RecursionError):", "except (TypeError, ValueError):"),
        ),
        ("test_canonical",),
        'return `name + " " + repr(arguments)` instead: never raise',
    ),
    WrongAnswer(
        AUDIT,
        "redacts a dict key but never clips it: a key longer than MAX_AUDIT_CHARS stays whole",
        splice(
            _AUDIT_OK,
            (
                "return {scrub(str(key)): scrub(item)",
                'return {redact(str(key).encode("utf-8", errors="backslashreplace").decode("utf-8")): scrub(item)',
            ),
        ),
        ("test_audit_entry_safe",),
        "whose keys (turned into `str`) and values are made safe the same way",
    ),
    WrongAnswer(
        AUDIT,
        "writes anything else as its redacted repr(), never clipped: a long bytes value stays whole",
        splice(_AUDIT_OK, ("return scrub(repr(value))", "return redact(repr(value))")),
        ("test_audit_entry_safe",),
        "make anything else safe as its `repr()`, made safe as a `str`",
    ),
    WrongAnswer(
        ADAPTER,
        "reads a message with text beside its calls as the final answer: the calls are lost",
        splice(
            _ADAPTER_OK,
            (
                '        if items:\n            return items\n        return final_turn(message.get("content"))\n',
                '        if message.get("content") or not items:\n'
                '            return final_turn(message.get("content"))\n'
                "        return items\n",
            ),
        ),
        ("test_chat_adapter_every_call",),
        "whatever the `finish_reason`",
    ),
    WrongAnswer(
        ADAPTER,
        "returns an empty turn when every call is of another type, instead of final_turn of its text",
        splice(
            _ADAPTER_OK,
            (
                "        if items:\n            return items\n",
                '        if message.get("tool_calls"):\n            return items\n',
            ),
        ),
        ("test_chat_adapter_every_call",),
        'return `final_turn(message.get("content"))` when no call comes of the message',
    ),
    # ---- a second red-team round (issue 35): held-out wrong answers, each caught by a hidden check added with it ----
    WrongAnswer(
        POLICY,
        "mode_for looks the name up stripped: ' get_order' gets get_order's mode",
        splice(_POLICY_OK, ("    value = policy.get(name)\n", "    value = policy.get(name.strip())\n")),
        ("test_mode_for",),
        "a name missing from the table",
    ),
    WrongAnswer(
        APPROVER,
        "gives the approver's own text as the reason when it returned a str: an answer '' leaves why empty",
        splice(
            _APPROVER_OK,
            (
                '    return (False, f"answered {value!r:.30}, which is not True")',
                "    if isinstance(value, str):\n        return (False, value)\n"
                '    return (False, f"answered {value!r:.30}, which is not True")',
            ),
        ),
        ("test_ask_approver_only_true",),
        "and `why` a non-empty `str` for the audit log",
    ),
    WrongAnswer(
        APPROVER,
        "catches Exception, KeyboardInterrupt and SystemExit only: another BaseException escapes the worker",
        splice(
            _APPROVER_OK,
            (
                "except BaseException as problem:",
                "except (Exception, KeyboardInterrupt, SystemExit) as problem:",
            ),
        ),
        ("test_ask_approver_failures",),
        "answer no when the approver raises, whatever it raises",
    ),
    WrongAnswer(
        APPROVER,
        "answers no at once for a timeout of 0, without asking the approver",
        splice(
            _APPROVER_OK,
            (
                "    box = []\n",
                '    if timeout <= 0:\n        return (False, "no time to ask")\n    box = []\n',
            ),
        ),
        ("test_ask_approver_timeout",),
        "otherwise call `approver(name, a_copy)` exactly once",
    ),
    WrongAnswer(
        APPROVER,
        "tests `if not approver`: an approver object that is falsy is taken for no approver",
        splice(_APPROVER_OK, ("    if approver is None:\n", "    if not approver:\n")),
        ("test_ask_approver_only_true",),
        "when `approver` is `None`: nobody can say yes",
    ),
    WrongAnswer(
        BUDGET,
        "resets a call's count once it reports the repeat: the next identical call is allowed again",
        splice(
            _BUDGET_OK,
            (
                "        return self._counts[key] > self.max_repeats\n",
                "        if self._counts[key] > self.max_repeats:\n            self._counts[key] = 0\n"
                "            return True\n        return False\n",
            ),
        ),
        ("test_budget_repeats",),
        "and return `True` when that call has now been proposed",
    ),
    WrongAnswer(
        BUDGET,
        "counts a call's repeats among the last 10 proposals only: repeats far apart are forgotten",
        splice(
            _BUDGET_OK,
            (
                "        self._counts[key] = self._counts.get(key, 0) + 1\n"
                "        return self._counts[key] > self.max_repeats\n",
                '        recent = self._counts.setdefault("recent", [])\n        recent.append(key)\n'
                "        del recent[:-10]\n        return recent.count(key) > self.max_repeats\n",
            ),
        ),
        ("test_budget_repeats",),
        "back to back or not",
    ),
    WrongAnswer(
        BUDGET,
        "the default clock is time.time, not time.monotonic",
        splice(_BUDGET_OK, ("clock=time.monotonic):", "clock=time.time):")),
        ("test_budget_steps",),
        "with those defaults",
    ),
    WrongAnswer(
        REDACT,
        "step 1 finds the runs in text.casefold() and cuts text there: a ß or an İ before the secret shifts the cut",
        splice(
            _REDACT_OK,
            (
                '    out = re.compile("|".join(map(re.escape, pieces)), re.IGNORECASE).sub(REDACTED, text)\n',
                '    pattern = re.compile("|".join(map(re.escape, pieces)), re.IGNORECASE)\n'
                "    low, kept, i = text.casefold(), [], 0\n"
                "    while i < len(text):\n"
                "        match = pattern.match(low, i)\n"
                "        if match:\n"
                "            kept.append(REDACTED)\n"
                "            i = match.end()\n"
                "        else:\n"
                "            kept.append(text[i])\n"
                "            i += 1\n"
                '    out = "".join(kept)\n',
            ),
        ),
        ("test_redact_plain",),
        "and the rest of the text stays as it was",
    ),
    WrongAnswer(
        REDACT,
        "decodes %XX with upper-case hex digits only: %2d, a '-', stays as it is",
        splice(_REDACT_OK, ('step = re.sub(r"%([0-9a-fA-F]{2})"', 'step = re.sub(r"%([0-9A-F]{2})"')),
        ("test_redact_escaped",),
        "then look for what is still hidden: decode escapes",
    ),
    WrongAnswer(
        ADAPTER,
        "reads the last choice of the answer, not choices[0]",
        splice(_ADAPTER_OK, ('first = data["choices"][0]', 'first = data["choices"][-1]')),
        ("test_chat_adapter_every_call",),
        'if the answer has no `choices[0]["message"]`',
    ),
]
