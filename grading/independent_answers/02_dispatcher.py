"""Independent answers to notebook 02, written from its prose alone (see this package's docstring)."""

from __future__ import annotations

from grading.independent_answers import IndependentAnswer

EUROS_A = """
euro_bytes = len("€".encode("utf-8"))
room = MAX_REQUEST_BYTES - len(pen_request.encode("utf-8"))
max_euros = room // euro_bytes
"""

EUROS_B = """
max_euros = (MAX_REQUEST_BYTES - len(pen_request.encode())) // len("\\u20ac".encode())
"""

EUROS_C = """
used = len(pen_request.encode("utf-8"))
max_euros = 0
while used + 3 * (max_euros + 1) <= MAX_REQUEST_BYTES:
    max_euros += 1
"""

PLAIN_DISPATCH = """
def _no_duplicates(pairs):
    result = {}
    for key, value in pairs:
        if key in result:
            raise DispatchError(f"duplicate key {key!r}")
        result[key] = value
    return result


def parse_request(raw):
    if not isinstance(raw, str):
        raise TypeError(f"request must be a str, not {type(raw).__name__}")
    try:
        size = len(raw.encode("utf-8"))
    except UnicodeEncodeError:
        raise DispatchError("request is not valid UTF-8 text") from None
    if size > MAX_REQUEST_BYTES:
        raise DispatchError(f"request too large: {size} bytes")
    try:
        return json.loads(raw, object_pairs_hook=_no_duplicates)
    except RecursionError:
        raise DispatchError("request nested too deeply") from None
    except json.JSONDecodeError as error:
        raise DispatchError(f"request is not JSON: {error}") from None


def dispatch(raw):
    request = parse_request(raw)
    if type(request) is not dict or set(request) != {"name", "arguments"}:
        raise DispatchError("request must be an object with exactly name and arguments")
    if request["name"] != "stock_lookup" or type(request["name"]) is not str:
        raise DispatchError("unknown tool")
    arguments = request["arguments"]
    if type(arguments) is not dict or list(arguments) != ["sku"]:
        raise DispatchError("arguments must be exactly {sku}")
    sku = arguments["sku"]
    if type(sku) is not str or sku not in STOCK:
        raise DispatchError("unknown sku")
    return {"sku": sku, "available": STOCK[sku]}
"""

PLAIN_WITH = """
import math


def _refuse_constant(text):
    raise DispatchError(f"{text} is not a JSON number")


def dispatch_with(raw, tools):
    if not isinstance(raw, str):
        raise TypeError("request must be a str")
    try:
        encoded = raw.encode("utf-8")
    except UnicodeEncodeError:
        raise DispatchError("request is not valid UTF-8 text") from None
    if len(encoded) > MAX_REQUEST_BYTES:
        raise DispatchError("request too large")

    def strict_float(text):
        value = float(text)
        if not math.isfinite(value):
            raise DispatchError("number too large")
        return value

    try:
        request = json.loads(raw, object_pairs_hook=_no_duplicates, parse_constant=_refuse_constant,
                             parse_float=strict_float)
    except RecursionError:
        raise DispatchError("request nested too deeply") from None
    except json.JSONDecodeError as error:
        raise DispatchError(f"not JSON: {error}") from None
    if type(request) is not dict or set(request) != {"name", "arguments"}:
        raise DispatchError("request must have exactly name and arguments")
    name = request["name"]
    if type(name) is not str or name not in tools:
        raise DispatchError("unknown tool")
    rule = tools[name]
    arguments = request["arguments"]
    if type(arguments) is not dict or set(arguments) != set(rule.arguments):
        raise DispatchError(f"{name} takes exactly {sorted(rule.arguments)}")
    return rule.handler(arguments)
"""

