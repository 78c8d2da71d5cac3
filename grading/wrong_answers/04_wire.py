"""Plausible wrong answers to notebook 04 and the tests that catch them.

Most are a correct answer with one mistake spliced in, so each one fails for exactly the reason in its `why`.
"""

from __future__ import annotations

from grading.wrong_answers import WrongAnswer, splice

SPECS = "tool_specs"
STRICT = "is_strict_compatible"
SECOND = "second_request_messages"
ALL_SPECS_TESTS = (
    "test_tool_specs_chat",
    "test_tool_specs_responses",
    "test_tool_specs_strict",
    "test_tool_specs_key_order",
    "test_tool_specs_copies",
    "test_tool_specs_unknown_api",
    "test_tool_specs_unknown_name",
)
ALL_STRICT_TESTS = (
    "test_is_strict_compatible_accepts",
    "test_is_strict_compatible_additional",
    "test_is_strict_compatible_required",
)
ALL_SECOND_TESTS = (
    "test_second_request_single",
    "test_second_request_parallel",
    "test_second_request_assistant_turn",
)

_SPECS_OK = '''
def tool_specs(toolbox, names, api):
    """A correct answer, written differently from the notebook's."""
    if api != "chat" and api != "responses":
        raise ValueError("unknown api: " + repr(api))
    out = []
    for name in names:
        if name not in toolbox:
            raise ValueError("unknown tool: " + repr(name))
        tool = toolbox[name]
        function = {
            "name": tool.name,
            "description": tool.description,
            "parameters": copy.deepcopy(tool.parameters),
            "strict": True,
        }
        if api == "chat":
            out.append({"type": "function", "function": function})
        else:
            out.append({"type": "function", **function})
    return out
'''

_STRICT_OK = '''
def is_strict_compatible(schema):
    """A correct answer, to splice mistakes into."""
    found = []

    def visit(node, path):
        kind = node.get("type")
        is_object = kind == "object" or (isinstance(kind, list) and "object" in kind)
        if is_object:
            if node.get("additionalProperties") is not False:
                found.append(path + ": additionalProperties must be false")
            for name in node.get("properties", {}):
                if name not in node.get("required", []):
                    found.append(path + ": " + repr(name) + " is not required")
        for name, child in node.get("properties", {}).items():
            visit(child, path + "." + name)
        if isinstance(node.get("items"), dict):
            visit(node["items"], path + "[]")

    visit(schema, "$")
    return found
'''

_SECOND_OK = '''
def second_request_messages(user_text, first_reply, results):
    """A correct answer, to splice mistakes into."""
    assistant = first_reply["choices"][0]["message"]
    messages = [{"role": "user", "content": user_text}]
    messages.append(assistant)
    for call in assistant["tool_calls"]:
        messages.append({"role": "tool", "tool_call_id": call["id"], "content": results[call["id"]]})
    return messages
'''

_CHAT_APPEND = 'out.append({"type": "function", "function": function})'
_RESPONSES_APPEND = 'out.append({"type": "function", **function})'
_TOOL_MESSAGE = '{"role": "tool", "tool_call_id": call["id"], "content": results[call["id"]]}'
_API_CHECK = (
    '    if api != "chat" and api != "responses":\n        raise ValueError("unknown api: " + repr(api))\n'
)
_NAME_CHECK = '        if name not in toolbox:\n            raise ValueError("unknown tool: " + repr(name))\n'
_REQUIRED_LOOP = (
    '            for name in node.get("properties", {}):\n'
    '                if name not in node.get("required", []):\n'
    '                    found.append(path + ": " + repr(name) + " is not required")\n'
)

# Part A's sentences, each quoted by the wrong answers that break it.
SPECS_ORDER = "one entry per name, in the order of `names`"
SPECS_ONCE = "read `names` only once"
SPECS_CHAT = 'for `api == "chat"`, make each entry'
SPECS_RESPONSES = 'for `api == "responses"`, make each entry'
SPECS_STRICT = 'set `"strict"` to the boolean `True` in every entry'
SPECS_KEY_ORDER = "write the keys in exactly the order written above"
SPECS_COPY = "make `parameters` a **deep** copy of the tool's schema"
SPECS_API = "raise `ValueError` for any other `api`"
SPECS_NAME = "raise `ValueError`, not `KeyError`, for a name the toolbox does not hold"
SPECS_OWN = "importing or wrapping anything from `course_lib.specs` scores nothing"
# Part B's.
STRICT_LIST = "`[]` when the schema follows both rules"
STRICT_WALK = "every schema under `properties` and every `items` schema"
STRICT_OBJECT = "treat a schema as an **object schema** when"
STRICT_ADDITIONAL = "whose `additionalProperties` is not exactly `False`"
STRICT_REQUIRED = "for each key of an object schema's `properties` that its `required` does not list"
STRICT_PREFIX = "start each problem with the **path** of the object schema"
STRICT_PATHS = "write the root's path as `$`"
STRICT_UNCHANGED = "leave `schema` unchanged"
STRICT_OWN = SPECS_OWN
# Part C's.
SECOND_USER = 'first message is `{"role": "user", "content": user_text}`'
SECOND_ASSISTANT = "put second the assistant message"
SECOND_TOOL = "message for each call of `tool_calls`, quoting that call's `id`"
SECOND_RESULT = "the result string `results[<id>]` as it is, not decoded"
SECOND_ORDER = "order the tool messages as the calls are ordered in `tool_calls`"
SECOND_UNCHANGED = "leave `first_reply` and `results` unchanged"
SECOND_OWN = SPECS_OWN


