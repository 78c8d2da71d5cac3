"""Independent answers to notebook 07, written from its prose alone (see this package's docstring)."""

from __future__ import annotations

from grading.independent_answers import IndependentAnswer

PLAIN = {
    "policy": """
def mode_for(policy, name):
    value = policy.get(name)
    if type(value) is str and value in ("auto", "confirm"):
        return value
    return "never"


def offered_tools(policy, registered):
    return sorted(name for name in registered if mode_for(policy, name) != "never")


def effective_mode(policy, name, concerns=()):
    mode = mode_for(policy, name)
    if mode == "auto" and len(concerns) > 0:
        return "confirm"
    return mode
""",
    "ask_approver": """
import copy
import threading


def ask_approver(approver, name, arguments, timeout):
    if approver is None:
        return False, "no approver: nobody can say yes"
    outcome = {}

    def work():
        try:
            outcome["answer"] = approver(name, copy.deepcopy(arguments))
        except BaseException as error:
            outcome["error"] = error

    worker = threading.Thread(target=work, daemon=True)
    worker.start()
    worker.join(timeout)
    if worker.is_alive():
        return False, f"the approver did not answer within {timeout} s"
    if "error" in outcome:
        return False, f"the approver raised {type(outcome['error']).__name__}"
    if outcome.get("answer") is True:
        return True, "the approver said yes"
    return False, f"the approver did not say True (it said {outcome.get('answer')!r:.40})"
""",
    "canonical": """
import json


def _whole(value):
    if type(value) is float and value.is_integer():
        return int(value)
    if type(value) is dict:
        return {key: _whole(item) for key, item in value.items()}
    if type(value) is list:
        return [_whole(item) for item in value]
    return value


def canonical(name, arguments):
    try:
        return name + " " + json.dumps(_whole(arguments), sort_keys=True, allow_nan=False)
    except (TypeError, ValueError, RecursionError):
        return name + " " + repr(arguments)
""",
    "budget": """
class Budget:
    def __init__(self, max_steps=8, max_seconds=30.0, max_repeats=3, clock=time.monotonic):
        self.max_steps = max_steps
        self.max_seconds = max_seconds
        self.max_repeats = max_repeats
        self.clock = clock
        self.steps = 0
        self.started = clock()
        self.proposals = {}

    def elapsed(self):
        return self.clock() - self.started

    def remaining(self):
        return max(0.0, self.max_seconds - self.elapsed())

    def out_of_time(self):
        return self.remaining() <= 0

    def steps_left(self):
        return max(0, self.max_steps - self.steps)

    def next_request(self):
        if self.steps >= self.max_steps:
            return "step_budget"
        if self.out_of_time():
            return "time_budget"
        self.steps += 1
        return None

    def repeat(self, name, arguments):
        key = canonical(name, arguments)
        self.proposals[key] = self.proposals.get(key, 0) + 1
        return self.proposals[key] > self.max_repeats
""",
    "redact": """
import html
import re
import unicodedata
import urllib.parse


def _pieces():
    lowered = CANARY.casefold()
    return {lowered[i:i + SECRET_PIECE] for i in range(len(lowered) - SECRET_PIECE + 1)}


def _mask_canary(text):
    # fold each character on its own: one whose folded form is longer (ß, İ) cannot be part of a run
    folded = "".join(f if len(f := c.casefold()) == 1 else "\\x00" for c in text)
    hit = [False] * len(text)
    secret = CANARY.casefold()
    for start in range(len(text)):
        for end in range(min(len(text), start + len(secret)), start + SECRET_PIECE - 1, -1):
            if folded[start:end] in secret:
                for i in range(start, end):
                    hit[i] = True
                break
    out, i = [], 0
    while i < len(text):
        if hit[i]:
            while i < len(text) and hit[i]:
                i += 1
            out.append(REDACTED)
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def _unescape(text):
    text = re.sub(r"\\\\+u([0-9a-fA-F]{4})", lambda m: chr(int(m.group(1), 16)), text)
    text = re.sub(r"\\\\x([0-9a-fA-F]{2})", lambda m: chr(int(m.group(1), 16)), text)
    text = re.sub(r"%([0-9a-fA-F]{2})", lambda m: chr(int(m.group(1), 16)), text)
    hexa = lambda m: chr(int(m.group(1), 16)) if int(m.group(1), 16) < 0x110000 else m.group(0)
    text = re.sub(r"&#[xX]([0-9a-fA-F]+);", hexa, text)
    return re.sub(r"&#([0-9]+);", lambda m: chr(int(m.group(1))) if int(m.group(1)) < 0x110000 else m.group(0), text)


def redact(text):
    result = KEY_PATTERN.sub(REDACTED, _mask_canary(text))
    look = result
    for _ in range(4):
        decoded = _unescape(look)
        if decoded == look:
            break
        look = decoded
    look = unicodedata.normalize("NFKC", look)
    look = "".join(c for c in look if unicodedata.category(c) != "Cf").casefold()
    if any(piece in look for piece in _pieces()) or KEY_PATTERN.search(look):
        return REDACTED
    return result
""",
    "audit_entry": """
def _safe(value):
    if value is None or type(value) in (bool, int, float):
        return value
    if isinstance(value, str):
        text = redact(value.encode("utf-8", "backslashreplace").decode("utf-8"))
        if len(text) > MAX_AUDIT_CHARS:
            text = text[:MAX_AUDIT_CHARS] + f"...[{len(text) - MAX_AUDIT_CHARS} more chars]"
        return text
    if isinstance(value, dict):
        return {_safe(str(key)): _safe(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_safe(item) for item in value]
    return _safe(repr(value))


def audit_entry(step, call_id, name, arguments, decision, reason, outcome):
    return {
        "step": _safe(step),
        "id": _safe(call_id),
        "name": _safe(name),
        "arguments": _safe(arguments),
        "decision": _safe(decision),
        "reason": _safe(reason),
        "outcome": _safe(outcome),
    }
""",
    "chat_adapter": """
class ChatAdapter:
    api = "chat"

    def __init__(self, base, tools, *, model=MODEL):
        self.base = base
        self.model = model
        self.tools = tools_field("chat", tools)
        self.history = []
        self.requests = 0

    def start(self, user_text, *, timeout):
        self.history = [{"role": "user", "content": user_text}]
        return self._send(timeout)

    def reply(self, results, *, timeout):
        for result in results:
            self.history.append({"role": "tool", "tool_call_id": result.id, "content": result.content})
        return self._send(timeout)

    def _send(self, timeout):
        body = {"model": self.model, "messages": self.history}
        if self.tools:
            body["tools"] = self.tools
        self.requests += 1
        answer = post_json(self.base, "/chat/completions", body, timeout=timeout)
        try:
            choice = answer["choices"][0]
            message = choice["message"]
        except (KeyError, IndexError, TypeError):
            raise ModelTurnError("the answer holds no choices[0].message") from None
        if choice.get("finish_reason") == "length":
            raise ModelTurnError("the turn was cut off (finish_reason length)")
        calls = message.get("tool_calls") or []
        for call in calls:
            if call.get("type") != "function":
                continue
            function = call.get("function")
            if "id" not in call or not isinstance(function, dict) or not {"name", "arguments"} <= function.keys():
                raise ModelTurnError("a tool call lacks its id, function, name or arguments")
        self.history.append(message)
        items = [call_item(c["id"], c["function"]["name"], c["function"]["arguments"])
                 for c in calls if c.get("type") == "function"]
        return items if items else final_turn(message.get("content"))

    def close(self):
        pass
""",
}