TABLE_DISPATCH = '''
import math

TOOL = "stock_lookup"


class _Pairs:
    """object_pairs_hook that refuses a key seen twice in one object."""

    def __call__(self, pairs):
        seen = {}
        for k, v in pairs:
            if k in seen:
                raise DispatchError("repeated key: " + k)
            seen[k] = v
        return seen


def _size_ok(text):
    try:
        return len(text.encode("utf-8")) <= MAX_REQUEST_BYTES
    except UnicodeError:
        raise DispatchError("text cannot be encoded as UTF-8") from None


def parse_request(raw, **hooks):
    if type(raw) is not str and not isinstance(raw, str):
        raise TypeError("raw must be text")
    if not _size_ok(raw):
        raise DispatchError("the request is too large")
    try:
        return json.loads(raw, object_pairs_hook=_Pairs(), **hooks)
    except (ValueError, RecursionError) as problem:
        if isinstance(problem, DispatchError):
            raise
        raise DispatchError("malformed JSON request") from None


def _envelope(value):
    if not isinstance(value, dict) or sorted(value) != ["arguments", "name"]:
        raise DispatchError("expected {name, arguments}")
    return value["name"], value["arguments"]


def dispatch(raw):
    name, arguments = _envelope(parse_request(raw))
    if not (type(name) is str and name == TOOL):
        raise DispatchError("only stock_lookup is offered")
    if not isinstance(arguments, dict) or len(arguments) != 1 or "sku" not in arguments:
        raise DispatchError("stock_lookup takes one argument, sku")
    sku = arguments["sku"]
    if not (type(sku) is str and sku in STOCK):
        raise DispatchError("no such SKU")
    return dict(sku=sku, available=STOCK[sku])
'''

TABLE_WITH = """
def _finite(text):
    number = float(text)
    if number in (float("inf"), float("-inf")):
        raise DispatchError("number out of range")
    return number


def _constant(text):
    raise DispatchError("NaN and Infinity are not JSON")


def dispatch_with(raw, tools):
    name, arguments = _envelope(parse_request(raw, parse_constant=_constant, parse_float=_finite))
    if not isinstance(name, str) or name not in tools:
        raise DispatchError("not an offered tool")
    rule = tools[name]
    if not isinstance(arguments, dict) or sorted(arguments) != sorted(rule.arguments):
        raise DispatchError("wrong arguments for " + name)
    return rule.handler(arguments)
"""

TERSE_DISPATCH = """
def parse_request(raw, parse_constant=None, parse_float=None):
    if type(raw) is not str:
        raise TypeError(type(raw).__name__)
    try:
        if len(raw.encode()) > MAX_REQUEST_BYTES:
            raise DispatchError("request too large")
    except UnicodeEncodeError as e:
        raise DispatchError("bad text") from e

    def hook(pairs):
        keys = [k for k, _ in pairs]
        if len(keys) != len(set(keys)):
            raise DispatchError("duplicate key")
        return dict(pairs)

    try:
        return json.loads(raw, object_pairs_hook=hook, parse_constant=parse_constant, parse_float=parse_float)
    except DispatchError:
        raise
    except (ValueError, RecursionError) as e:
        raise DispatchError("bad JSON") from e


def dispatch(raw):
    req = parse_request(raw)
    ok = type(req) is dict and req.keys() == {"name", "arguments"} and req["name"] == "stock_lookup"
    ok = ok and type(req["name"]) is str and type(req["arguments"]) is dict and req["arguments"].keys() == {"sku"}
    if not ok:
        raise DispatchError("not a stock_lookup request")
    sku = req["arguments"]["sku"]
    if type(sku) is not str or sku not in STOCK:
        raise DispatchError("unknown SKU")
    return {"sku": sku, "available": STOCK[sku]}
"""

TERSE_WITH = """
import math


def dispatch_with(raw, tools):
    def nope(text):
        raise DispatchError(text + " not allowed")

    def num(text):
        x = float(text)
        return x if math.isfinite(x) else nope(text)

    req = parse_request(raw, parse_constant=nope, parse_float=num)
    if type(req) is not dict or req.keys() != {"name", "arguments"}:
        raise DispatchError("need name and arguments")
    name, args = req["name"], req["arguments"]
    if type(name) is not str or name not in tools:
        raise DispatchError("unknown tool")
    if type(args) is not dict or set(args) != set(tools[name].arguments):
        raise DispatchError("bad arguments")
    return tools[name].handler(args)
"""

ANSWERS = [
    IndependentAnswer(
        "plain", {"max_euros": EUROS_A, "dispatch": PLAIN_DISPATCH, "dispatch_with": PLAIN_WITH}
    ),
    IndependentAnswer(
        "table", {"max_euros": EUROS_B, "dispatch": TABLE_DISPATCH, "dispatch_with": TABLE_WITH}
    ),
    IndependentAnswer(
        "terse", {"max_euros": EUROS_C, "dispatch": TERSE_DISPATCH, "dispatch_with": TERSE_WITH}
    ),
]