WRONG_ANSWERS = [
    # ---- Part A: tool_specs ------------------------------------------------------------------------------
    WrongAnswer(
        SPECS,
        "imports the library's tool_specs instead of writing one",
        "from course_lib.specs import tool_specs\n",
        ALL_SPECS_TESTS,
        SPECS_OWN,
    ),
    WrongAnswer(
        SPECS,
        "wraps the library's tool_specs in a function of its own",
        "import course_lib.specs as lib\n\n\n"
        "def tool_specs(toolbox, names, api):\n    return lib.tool_specs(toolbox, names, api)\n",
        ALL_SPECS_TESTS,
        SPECS_OWN,
    ),
    WrongAnswer(
        SPECS,
        "lists the tools in sorted order instead of the order of names",
        splice(_SPECS_OK, ("    for name in names:\n", "    for name in sorted(names):\n")),
        ("test_tool_specs_chat",),
        SPECS_ORDER,
    ),
    WrongAnswer(
        SPECS,
        "checks every name first, then builds: a generator of names is used up by the check and gives []",
        splice(
            _SPECS_OK,
            (
                "    for name in names:\n" + _NAME_CHECK,
                "    for name in names:\n" + _NAME_CHECK + "    for name in names:\n",
            ),
        ),
        ("test_tool_specs_chat", "test_tool_specs_responses"),
        SPECS_ONCE,
    ),
    WrongAnswer(
        SPECS,
        "nests Responses entries under 'function' like chat ones",
        splice(_SPECS_OK, (_RESPONSES_APPEND, 'out.append({"type": "function", "function": function})')),
        ("test_tool_specs_responses",),
        SPECS_RESPONSES,
    ),
    WrongAnswer(
        SPECS,
        "writes chat entries flat like Responses ones",
        splice(_SPECS_OK, (_CHAT_APPEND, 'out.append({"type": "function", **function})')),
        ("test_tool_specs_chat",),
        SPECS_CHAT,
    ),
    WrongAnswer(
        SPECS,
        "leaves strict out, so the schema is only followed on a best-effort basis",
        splice(_SPECS_OK, ('            "strict": True,\n', "")),
        ("test_tool_specs_strict",),
        SPECS_STRICT,
    ),
    WrongAnswer(
        SPECS,
        'writes strict as the string "true" instead of the boolean',
        splice(_SPECS_OK, ('"strict": True,', '"strict": "true",')),
        ("test_tool_specs_strict",),
        SPECS_STRICT,
    ),
    WrongAnswer(
        SPECS,
        "hands out the toolbox's own parameters dict: editing a request edits the tool",
        splice(
            _SPECS_OK, ('"parameters": copy.deepcopy(tool.parameters),', '"parameters": tool.parameters,')
        ),
        ("test_tool_specs_copies",),
        SPECS_COPY,
    ),
    WrongAnswer(
        SPECS,
        "a shallow copy of parameters: the nested properties, enum and required stay shared",
        splice(
            _SPECS_OK,
            ('"parameters": copy.deepcopy(tool.parameters),', '"parameters": dict(tool.parameters),'),
        ),
        ("test_tool_specs_copies",),
        SPECS_COPY,
    ),
    WrongAnswer(
        SPECS,
        "an unknown api silently gets the chat shape",
        splice(
            _SPECS_OK,
            (_API_CHECK, ""),
            ('if api == "chat":', 'if api != "responses":'),
        ),
        ("test_tool_specs_unknown_api",),
        SPECS_API,
    ),
    WrongAnswer(
        SPECS,
        "checks the api only inside the loop, so an unknown api with no names returns []",
        splice(
            _SPECS_OK,
            (_API_CHECK, ""),
            (
                "        tool = toolbox[name]\n",
                '        tool = toolbox[name]\n        if api not in ("chat", "responses"):\n'
                '            raise ValueError("unknown api")\n',
            ),
        ),
        ("test_tool_specs_unknown_api",),
        SPECS_API,
    ),
    WrongAnswer(
        SPECS,
        "lets the toolbox's KeyError escape for an unknown name",
        splice(_SPECS_OK, (_NAME_CHECK, "")),
        ("test_tool_specs_unknown_name",),
        SPECS_NAME,
    ),
    WrongAnswer(
        SPECS,
        "puts type last: equal as a dict, different bytes on the wire",
        splice(
            _SPECS_OK,
            (_CHAT_APPEND, 'out.append({"function": function, "type": "function"})'),
            (_RESPONSES_APPEND, 'out.append({**function, "type": "function"})'),
        ),
        ("test_tool_specs_key_order",),
        SPECS_KEY_ORDER,
    ),
    # ---- Part B: is_strict_compatible ------------------------------------------------------------------
    WrongAnswer(
        STRICT,
        "imports an is_strict_compatible from the library instead of writing one",
        "from course_lib.specs import is_strict_compatible\n",
        ALL_STRICT_TESTS,
        STRICT_OWN,
    ),
    WrongAnswer(
        STRICT,
        "returns None instead of [] for a schema that follows both rules",
        splice(_STRICT_OK, ("    return found\n", "    return found or None\n")),
        ("test_is_strict_compatible_accepts",),
        STRICT_LIST,
    ),
    WrongAnswer(
        STRICT,
        "checks only the root schema, never the nested objects",
        splice(
            _STRICT_OK,
            ('            visit(child, path + "." + name)\n', "            pass\n"),
            ('            visit(node["items"], path + "[]")\n', "            pass\n"),
        ),
        ("test_is_strict_compatible_additional", "test_is_strict_compatible_required"),
        STRICT_WALK,
    ),
    WrongAnswer(
        STRICT,
        "follows properties but not array items",
        splice(_STRICT_OK, ('            visit(node["items"], path + "[]")\n', "            pass\n")),
        ("test_is_strict_compatible_additional", "test_is_strict_compatible_required"),
        STRICT_WALK,
    ),
    WrongAnswer(
        STRICT,
        "only flags additionalProperties when it is missing or true, not when it is a schema",
        splice(
            _STRICT_OK,
            (
                'if node.get("additionalProperties") is not False:',
                'if node.get("additionalProperties", True) is True:',
            ),
        ),
        ("test_is_strict_compatible_additional",),
        STRICT_ADDITIONAL,
    ),
    WrongAnswer(
        STRICT,
        'recognises only type "object", not a type list such as ["object", "null"]',
        splice(
            _STRICT_OK,
            (
                'is_object = kind == "object" or (isinstance(kind, list) and "object" in kind)',
                'is_object = kind == "object"',
            ),
        ),
        ("test_is_strict_compatible_additional",),
        STRICT_OBJECT,
    ),
    WrongAnswer(
        STRICT,
        "reports one problem per object for required instead of one per missing property",
        splice(
            _STRICT_OK,
            (
                _REQUIRED_LOOP,
                '            if set(node.get("properties", {})) - set(node.get("required", [])):\n'
                '                found.append(path + ": some properties are not required")\n',
            ),
        ),
        ("test_is_strict_compatible_required",),
        STRICT_REQUIRED,
    ),
    WrongAnswer(
        STRICT,
        'separates the path from the explanation with " - " instead of ": "',
        splice(
            _STRICT_OK,
            ('found.append(path + ": additionalProperties', 'found.append(path + " - additionalProperties'),
            ('found.append(path + ": " + repr(name)', 'found.append(path + " - " + repr(name)'),
        ),
        ("test_is_strict_compatible_additional", "test_is_strict_compatible_required"),
        STRICT_PREFIX,
    ),
    WrongAnswer(
        STRICT,
        "writes an items schema's path as p.items instead of p[]",
        splice(_STRICT_OK, ('visit(node["items"], path + "[]")', 'visit(node["items"], path + ".items")')),
        ("test_is_strict_compatible_additional", "test_is_strict_compatible_required"),
        STRICT_PATHS,
    ),
    WrongAnswer(
        STRICT,
        "fills in a missing required with setdefault, which writes it into the caller's schema",
        splice(
            _STRICT_OK,
            (
                _REQUIRED_LOOP,
                '            required = node.setdefault("required", [])\n'
                '            for name in node.get("properties", {}):\n'
                "                if name not in required:\n"
                '                    found.append(path + ": " + repr(name) + " is not required")\n',
            ),
        ),
        ("test_is_strict_compatible_required",),
        STRICT_UNCHANGED,
    ),
    WrongAnswer(
        STRICT,
        "refuses every schema with a ValueError",
        'def is_strict_compatible(schema):\n    raise ValueError("not strict")\n',
        ALL_STRICT_TESTS,
        STRICT_LIST,
    ),
    WrongAnswer(
        STRICT,
        "returns the schema it was given unchanged",
        "def is_strict_compatible(schema):\n    return schema\n",
        ALL_STRICT_TESTS,
        STRICT_LIST,
    ),
    WrongAnswer(
        STRICT,
        "finds no problem in any schema",
        "def is_strict_compatible(schema):\n    return []\n",
        ALL_STRICT_TESTS,
        STRICT_LIST,
    ),
    # ---- Part C: second_request_messages -----------------------------------------------------------------
    WrongAnswer(
        SECOND,
        "imports a second_request_messages from the library instead of writing one",
        "from course_lib.specs import second_request_messages\n",
        ALL_SECOND_TESTS,
        SECOND_OWN,
    ),
    WrongAnswer(
        SECOND,
        "sends the user's question in the content-parts form instead of the plain string",
        splice(
            _SECOND_OK,
            (
                '[{"role": "user", "content": user_text}]',
                '[{"role": "user", "content": [{"type": "text", "text": user_text}]}]',
            ),
        ),
        ("test_second_request_single", "test_second_request_parallel"),
        SECOND_USER,
    ),
    WrongAnswer(
        SECOND,
        "the find-the-bug mistake: the assistant turn is missing",
        splice(_SECOND_OK, ("    messages.append(assistant)\n", "")),
        ALL_SECOND_TESTS,
        SECOND_ASSISTANT,
    ),
    WrongAnswer(
        SECOND,
        "answers only the first of several tool calls",
        splice(
            _SECOND_OK, ('for call in assistant["tool_calls"]:', 'for call in assistant["tool_calls"][:1]:')
        ),
        ("test_second_request_parallel",),
        SECOND_TOOL,
    ),
    WrongAnswer(
        SECOND,
        "uses the Responses key call_id instead of tool_call_id",
        splice(
            _SECOND_OK,
            (_TOOL_MESSAGE, '{"role": "tool", "call_id": call["id"], "content": results[call["id"]]}'),
        ),
        ("test_second_request_single", "test_second_request_parallel"),
        SECOND_TOOL,
    ),
    WrongAnswer(
        SECOND,
        "follows the order of the results dict instead of the order of tool_calls",
        splice(
            _SECOND_OK,
            (
                '    for call in assistant["tool_calls"]:\n        messages.append(' + _TOOL_MESSAGE + ")\n",
                "    for call_id, result in results.items():\n"
                '        messages.append({"role": "tool", "tool_call_id": call_id, "content": result})\n',
            ),
        ),
        ("test_second_request_parallel",),
        SECOND_ORDER,
    ),
    WrongAnswer(
        SECOND,
        "sends the decoded result object as content instead of the string",
        splice(
            _SECOND_OK, ('"content": results[call["id"]]}', '"content": json.loads(results[call["id"]])}')
        ),
        ("test_second_request_single", "test_second_request_parallel"),
        SECOND_RESULT,
    ),
    WrongAnswer(
        SECOND,
        'the deprecated shape: role "function" with a name instead of role "tool" with the id',
        splice(
            _SECOND_OK,
            (
                _TOOL_MESSAGE,
                '{"role": "function", "name": call["function"]["name"], "content": results[call["id"]]}',
            ),
        ),
        ("test_second_request_single", "test_second_request_parallel"),
        SECOND_TOOL,
    ),
    WrongAnswer(
        SECOND,
        "rebuilds the assistant turn from role and tool_calls, dropping content, refusal and annotations",
        splice(
            _SECOND_OK,
            (
                "    messages.append(assistant)\n",
                '    messages.append({"role": "assistant", "tool_calls": assistant["tool_calls"]})\n',
            ),
        ),
        ("test_second_request_single", "test_second_request_assistant_turn"),
        SECOND_ASSISTANT,
    ),
    WrongAnswer(
        SECOND,
        "sends the assistant's null content as an empty string (a copy: first_reply is left alone)",
        splice(
            _SECOND_OK,
            (
                "    messages.append(assistant)\n",
                '    messages.append({**assistant, "content": assistant["content"] or ""})\n',
            ),
        ),
        ("test_second_request_single", "test_second_request_assistant_turn"),
        SECOND_ASSISTANT,
    ),
    WrongAnswer(
        SECOND,
        "takes each result out of results with pop, emptying the caller's dict",
        splice(_SECOND_OK, ('"content": results[call["id"]]}', '"content": results.pop(call["id"])}')),
        ("test_second_request_assistant_turn",),
        SECOND_UNCHANGED,
    ),
    WrongAnswer(
        SECOND,
        "replaces the assistant's null content with an empty string, editing first_reply in place",
        splice(
            _SECOND_OK,
            (
                "    messages.append(assistant)\n",
                '    if assistant["content"] is None:\n        assistant["content"] = ""\n'
                "    messages.append(assistant)\n",
            ),
        ),
        ("test_second_request_single", "test_second_request_assistant_turn"),
        SECOND_UNCHANGED,
    ),
    WrongAnswer(
        SECOND,
        "refuses every first reply with a ValueError",
        'def second_request_messages(user_text, first_reply, results):\n    raise ValueError("refused")\n',
        ALL_SECOND_TESTS,
        SECOND_USER,
    ),
    WrongAnswer(
        SECOND,
        "returns the first reply it was given unchanged",
        "def second_request_messages(user_text, first_reply, results):\n    return first_reply\n",
        ALL_SECOND_TESTS,
        SECOND_USER,
    ),
]