GUARDED = {
    "policy": """
MODES = frozenset({"auto", "confirm"})


def mode_for(policy, name):
    if name not in policy:
        return "never"
    mode = policy[name]
    return mode if isinstance(mode, str) and type(mode) is str and mode in MODES else "never"


def offered_tools(policy, registered):
    offered = []
    for tool in list(registered):
        if mode_for(policy, tool) in MODES:
            offered.append(tool)
    offered.sort()
    return offered


def effective_mode(policy, name, concerns=()):
    base = mode_for(policy, name)
    return "confirm" if (base == "auto" and concerns) else base
""",
    "ask_approver": """
import copy
import threading


class _Ask(threading.Thread):
    def __init__(self, approver, name, arguments):
        super().__init__(daemon=True)
        self.approver, self.name, self.arguments = approver, name, arguments
        self.answer, self.raised = None, None

    def run(self):
        try:
            self.answer = self.approver(self.name, self.arguments)
        except BaseException as problem:  # a no, whatever it is
            self.raised = problem


def ask_approver(approver, name, arguments, timeout):
    if approver is None:
        return (False, "nobody to ask")
    asking = _Ask(approver, name, copy.deepcopy(arguments))
    asking.start()
    asking.join(timeout)
    if asking.is_alive():
        return (False, "the approver timed out")
    if asking.raised is not None:
        return (False, "the approver raised " + type(asking.raised).__name__)
    return (True, "the approver said yes") if asking.answer is True else (False, "the approver did not approve")
""",
    "canonical": """
import json


def canonical(name, arguments):
    def fix(x):
        if isinstance(x, dict):
            return {k: fix(v) for k, v in x.items()}
        if isinstance(x, list):
            return list(map(fix, x))
        if type(x) is float and x == x and x not in (float("inf"), float("-inf")) and int(x) == x:
            return int(x)
        return x

    try:
        text = json.dumps(fix(arguments), sort_keys=True, allow_nan=False)
    except (TypeError, ValueError, RecursionError):
        text = repr(arguments)
    return f"{name} {text}"
""",
    "budget": '''
import collections


class Budget:
    """Requests, seconds and repeated calls of one run."""

    def __init__(self, max_steps=8, max_seconds=30.0, max_repeats=3, clock=time.monotonic):
        self.max_steps, self.max_seconds, self.max_repeats, self.clock = max_steps, max_seconds, max_repeats, clock
        self.steps = 0
        self._start = self.clock()
        self._seen = collections.Counter()

    def elapsed(self):
        return self.clock() - self._start

    def remaining(self):
        left = self.max_seconds - self.elapsed()
        return left if left > 0 else 0.0

    def out_of_time(self):
        return not self.remaining() > 0

    def steps_left(self):
        left = self.max_steps - self.steps
        return left if left > 0 else 0

    def next_request(self):
        status = "step_budget" if self.steps_left() == 0 else ("time_budget" if self.out_of_time() else None)
        if status is None:
            self.steps = self.steps + 1
        return status

    def repeat(self, name, arguments):
        call = canonical(name, arguments)
        self._seen[call] += 1
        return self._seen[call] > self.max_repeats
''',
    "redact": '''
import re
import unicodedata

ESCAPES = [
    (re.compile(r"\\\\+u([0-9A-Fa-f]{4})"), 16),
    (re.compile(r"\\\\x([0-9A-Fa-f]{2})"), 16),
    (re.compile(r"%([0-9A-Fa-f]{2})"), 16),
    (re.compile(r"&#([0-9]{1,7});"), 10),
    (re.compile(r"&#[xX]([0-9A-Fa-f]{1,6});"), 16),
]


def _char(match, base):
    code = int(match.group(1), base)
    return chr(code) if code <= 0x10FFFF else match.group(0)


def _decoded(text):
    for _ in range(4):
        before = text
        for pattern, base in ESCAPES:
            text = pattern.sub(lambda m, b=base: _char(m, b), text)
        if text == before:
            break
    return text


def _canary_runs(text):
    """(start, end) of every run of SECRET_PIECE or more characters of CANARY, case-insensitively."""
    secret, runs, i = CANARY.lower(), [], 0
    lower = [c.lower() for c in text]
    while i < len(text):
        best = 0
        for j in range(len(secret)):
            k = 0
            while i + k < len(text) and j + k < len(secret) and lower[i + k] == secret[j + k]:
                k += 1
            best = max(best, k)
        if best >= SECRET_PIECE:
            runs.append((i, i + best))
            i += best
        else:
            i += 1
    return runs


def redact(text):
    pieces, last = [], 0
    for start, end in _canary_runs(text):
        pieces += [text[last:start], REDACTED]
        last = end
    cleaned = KEY_PATTERN.sub(REDACTED, "".join(pieces) + text[last:])
    hidden = unicodedata.normalize("NFKC", _decoded(cleaned))
    hidden = "".join(ch for ch in hidden if unicodedata.category(ch) != "Cf").casefold()
    secret = CANARY.casefold()
    if KEY_PATTERN.search(hidden) or any(secret[i:i + SECRET_PIECE] in hidden
                                         for i in range(len(secret) - SECRET_PIECE + 1)):
        return REDACTED
    return cleaned
''',
    "audit_entry": """
KEYS = ("step", "id", "name", "arguments", "decision", "reason", "outcome")


def _clip(text):
    extra = len(text) - MAX_AUDIT_CHARS
    return text if extra <= 0 else f"{text[:MAX_AUDIT_CHARS]}...[{extra} more chars]"


def _clean(value):
    kind = type(value)
    if value is None or kind is bool or kind is int or kind is float:
        return value
    if kind is str or isinstance(value, str):
        visible = str(value).encode("utf-8", "backslashreplace").decode("utf-8")
        return _clip(redact(visible))
    if isinstance(value, dict):
        return {_clean(str(k)): _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return list(map(_clean, value))
    return _clean(repr(value))


def audit_entry(step, call_id, name, arguments, decision, reason, outcome):
    values = (step, call_id, name, arguments, decision, reason, outcome)
    return dict(zip(KEYS, map(_clean, values)))
""",
    "chat_adapter": """
def _checked(answer):
    choices = answer.get("choices") if isinstance(answer, dict) else None
    if not choices or not isinstance(choices[0], dict) or not isinstance(choices[0].get("message"), dict):
        raise ModelTurnError("no message in the answer")
    first = choices[0]
    if first.get("finish_reason") == "length":
        raise ModelTurnError("finish_reason is length: the turn is incomplete")
    message = first["message"]
    for call in message.get("tool_calls") or ():
        if call.get("type") != "function":
            continue
        fn = call.get("function")
        if call.get("id") is None or not fn or fn.get("name") is None or fn.get("arguments") is None:
            raise ModelTurnError("incomplete tool call")
    return message


class ChatAdapter:
    api = "chat"

    def __init__(self, base, tools, *, model=MODEL):
        self._base, self._model = base, model
        self._tools = tools_field("chat", tools)
        self._messages = []
        self.requests = 0

    def start(self, user_text, *, timeout):
        self._messages = [dict(role="user", content=user_text)]
        return self._send(timeout)

    def reply(self, results, *, timeout):
        self._messages.extend(dict(role="tool", tool_call_id=r.id, content=r.content) for r in results)
        return self._send(timeout)

    def _send(self, timeout):
        request = {"model": self._model, "messages": self._messages}
        if self._tools:
            request["tools"] = self._tools
        self.requests += 1
        message = _checked(post_json(self._base, "/chat/completions", request, timeout=timeout))
        self._messages.append(message)
        found = []
        for call in message.get("tool_calls") or ():
            if call.get("type") == "function":
                found.append(call_item(call["id"], call["function"]["name"], call["function"]["arguments"]))
        if found:
            return found
        return final_turn(message.get("content"))

    def close(self):
        return None
""",
}