# ---- Parts D and E: assembling streams -----------------------------------------------------------------------

CHAT_STREAM = "assemble_chat_stream"
RESPONSES_STREAM = "assemble_responses_stream"

_CHAT_STREAM_OK = '''
def assemble_chat_stream(events):
    """A correct answer, to splice mistakes into."""
    content = None
    calls = {}
    finish = None
    for event in events:
        if event == "[DONE]":
            break
        for choice in event["choices"]:
            if choice["index"] != 0:
                continue
            delta = choice["delta"]
            if delta.get("content") is not None:
                content = (content or "") + delta["content"]
            for part in delta.get("tool_calls") or []:
                index = part["index"]
                function = part.get("function") or {}
                if index not in calls:
                    if part.get("id") is None or function.get("name") is None:
                        raise ModelTurnError("a call opened without its id and name")
                    calls[index] = {"id": part["id"], "type": "function",
                                    "function": {"name": function["name"], "arguments": ""}}
                piece = function.get("arguments") or ""
                calls[index]["function"]["arguments"] += piece
            if choice.get("finish_reason") is not None:
                finish = choice["finish_reason"]
    if finish is None or finish in ("length", "content_filter"):
        raise ModelTurnError("the turn did not finish: " + repr(finish))
    message = {"role": "assistant", "content": content}
    if calls:
        message["tool_calls"] = [calls[index] for index in sorted(calls)]
    return message
'''

_RESPONSES_STREAM_OK = '''
def assemble_responses_stream(events):
    """A correct answer, to splice mistakes into."""
    items = {}
    for event in events:
        kind = event["type"]
        if kind in ("response.incomplete", "response.failed", "error"):
            raise ModelTurnError("the stream ended with " + kind)
        if kind == "response.completed":
            return [items[index] for index in sorted(items)]
        if kind == "response.output_item.added":
            item = copy.deepcopy(event["item"])
            if item["type"] == "function_call":
                item["arguments"] = ""
            if item["type"] == "message":
                item["content"] = []
            items[event["output_index"]] = item
        elif "output_index" in event and event["output_index"] not in items:
            raise ModelTurnError("an event for an item never added")
        elif kind == "response.function_call_arguments.delta":
            items[event["output_index"]]["arguments"] += event["delta"]
        elif kind == "response.function_call_arguments.done":
            if event["arguments"] != items[event["output_index"]]["arguments"]:
                raise ModelTurnError("the deltas do not add up")
        elif kind == "response.content_part.added":
            items[event["output_index"]]["content"].append({**event["part"], "text": ""})
        elif kind == "response.output_text.delta":
            items[event["output_index"]]["content"][event["content_index"]]["text"] += event["delta"]
        elif kind == "response.output_item.done":
            item = items[event["output_index"]]
            if item["type"] in ("function_call", "message"):
                item["status"] = event["item"]["status"]
            else:
                items[event["output_index"]] = copy.deepcopy(event["item"])
    raise ModelTurnError("the stream ended before response.completed")
'''

_PIECE = '                calls[index]["function"]["arguments"] += piece\n'
_FINISH_CHECK = '    if finish is None or finish in ("length", "content_filter"):\n'
_DONE = '        if event == "[DONE]":\n            break\n'
_OPEN = '"function": {"name": function["name"], "arguments": ""}}'
_MESSAGE = '    message = {"role": "assistant", "content": content}\n'
_DELTA = '            items[event["output_index"]]["arguments"] += event["delta"]\n'
_RETURN = "            return [items[index] for index in sorted(items)]\n"
_NEVER_COMPLETED = '    raise ModelTurnError("the stream ended before response.completed")\n'

CHAT_OWN = "be your own work: importing or wrapping anything from `course_lib.streaming` scores nothing"
CHAT_ONCE = "read `events` once, in order (it may be a generator), and never modify it or the chunks in it"
CHAT_SHAPE = 'with a `"tool_calls"` key added only when the turn holds at least one call'
CHAT_CHOICE = "read only the choice whose `index` is 0 and skip any other"
CHAT_CONTENT = "whether or not the turn also holds calls"
CHAT_EMPTY = '`""` counts as content, and `content` is `None` only if no delta carried any'
CHAT_ORDER = "list the calls in increasing `index` whatever order they arrived in"
CHAT_NAME = "take a call's `id` and `name` from the first delta at its `index`"
CHAT_ARGUMENTS = (
    "set a call's `arguments` to every `arguments` fragment at its `index` joined in arrival order"
)
CHAT_DONE = 'stop at `"[DONE]"`: nothing after it counts'
CHAT_UNFINISHED = 'raise `ModelTurnError` if no chunk carries a `finish_reason`, even when `"[DONE]"` arrives'
CHAT_CUT = 'raise `ModelTurnError` if the `finish_reason` is `"length"` or `"content_filter"`'
RESPONSES_OWN = CHAT_OWN
RESPONSES_ONCE = "never modify it or the events in it"
RESPONSES_ORDER = (
    "return the output items as a list in increasing `output_index`, whatever order they were added in"
)
RESPONSES_START = "start each item as a deep copy of the `item` of its `response.output_item.added` event"
RESPONSES_ARGUMENTS = (
    "set a function call's `arguments` to its `response.function_call_arguments.delta` deltas joined in order"
)
RESPONSES_CHECK = (
    "raise `ModelTurnError` if a `response.function_call_arguments.done` event's `arguments` differ"
)
RESPONSES_PARTS = "join each `response.output_text.delta` delta into the part at that event's `content_index`"
RESPONSES_DONE = (
    'replace an item of any other type (a `reasoning` item, say) by a deep copy of `event["item"]`'
)
RESPONSES_UNOPENED = "an `output_index` that no earlier `response.output_item.added` opened"
RESPONSES_REFUSAL = "a `refusal` part too is appended with"
RESPONSES_COMPLETED = "stop at `response.completed`: nothing after it counts"
RESPONSES_UNFINISHED = "raise `ModelTurnError` if the stream ends without `response.completed`"
RESPONSES_BAD_END = "or brings `response.incomplete`, `response.failed` or `error` before it"