TERSE = {
    "policy": """
def mode_for(policy, name):
    m = policy.get(name, "never")
    return m if type(m) is str and m in {"auto", "confirm"} else "never"


def offered_tools(policy, registered):
    return sorted([n for n in registered if mode_for(policy, n) != "never"])


def effective_mode(policy, name, concerns=()):
    m = mode_for(policy, name)
    return {"auto": "confirm"}.get(m, m) if concerns else m
""",
    "ask_approver": """
import copy
import threading


def ask_approver(approver, name, arguments, timeout):
    if approver is None:
        return False, "no approver configured"
    box = []
    args = copy.deepcopy(arguments)

    def call():
        try:
            box.append(("ok", approver(name, args)))
        except BaseException as e:
            box.append(("raised", e))

    t = threading.Thread(target=call, daemon=True)
    t.start()
    t.join(timeout)
    if t.is_alive() or not box:
        return False, "approver timed out"
    how, what = box[0]
    if how == "raised":
        return False, f"the approver raised {type(what).__name__}"
    return (what is True), ("approved" if what is True else "not approved")
""",
    "canonical": """
import json


def canonical(name, arguments):
    def n(v):
        if type(v) is float and v.is_integer():
            return int(v)
        if type(v) is list:
            return [n(x) for x in v]
        if type(v) is dict:
            return {k: n(x) for k, x in v.items()}
        return v

    try:
        return f"{name} {json.dumps(n(arguments), sort_keys=True, allow_nan=False)}"
    except (TypeError, ValueError, RecursionError, OverflowError):
        return f"{name} {arguments!r}"
""",
    "budget": """
class Budget:
    def __init__(self, max_steps=8, max_seconds=30.0, max_repeats=3, clock=time.monotonic):
        self.max_steps = max_steps
        self.max_seconds = max_seconds
        self.max_repeats = max_repeats
        self.clock = clock
        self.steps = 0
        self.t0 = clock()
        self.counts = {}

    def elapsed(self):
        return self.clock() - self.t0

    def remaining(self):
        return max(self.max_seconds - self.elapsed(), 0.0)

    def out_of_time(self):
        return self.remaining() <= 0

    def steps_left(self):
        return max(self.max_steps - self.steps, 0)

    def next_request(self):
        if self.steps >= self.max_steps:
            return "step_budget"
        if self.out_of_time():
            return "time_budget"
        self.steps += 1

    def repeat(self, name, arguments):
        c = canonical(name, arguments)
        self.counts[c] = n = self.counts.get(c, 0) + 1
        return n > self.max_repeats
""",
    "redact": """
import re
import unicodedata


def redact(text):
    low = "".join(f if len(f := c.casefold()) == 1 else "\\x00" for c in text)  # aligned with text
    sec = CANARY.casefold()
    marks = [False] * len(text)
    for i in range(len(sec) - SECRET_PIECE + 1):
        piece = sec[i:i + SECRET_PIECE]
        for m in re.finditer(re.escape(piece), low):
            for j in range(m.start(), m.end()):
                marks[j] = True
    out = re.sub(r"\\x00+", REDACTED, "".join("\\x00" if f else c for c, f in zip(text, marks))) if any(marks) else text
    out = KEY_PATTERN.sub(REDACTED, out)
    probe = out
    subs = [(r"\\\\+u([0-9a-fA-F]{4})", 16), (r"\\\\x([0-9a-fA-F]{2})", 16), (r"%([0-9a-fA-F]{2})", 16),
            (r"&#[xX]([0-9a-fA-F]+);", 16), (r"&#(\\d+);", 10)]
    for _ in range(4):
        prev = probe
        for pat, base in subs:
            probe = re.sub(pat, lambda m: chr(n) if (n := int(m.group(1), base)) < 0x110000 else m.group(0), probe)
        if probe == prev:
            break
    probe = "".join(c for c in unicodedata.normalize("NFKC", probe) if unicodedata.category(c) != "Cf").casefold()
    folded = CANARY.casefold()
    starts = range(len(folded) - SECRET_PIECE + 1)
    if KEY_PATTERN.search(probe) or any(folded[i:i + SECRET_PIECE] in probe for i in starts):
        return REDACTED
    return out
""",
    "audit_entry": """
def audit_entry(step, call_id, name, arguments, decision, reason, outcome):
    def s(v):
        if v is None or type(v) in (bool, int, float):
            return v
        if type(v) is dict:
            return {s(str(k)): s(x) for k, x in v.items()}
        if type(v) in (list, tuple):
            return [s(x) for x in v]
        t = redact((v if isinstance(v, str) else repr(v)).encode("utf-8", "backslashreplace").decode("utf-8"))
        cut = len(t) - MAX_AUDIT_CHARS
        return t if cut <= 0 else t[:MAX_AUDIT_CHARS] + "...[%d more chars]" % cut

    return {"step": s(step), "id": s(call_id), "name": s(name), "arguments": s(arguments),
            "decision": s(decision), "reason": s(reason), "outcome": s(outcome)}
""",
    "chat_adapter": """
class ChatAdapter:
    api = "chat"

    def __init__(self, base, tools, *, model=MODEL):
        self.base, self.model, self.tools, self.msgs, self.requests = base, model, tools_field("chat", tools), [], 0

    def start(self, user_text, *, timeout):
        self.msgs = [{"role": "user", "content": user_text}]
        return self._send(timeout)

    def reply(self, results, *, timeout):
        self.msgs += [{"role": "tool", "tool_call_id": r.id, "content": r.content} for r in results]
        return self._send(timeout)

    def _send(self, timeout):
        body = {"model": self.model, "messages": self.msgs, **({"tools": self.tools} if self.tools else {})}
        self.requests += 1
        ans = post_json(self.base, "/chat/completions", body, timeout=timeout)
        try:
            ch = ans["choices"][0]
            msg = ch["message"]
            calls = [(c["id"], c["function"]["name"], c["function"]["arguments"], c["type"])
                     for c in msg.get("tool_calls") or [] if c.get("type") == "function"]
        except (KeyError, IndexError, TypeError) as e:
            raise ModelTurnError(f"malformed answer: {e!r}") from None
        if ch.get("finish_reason") == "length":
            raise ModelTurnError("cut off by length")
        self.msgs.append(msg)
        items = [call_item(i, n, a) for i, n, a, t in calls if t == "function"]
        return items or final_turn(msg.get("content"))

    def close(self):
        pass
""",
}

ANSWERS = [
    IndependentAnswer("plain", PLAIN),
    IndependentAnswer("guarded", GUARDED),
    IndependentAnswer("terse", TERSE),
]