WRONG_ANSWERS += [
    WrongAnswer(
        CHAT_STREAM,
        "imports the library's assemble_chat_stream instead of writing one",
        "from course_lib.streaming import assemble_chat_stream\n",
        ("test_assemble_chat_calls", "test_assemble_chat_text", "test_assemble_chat_finish"),
        CHAT_OWN,
    ),
    WrongAnswer(
        CHAT_STREAM,
        "concatenates every arguments fragment into the first call, whatever its index",
        splice(
            _CHAT_STREAM_OK, (_PIECE, '                calls[min(calls)]["function"]["arguments"] += piece\n')
        ),
        ("test_assemble_chat_calls",),
        CHAT_ARGUMENTS,
    ),
    WrongAnswer(
        CHAT_STREAM,
        "parses each fragment as it arrives, to use the arguments early",
        splice(
            _CHAT_STREAM_OK,
            (_PIECE, _PIECE + "                json.loads(calls[index]['function']['arguments'] or '{}')\n"),
        ),
        ("test_assemble_chat_calls",),
        "never parsed or altered",
    ),
    WrongAnswer(
        CHAT_STREAM,
        "holds each fragment back until the next one arrives, so the last one of every call is dropped",
        splice(
            _CHAT_STREAM_OK,
            ("    finish = None\n", "    finish = None\n    held = {}\n"),
            (
                _PIECE,
                '                calls[index]["function"]["arguments"] += held.get(index, "")\n'
                "                held[index] = piece\n",
            ),
        ),
        ("test_assemble_chat_calls",),
        CHAT_ARGUMENTS,
    ),
    WrongAnswer(
        CHAT_STREAM,
        "ignores finish_reason and returns whatever arrived",
        splice(_CHAT_STREAM_OK, (_FINISH_CHECK, "    if False:\n")),
        ("test_assemble_chat_finish",),
        CHAT_UNFINISHED,
    ),
    WrongAnswer(
        CHAT_STREAM,
        'refuses only a missing finish_reason, and accepts a turn cut at "length"',
        splice(_CHAT_STREAM_OK, (_FINISH_CHECK, "    if finish is None:\n")),
        ("test_assemble_chat_finish",),
        CHAT_CUT,
    ),
    WrongAnswer(
        CHAT_STREAM,
        "starts content as an empty string, so a turn of only tool calls gets content '' instead of None",
        splice(
            _CHAT_STREAM_OK,
            ("    content = None\n", '    content = ""\n'),
            ('content = (content or "") + delta["content"]', 'content = content + delta["content"]'),
        ),
        ("test_assemble_chat_calls",),
        CHAT_EMPTY,
    ),
    WrongAnswer(
        CHAT_STREAM,
        "joins the name across fragments like the arguments, so a name repeated in later deltas is doubled",
        splice(
            _CHAT_STREAM_OK,
            (_OPEN, '"function": {"name": "", "arguments": ""}}'),
            (
                _PIECE,
                _PIECE + '                calls[index]["function"]["name"] += function.get("name") or ""\n',
            ),
        ),
        ("test_assemble_chat_calls",),
        "and never join them: a later delta that repeats them changes nothing",
    ),
    WrongAnswer(
        CHAT_STREAM,
        "lists the calls in the order they first arrived, not by index",
        splice(
            _CHAT_STREAM_OK,
            (
                '        message["tool_calls"] = [calls[index] for index in sorted(calls)]\n',
                '        message["tool_calls"] = list(calls.values())\n',
            ),
        ),
        ("test_assemble_chat_calls",),
        CHAT_ORDER,
    ),
    WrongAnswer(
        CHAT_STREAM,
        "drops the text of a turn that also holds calls",
        splice(
            _CHAT_STREAM_OK,
            (_MESSAGE, '    message = {"role": "assistant", "content": None if calls else content}\n'),
        ),
        ("test_assemble_chat_calls",),
        CHAT_CONTENT,
    ),
    WrongAnswer(
        CHAT_STREAM,
        'replaces empty arguments by "{}", which the arguments never said',
        splice(
            _CHAT_STREAM_OK,
            (
                _MESSAGE,
                "    for call in calls.values():\n"
                '        call["function"]["arguments"] = call["function"]["arguments"] or "{}"\n' + _MESSAGE,
            ),
        ),
        ("test_assemble_chat_calls",),
        'so a call whose fragments are all `""` has `arguments` `""`',
    ),
    WrongAnswer(
        CHAT_STREAM,
        'takes "[DONE]" for a finish, so a stream that lost its finish_reason chunk is accepted',
        splice(
            _CHAT_STREAM_OK,
            (
                _DONE,
                '        if event == "[DONE]":\n            finish = finish or "stop"\n            break\n',
            ),
        ),
        ("test_assemble_chat_finish",),
        CHAT_UNFINISHED,
    ),
    WrongAnswer(
        CHAT_STREAM,
        'refuses "length" and "content_filter" only when the turn holds calls',
        splice(
            _CHAT_STREAM_OK,
            (_FINISH_CHECK, '    if finish is None or (calls and finish in ("length", "content_filter")):\n'),
        ),
        ("test_assemble_chat_finish",),
        "whether the turn holds calls, text or both",
    ),
    WrongAnswer(
        CHAT_STREAM,
        'skips an empty content delta, so a turn whose only content is "" gets None',
        splice(_CHAT_STREAM_OK, ('if delta.get("content") is not None:', 'if delta.get("content"):')),
        ("test_assemble_chat_text",),
        CHAT_EMPTY,
    ),
    WrongAnswer(
        CHAT_STREAM,
        "joins the content of every choice, not only the one with index 0",
        splice(_CHAT_STREAM_OK, ('            if choice["index"] != 0:\n                continue\n', "")),
        ("test_assemble_chat_text",),
        CHAT_CHOICE,
    ),
    WrongAnswer(
        CHAT_STREAM,
        "opens a call whose first delta has no id or name anyway, with None in its place",
        splice(
            _CHAT_STREAM_OK,
            (
                '                    if part.get("id") is None or function.get("name") is None:\n'
                '                        raise ModelTurnError("a call opened without its id and name")\n',
                "",
            ),
            ('"id": part["id"]', '"id": part.get("id")'),
            (_OPEN, '"function": {"name": function.get("name"), "arguments": ""}}'),
        ),
        ("test_assemble_chat_calls",),
        "raising `ModelTurnError` if that delta leaves either out (or sends `None`)",
    ),
    WrongAnswer(
        CHAT_STREAM,
        "keeps the opening delta's own function object as the call's, so the fragments are added into the chunk",
        splice(_CHAT_STREAM_OK, (_OPEN, '"function": function}')),
        ("test_assemble_chat_calls",),
        CHAT_ONCE,
    ),
    WrongAnswer(
        CHAT_STREAM,
        "looks for a finish_reason in a first pass over events, so a generator is empty for the second",
        splice(
            _CHAT_STREAM_OK,
            (
                "    finish = None\n",
                "    finish = None\n"
                '    if not any(e != "[DONE]" and any(c.get("finish_reason") for c in e["choices"]) for e in events):\n'
                '        raise ModelTurnError("no finish_reason")\n',
            ),
        ),
        ("test_assemble_chat_calls",),
        CHAT_ONCE,
    ),
    WrongAnswer(
        CHAT_STREAM,
        'reads on past "[DONE]", so a chunk after it adds to the turn',
        splice(_CHAT_STREAM_OK, (_DONE, '        if event == "[DONE]":\n            continue\n')),
        ("test_assemble_chat_text",),
        CHAT_DONE,
    ),
    WrongAnswer(
        CHAT_STREAM,
        "always adds a tool_calls key, an empty list for a text turn",
        splice(_CHAT_STREAM_OK, ("    if calls:\n", "    if True:\n")),
        ("test_assemble_chat_text",),
        CHAT_SHAPE,
    ),
    WrongAnswer(
        RESPONSES_STREAM,
        "imports the library's assemble_responses_stream instead of writing one",
        "from course_lib.streaming import assemble_responses_stream\n",
        ("test_assemble_responses_calls", "test_assemble_responses_unfinished"),
        RESPONSES_OWN,
    ),
    WrongAnswer(
        RESPONSES_STREAM,
        "adds every delta to the item added last, ignoring output_index",
        splice(
            _RESPONSES_STREAM_OK, (_DELTA, '            items[max(items)]["arguments"] += event["delta"]\n')
        ),
        ("test_assemble_responses_calls",),
        RESPONSES_ARGUMENTS,
    ),
    WrongAnswer(
        RESPONSES_STREAM,
        "parses each delta as it arrives",
        splice(_RESPONSES_STREAM_OK, (_DELTA, '            json.loads(event["delta"])\n' + _DELTA)),
        ("test_assemble_responses_calls",),
        RESPONSES_ARGUMENTS,
    ),
    WrongAnswer(
        RESPONSES_STREAM,
        "returns the items when the events run out, completed or not",
        splice(
            _RESPONSES_STREAM_OK, (_NEVER_COMPLETED, "    return [items[index] for index in sorted(items)]\n")
        ),
        ("test_assemble_responses_unfinished",),
        RESPONSES_UNFINISHED,
    ),
    WrongAnswer(
        RESPONSES_STREAM,
        "returns the items in the order they were added, not by output_index",
        splice(_RESPONSES_STREAM_OK, (_RETURN, "            return list(items.values())\n")),
        ("test_assemble_responses_calls",),
        RESPONSES_ORDER,
    ),
    WrongAnswer(
        RESPONSES_STREAM,
        "keeps a reasoning item as it was added instead of taking the one its done event carries",
        splice(
            _RESPONSES_STREAM_OK,
            (
                '                items[event["output_index"]] = copy.deepcopy(event["item"])\n',
                "                pass\n",
            ),
        ),
        ("test_assemble_responses_calls",),
        RESPONSES_DONE,
    ),
    WrongAnswer(
        RESPONSES_STREAM,
        "puts every text delta into the first content part, whatever its content_index",
        splice(
            _RESPONSES_STREAM_OK, ('["content"][event["content_index"]]["text"]', '["content"][0]["text"]')
        ),
        ("test_assemble_responses_calls",),
        RESPONSES_PARTS,
    ),
    WrongAnswer(
        RESPONSES_STREAM,
        "keeps the added item itself, not a copy, so the caller's events are edited",
        splice(_RESPONSES_STREAM_OK, ('item = copy.deepcopy(event["item"])', 'item = event["item"]')),
        ("test_assemble_responses_calls",),
        RESPONSES_ONCE,
    ),
    WrongAnswer(
        RESPONSES_STREAM,
        "keeps the arguments an added function_call already holds, and adds the deltas to them",
        splice(
            _RESPONSES_STREAM_OK,
            ('            if item["type"] == "function_call":\n                item["arguments"] = ""\n', ""),
        ),
        ("test_assemble_responses_calls",),
        RESPONSES_START,
    ),
    WrongAnswer(
        RESPONSES_STREAM,
        "never compares the done event's arguments with the deltas",
        splice(
            _RESPONSES_STREAM_OK,
            (
                '            if event["arguments"] != items[event["output_index"]]["arguments"]:\n'
                '                raise ModelTurnError("the deltas do not add up")\n',
                "            pass\n",
            ),
        ),
        ("test_assemble_responses_unfinished",),
        RESPONSES_CHECK,
    ),
    WrongAnswer(
        RESPONSES_STREAM,
        "skips an event whose output_index no item opened",
        splice(
            _RESPONSES_STREAM_OK,
            (
                '            raise ModelTurnError("an event for an item never added")\n',
                "            continue\n",
            ),
        ),
        ("test_assemble_responses_unfinished",),
        RESPONSES_UNOPENED,
    ),
    WrongAnswer(
        RESPONSES_STREAM,
        "reads on past response.completed, so an error event after it refuses the turn",
        splice(
            _RESPONSES_STREAM_OK,
            ("    items = {}\n", "    items, completed = {}, False\n"),
            (_RETURN, "            completed = True\n"),
            (
                _NEVER_COMPLETED,
                "    if completed:\n" + _RETURN.replace("            ", "        ", 1) + _NEVER_COMPLETED,
            ),
        ),
        ("test_assemble_responses_unfinished",),
        RESPONSES_COMPLETED,
    ),
    WrongAnswer(
        RESPONSES_STREAM,
        "refuses response.incomplete but accepts a stream that brings response.failed or error",
        splice(
            _RESPONSES_STREAM_OK,
            ('("response.incomplete", "response.failed", "error")', '("response.incomplete",)'),
        ),
        ("test_assemble_responses_unfinished",),
        RESPONSES_BAD_END,
    ),
    WrongAnswer(
        SPECS,
        "refuses every request for specs: each test of Part A also has names it must serve",
        'def tool_specs(toolbox, names, api):\n    raise ValueError("refused")\n',
        ALL_SPECS_TESTS,
        SPECS_ORDER,
    ),
    WrongAnswer(
        SPECS,
        "returns the names it was given unchanged",
        "def tool_specs(toolbox, names, api):\n    return names\n",
        ALL_SPECS_TESTS,
        SPECS_ORDER,
    ),
    WrongAnswer(
        CHAT_STREAM,
        "refuses every stream",
        'def assemble_chat_stream(events):\n    raise ModelTurnError("refused")\n',
        ("test_assemble_chat_calls", "test_assemble_chat_text", "test_assemble_chat_finish"),
        'and accept any other (`"stop"`, `"tool_calls"`) as finished',
    ),
    WrongAnswer(
        CHAT_STREAM,
        "returns the events unchanged",
        "def assemble_chat_stream(events):\n    return events\n",
        ("test_assemble_chat_calls", "test_assemble_chat_text", "test_assemble_chat_finish"),
        CHAT_SHAPE,
    ),
    WrongAnswer(
        RESPONSES_STREAM,
        "refuses every stream, finished or not",
        'def assemble_responses_stream(events):\n    raise ModelTurnError("refused")\n',
        ("test_assemble_responses_calls", "test_assemble_responses_unfinished"),
        RESPONSES_ORDER,
    ),
    WrongAnswer(
        RESPONSES_STREAM,
        "returns the events unchanged",
        "def assemble_responses_stream(events):\n    return events\n",
        ("test_assemble_responses_calls", "test_assemble_responses_unfinished"),
        RESPONSES_ORDER,
    ),
]

# ---- Part F: the loop over stored state (previous_response_id) -----------------------------------------------

CHAINED = "chained_responses_loop"
ALL_CHAINED_TESTS = (
    "test_chained_loop_chains",
    "test_chained_loop_final_text",
    "test_chained_loop_max_steps",
)

_CHAINED_OK = '''
def chained_responses_loop(base, user_text, toolbox, names, *, max_steps=5, confirm=None, model=None, **extra):
    """A correct answer, to splice mistakes into."""
    tools = tool_specs(toolbox, names, "responses")
    trace = []
    history = [{"role": "user", "content": user_text}]
    pending = list(history)
    last_id = None
    for step in range(1, max_steps + 1):
        body = {"model": model or MODEL, "tools": tools, **extra}
        if last_id is not None:
            body["previous_response_id"] = last_id
        body["input"] = pending
        answer = post_json(base, "/responses", body)
        last_id = answer["id"]
        history = history + answer["output"]
        pending = []
        calls = [item for item in answer["output"] if item.get("type") == "function_call"]
        if not calls:
            text = ""
            for item in answer["output"]:
                if item.get("type") == "message":
                    for part in item.get("content", []):
                        if part.get("type") == "output_text":
                            text += part["text"]
            return text, trace
        for call in calls:
            result = toolbox.run(call["name"], call["arguments"], names, confirm)
            trace.append((step, call["name"], call["arguments"], result))
            output = {"type": "function_call_output", "call_id": call["call_id"], "output": result}
            pending.append(output)
            history.append(output)
    raise MaxStepsExceeded("no final answer after " + str(max_steps) + " model calls", trace)
'''

_CHAIN_ID = '            body["previous_response_id"] = last_id\n'
_PENDING = "            pending.append(output)\n"

WRONG_ANSWERS += [
    WrongAnswer(
        CHAINED,
        "imports the library's chained_responses_loop instead of writing one",
        "from course_lib.chained import chained_responses_loop\n",
        ALL_CHAINED_TESTS,
        "importing or wrapping anything from `course_lib.chained` but `post_json` scores nothing",
    ),
    WrongAnswer(
        CHAINED,
        "resends the whole history as well as previous_response_id: every stored item arrives twice",
        splice(_CHAINED_OK, ('        body["input"] = pending\n', '        body["input"] = history\n')),
        ALL_CHAINED_TESTS,
        "never send again an item the provider already holds",
    ),
    WrongAnswer(
        CHAINED,
        "drops the function_call_output items: later requests carry no results",
        splice(_CHAINED_OK, (_PENDING, "")),
        ALL_CHAINED_TESTS,
        "per `function_call` item of that answer",
    ),
    WrongAnswer(
        CHAINED,
        "chains every request from the first response instead of the answer just received",
        splice(
            _CHAINED_OK, ('        last_id = answer["id"]\n', '        last_id = last_id or answer["id"]\n')
        ),
        ("test_chained_loop_chains", "test_chained_loop_max_steps"),
        "the `id` of the answer it has just received",
    ),
    WrongAnswer(
        CHAINED,
        "chains from the id of the first output item (fc_..., rs_...) instead of the response's id",
        splice(
            _CHAINED_OK, ('        last_id = answer["id"]\n', '        last_id = answer["output"][0]["id"]\n')
        ),
        ALL_CHAINED_TESTS,
        "the `id` of the answer it has just received",
    ),
    WrongAnswer(
        CHAINED,
        "sends only the new items but never names previous_response_id",
        splice(_CHAINED_OK, (_CHAIN_ID, "            pass\n")),
        ALL_CHAINED_TESTS,
        'name in `"previous_response_id"` of every later request',
    ),
    WrongAnswer(
        CHAINED,
        "sends tools on the first request only, as if the provider kept them",
        splice(
            _CHAINED_OK,
            (
                '        body = {"model": model or MODEL, "tools": tools, **extra}\n',
                '        body = {"model": model or MODEL, **extra}\n        if step == 1:\n'
                '            body["tools"] = tools\n',
            ),
        ),
        ("test_chained_loop_chains", "test_chained_loop_max_steps"),
        "and every field of `extra`, on every request",
    ),
    WrongAnswer(
        CHAINED,
        "sends the question as a bare string in the first request instead of a list holding the user message",
        splice(_CHAINED_OK, ("    pending = list(history)\n", "    pending = user_text\n")),
        ALL_CHAINED_TESTS,
        'send `"input": [{"role": "user", "content": user_text}]` and no `previous_response_id` in the first request',
    ),
    WrongAnswer(
        CHAINED,
        "calls the tool's function itself instead of toolbox.run: an unknown name or broken JSON raises",
        splice(
            _CHAINED_OK,
            (
                '            result = toolbox.run(call["name"], call["arguments"], names, confirm)\n',
                '            value = toolbox[call["name"]].fn(**json.loads(call["arguments"]))\n'
                '            result = json.dumps({"result": value})\n',
            ),
        ),
        ("test_chained_loop_chains",),
        "run every call with `toolbox.run(name, arguments, names, confirm)`",
    ),
    WrongAnswer(
        CHAINED,
        "numbers the trace's steps from 0: each call is filed under the request before the one that asked for it",
        splice(
            _CHAINED_OK, ("    for step in range(1, max_steps + 1):\n", "    for step in range(max_steps):\n")
        ),
        ("test_chained_loop_chains", "test_chained_loop_final_text"),
        "`step` being the number of the request whose answer asked for it",
    ),
    WrongAnswer(
        CHAINED,
        "sends one request more than max_steps before giving up",
        splice(
            _CHAINED_OK,
            ("    for step in range(1, max_steps + 1):\n", "    for step in range(1, max_steps + 2):\n"),
        ),
        ("test_chained_loop_max_steps",),
        "raise `MaxStepsExceeded(message, trace)` after `max_steps` requests without such an answer",
    ),
    WrongAnswer(
        CHAINED,
        "refuses every conversation: MaxStepsExceeded before any request",
        "def chained_responses_loop(base, user_text, toolbox, names, *, max_steps=5, confirm=None, model=None,"
        ' **extra):\n    raise MaxStepsExceeded("refused", [])\n',
        ALL_CHAINED_TESTS,
        "return the text of the first answer without a `function_call` item",
    ),
    WrongAnswer(
        CHAINED,
        "returns at once, with no text and no trace",
        "def chained_responses_loop(base, user_text, toolbox, names, *, max_steps=5, confirm=None, model=None,"
        ' **extra):\n    return "", []\n',
        ALL_CHAINED_TESTS,
        "return the text of the first answer without a `function_call` item",
    ),
]

# ---- a second red-team round (issue 35): held-out wrong answers, each caught by a hidden check added with it ----
_FINAL_TEXT = "return the text of the first answer without a `function_call` item"
_MAX_STEPS = "raise `MaxStepsExceeded(message, trace)` after `max_steps` requests without such an answer"

WRONG_ANSWERS += [
    WrongAnswer(
        SPECS,
        "checks api with a set literal: an api that cannot be hashed (a list) raises TypeError, not ValueError",
        splice(
            _SPECS_OK, ('if api != "chat" and api != "responses":', 'if api not in {"chat", "responses"}:')
        ),
        ("test_tool_specs_unknown_api",),
        breaks=SPECS_API,
    ),
    WrongAnswer(
        SPECS,
        "writes the requested name instead of the tool's own name",
        splice(_SPECS_OK, ('"name": tool.name,', '"name": name,')),
        ("test_tool_specs_chat",),
        breaks=SPECS_CHAT,
    ),
    WrongAnswer(
        STRICT,
        "treats a schema with properties as an object schema even when it has no type",
        splice(_STRICT_OK, ('"object" in kind)\n', '"object" in kind) or "properties" in node\n')),
        ("test_is_strict_compatible_accepts", "test_is_strict_compatible_additional"),
        breaks=STRICT_OBJECT,
    ),
    WrongAnswer(
        STRICT,
        "follows items whatever it is: items given as a list of schemas raises AttributeError",
        splice(
            _STRICT_OK, ('        if isinstance(node.get("items"), dict):', '        if "items" in node:')
        ),
        ("test_is_strict_compatible_accepts",),
        breaks=STRICT_WALK,
    ),
    WrongAnswer(
        STRICT,
        "also reports a name in required that is not a property",
        splice(
            _STRICT_OK,
            (
                _REQUIRED_LOOP,
                _REQUIRED_LOOP + '            for name in node.get("required", []):\n'
                '                if name not in node.get("properties", {}):\n'
                '                    found.append(path + ": " + repr(name) + " is required but not a property")\n',
            ),
        ),
        ("test_is_strict_compatible_accepts",),
        breaks=STRICT_LIST,
    ),
    WrongAnswer(
        STRICT,
        "follows properties only inside an object schema",
        splice(
            _STRICT_OK,
            (
                '        for name, child in node.get("properties", {}).items():\n'
                '            visit(child, path + "." + name)\n',
                '            for name, child in node.get("properties", {}).items():\n'
                '                visit(child, path + "." + name)\n',
            ),
        ),
        ("test_is_strict_compatible_additional",),
        breaks=STRICT_WALK,
    ),
    WrongAnswer(
        STRICT,
        'follows items only when type is exactly "array": the items of a nullable array are skipped',
        splice(
            _STRICT_OK,
            (
                '        if isinstance(node.get("items"), dict):',
                '        if node.get("type") == "array" and isinstance(node.get("items"), dict):',
            ),
        ),
        ("test_is_strict_compatible_additional",),
        breaks=STRICT_WALK,
    ),
    WrongAnswer(
        SECOND,
        "takes the assistant message from the last choice instead of choices[0]",
        splice(_SECOND_OK, ('first_reply["choices"][0]["message"]', 'first_reply["choices"][-1]["message"]')),
        ("test_second_request_assistant_turn",),
        breaks=SECOND_ASSISTANT,
    ),
    WrongAnswer(
        CHAT_STREAM,
        "refuses a call whose opening id or name is falsy: an empty string counts as missing",
        splice(
            _CHAT_STREAM_OK,
            (
                'if part.get("id") is None or function.get("name") is None:',
                'if not part.get("id") or not function.get("name"):',
            ),
        ),
        ("test_assemble_chat_calls",),
        breaks=CHAT_NAME,
    ),
    WrongAnswer(
        CHAT_STREAM,
        "lets a later delta's id replace the call's id",
        splice(
            _CHAT_STREAM_OK,
            (
                _PIECE,
                '                if part.get("id") is not None:\n                    calls[index]["id"] = part["id"]\n'
                + _PIECE,
            ),
        ),
        ("test_assemble_chat_calls",),
        breaks=CHAT_NAME,
    ),
    WrongAnswer(
        CHAT_STREAM,
        'reads every fragment as part["function"]["arguments"]: a delta that leaves them out raises KeyError',
        splice(
            _CHAT_STREAM_OK,
            ('piece = function.get("arguments") or ""', 'piece = part["function"]["arguments"]'),
        ),
        ("test_assemble_chat_calls",),
        breaks=CHAT_ARGUMENTS,
    ),
    WrongAnswer(
        CHAT_STREAM,
        "lists the calls as indexes 0 to n-1: indexes that skip a number raise KeyError",
        splice(
            _CHAT_STREAM_OK,
            ("[calls[index] for index in sorted(calls)]", "[calls[index] for index in range(len(calls))]"),
        ),
        ("test_assemble_chat_calls",),
        breaks=CHAT_ORDER,
    ),
    WrongAnswer(
        CHAT_STREAM,
        'accepts only "stop" and "tool_calls" as finished: the deprecated "function_call" is refused',
        splice(_CHAT_STREAM_OK, (_FINISH_CHECK, '    if finish not in ("stop", "tool_calls"):\n')),
        ("test_assemble_chat_finish",),
        breaks=CHAT_CUT,
    ),
    WrongAnswer(
        CHAT_STREAM,
        "takes the role from the stream: a stream whose deltas never name it gives role None",
        splice(
            _CHAT_STREAM_OK,
            ("    finish = None\n", "    finish = None\n    role = None\n"),
            (
                '            delta = choice["delta"]\n',
                '            delta = choice["delta"]\n            role = delta.get("role", role)\n',
            ),
            (_MESSAGE, '    message = {"role": role, "content": content}\n'),
        ),
        ("test_assemble_chat_text",),
        breaks=CHAT_SHAPE,
    ),
    WrongAnswer(
        CHAT_STREAM,
        "sets finish from every chunk of choice 0, so a chunk after the finish_reason resets it to None",
        splice(
            _CHAT_STREAM_OK,
            (
                '            if choice.get("finish_reason") is not None:\n'
                '                finish = choice["finish_reason"]\n',
                '            finish = choice.get("finish_reason")\n',
            ),
        ),
        ("test_assemble_chat_finish",),
        breaks=CHAT_UNFINISHED,
    ),
    WrongAnswer(
        RESPONSES_STREAM,
        "checks that an output_index was opened only for delta events",
        splice(
            _RESPONSES_STREAM_OK,
            (
                'event["output_index"] not in items:',
                'event["output_index"] not in items and kind.endswith(".delta"):',
            ),
        ),
        ("test_assemble_responses_unfinished",),
        breaks=RESPONSES_UNOPENED,
    ),
    WrongAnswer(
        RESPONSES_STREAM,
        'sets text to "" only on an output_text part: a refusal part is appended without it',
        splice(
            _RESPONSES_STREAM_OK,
            (
                '.append({**event["part"], "text": ""})',
                '.append({**event["part"], "text": ""} if event["part"]["type"] == "output_text"'
                ' else dict(event["part"]))',
            ),
        ),
        ("test_assemble_responses_calls",),
        breaks=RESPONSES_REFUSAL,
    ),
    WrongAnswer(
        RESPONSES_STREAM,
        'copies the added part as it is, without setting its text to ""',
        splice(
            _RESPONSES_STREAM_OK, ('.append({**event["part"], "text": ""})', '.append(dict(event["part"]))')
        ),
        ("test_assemble_responses_calls",),
        breaks=RESPONSES_PARTS,
    ),
    WrongAnswer(
        CHAINED,
        "checks max_steps after each request, so max_steps=0 still sends one",
        splice(
            _CHAINED_OK,
            (
                "    for step in range(1, max_steps + 1):\n",
                "    step = 0\n    while True:\n        step += 1\n",
            ),
            (
                "    raise MaxStepsExceeded(",
                "        if step >= max_steps:\n            break\n    raise MaxStepsExceeded(",
            ),
        ),
        ("test_chained_loop_max_steps",),
        breaks=_MAX_STEPS,
    ),
    WrongAnswer(
        CHAINED,
        "counts tool calls against max_steps instead of requests",
        splice(
            _CHAINED_OK,
            (
                "    for step in range(1, max_steps + 1):\n",
                "    step = 0\n    while len(trace) < max_steps:\n        step += 1\n",
            ),
        ),
        ("test_chained_loop_max_steps",),
        breaks=_MAX_STEPS,
    ),
    WrongAnswer(
        CHAINED,
        "takes an answer holding a message item as final, even when it holds function calls too",
        splice(
            _CHAINED_OK,
            (
                "        if not calls:\n",
                '        if not calls or any(item.get("type") == "message" for item in answer["output"]):\n',
            ),
        ),
        ("test_chained_loop_final_text",),
        breaks=_FINAL_TEXT,
    ),
]
