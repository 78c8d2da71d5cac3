"""Plausible wrong answers to notebook 03 and the tests that catch them.

Most are a correct loop with one mistake spliced in, so each one fails for exactly the reason in its `why`.
"""

from __future__ import annotations

from grading.wrong_answers import WrongAnswer, splice

CHAT = "chat_tool_loop"
RESPONSES = "responses_tool_loop"
COUNT = "count_the_requests"
ALL_CHAT_TESTS = (
    "test_chat_loop_one_call",
    "test_chat_loop_zero_calls",
    "test_chat_loop_parallel",
    "test_chat_loop_trace",
    "test_chat_loop_replay",
    "test_chat_loop_tool_choice",
    "test_chat_loop_max_steps",
    "test_chat_loop_last_turn",
)
ALL_RESPONSES_TESTS = (
    "test_responses_loop_one_call",
    "test_responses_loop_zero_calls",
    "test_responses_loop_parallel",
    "test_responses_loop_reasoning",
    "test_responses_loop_tool_choice",
    "test_responses_loop_max_steps",
)

# The sentences of the contracts (bullets of the "Your function must" lists) the wrong answers break.
A_OWN = "a loop that uses anything from `course_lib.loops` (its loops included"
A_START = 'start the history as `[{"role": "user", "content": user_text}]`;'
A_BODY = 'send each request as `post_json(base, "/chat/completions", body)`'
A_CHOICE = "leave the key out of every other request"
A_REPLAY = "append the answer's `choices[0].message` to the history"
A_TEXT = 'return its `content` as the text (`""` if the content is None)'
A_RUN = "otherwise run every call of the turn"
A_STEP = "where `step` is the number of the request (1, 2, ...)"
A_TRACE = "add `(step, name, arguments, result)` to the trace for each call"
A_TOOL_MESSAGE = '"tool_call_id": <the call\'s id>'
A_MAX_STEPS = "send at most `max_steps` requests"
A_LAST_TURN = "if the answer to request number `max_steps` still asks for tools"
B_OWN = "a loop that uses anything from `course_lib.loops` scores nothing"
B_BODY = 'send each request as `post_json(base, "/responses", body)`'
B_CHOICE = "and leave the key out otherwise, as in Part A"
B_REPLAY = "extend the history with **every** item of the answer's `output`"
B_RUN = 'take as the calls the output items whose `type` is `"function_call"`'
B_OUTPUT = '"call_id": <its call_id>'
B_TEXT = 'return as the text every `output_text` part of every `"message"` item'
B_MAX_STEPS = "then raise `MaxStepsExceeded(message, trace)`, as in Part A"

_CHAT_OK = '''
def chat_tool_loop(base, user_text, toolbox, names, *, max_steps=5, confirm=None, tool_choice=None, sticky=False,
                   model=None, **extra):
    """A correct answer, written differently from the notebook's, to splice mistakes into."""
    history = [{"role": "user", "content": user_text}]
    trace = []
    step = 0
    while step < max_steps:
        step += 1
        request = dict(extra)
        request["model"] = model if model else MODEL
        request["tools"] = [{"type": "function", "function": toolbox[name].declaration()} for name in names]
        request["messages"] = history
        if tool_choice is not None and (sticky or step == 1):
            request["tool_choice"] = tool_choice
        answer = post_json(base, "/chat/completions", request)
        turn = answer["choices"][0]["message"]
        history.append(turn)
        tool_calls = turn.get("tool_calls")
        if not tool_calls:
            content = turn.get("content")
            return ("" if content is None else content), trace
        for tool_call in tool_calls:
            function = tool_call["function"]
            output = toolbox.run(function["name"], function["arguments"], names, confirm)
            trace.append((step, function["name"], function["arguments"], output))
            history.append({"role": "tool", "tool_call_id": tool_call["id"], "content": output})
    raise MaxStepsExceeded(f"gave up after {max_steps} requests", trace)
'''

_RESPONSES_OK = '''
def responses_tool_loop(base, user_text, toolbox, names, *, max_steps=5, confirm=None, tool_choice=None,
                        sticky=False, model=None, **extra):
    """A correct answer, written differently from the notebook's, to splice mistakes into."""
    history = [{"role": "user", "content": user_text}]
    trace = []
    step = 0
    while step < max_steps:
        step += 1
        request = dict(extra)
        request["model"] = model if model else MODEL
        request["tools"] = []
        for name in names:
            request["tools"].append(dict(type="function", **toolbox[name].declaration()))
        request["input"] = history
        if tool_choice is not None and (sticky or step == 1):
            request["tool_choice"] = tool_choice
        output = post_json(base, "/responses", request)["output"]
        for item in output:
            history.append(item)
        function_calls = [item for item in output if item["type"] == "function_call"]
        if not function_calls:
            text = ""
            for item in output:
                if item["type"] == "message":
                    for part in item["content"]:
                        if part["type"] == "output_text":
                            text += part["text"]
            return text, trace
        for function_call in function_calls:
            output_string = toolbox.run(function_call["name"], function_call["arguments"], names, confirm)
            trace.append((step, function_call["name"], function_call["arguments"], output_string))
            history.append({"type": "function_call_output", "call_id": function_call["call_id"],
                            "output": output_string})
    raise MaxStepsExceeded(f"gave up after {max_steps} requests", trace)
'''

_ADD_PART = '                            text += part["text"]\n'
"""The line of _RESPONSES_OK that adds one output_text part to the final text."""

_COUNT_OK = """
requests_parallel = 3
requests_one_per_turn = 6
tool_messages_parallel = 5
tool_messages_one_per_turn = 5
"""


WRONG_ANSWERS = [
    # ---- Part A: chat_tool_loop ------------------------------------------------------------------------
    WrongAnswer(
        CHAT,
        "imports the library's chat_tool_loop instead of writing one",
        "from course_lib.loops import chat_tool_loop\n",
        ALL_CHAT_TESTS,
        breaks=A_OWN,
    ),
    WrongAnswer(
        CHAT,
        "wraps the library's chat_tool_loop in a function of its own",
        "import course_lib.loops\n\n\n"
        "def chat_tool_loop(base, user_text, toolbox, names, **options):\n"
        "    return course_lib.loops.chat_tool_loop(base, user_text, toolbox, names, **options)\n",
        ALL_CHAT_TESTS,
        breaks=A_OWN,
    ),
    WrongAnswer(
        CHAT,
        "exactly two requests: asks once more after the tool results and returns whatever comes back",
        splice(
            _CHAT_OK,
            ("    while step < max_steps:\n", "    for _ in range(2):\n"),
            (
                '    raise MaxStepsExceeded(f"gave up after {max_steps} requests", trace)',
                '    return turn.get("content") or "", trace',
            ),
        ),
        ("test_chat_loop_one_call", "test_chat_loop_max_steps", "test_chat_loop_last_turn"),
        breaks=A_MAX_STEPS,
    ),
    WrongAnswer(
        CHAT,
        "answers only the first tool call of a turn",
        splice(_CHAT_OK, ("for tool_call in tool_calls:", "for tool_call in tool_calls[:1]:")),
        ("test_chat_loop_parallel",),
        breaks=A_RUN,
    ),
    WrongAnswer(
        CHAT,
        "answers the calls of a turn in reverse order",
        splice(_CHAT_OK, ("for tool_call in tool_calls:", "for tool_call in reversed(tool_calls):")),
        ("test_chat_loop_parallel",),
        breaks=A_RUN,
    ),
    WrongAnswer(
        CHAT,
        "rebuilds the assistant turn from role, content and tool_calls, dropping refusal and annotations",
        splice(
            _CHAT_OK,
            (
                "        history.append(turn)\n",
                '        history.append({"role": "assistant", "content": turn.get("content"),\n'
                '                        **({"tool_calls": turn["tool_calls"]} if turn.get("tool_calls") else {})})\n',
            ),
        ),
        ("test_chat_loop_replay", "test_chat_loop_one_call"),
        breaks=A_REPLAY,
    ),
    WrongAnswer(
        CHAT,
        "sends a forced tool_choice with every request, ignoring sticky",
        splice(
            _CHAT_OK, ("if tool_choice is not None and (sticky or step == 1):", "if tool_choice is not None:")
        ),
        ("test_chat_loop_tool_choice",),
        breaks=A_CHOICE,
    ),
    WrongAnswer(
        CHAT,
        "sends tool_choice: null after the first request instead of leaving the key out",
        splice(
            _CHAT_OK,
            (
                "        if tool_choice is not None and (sticky or step == 1):\n"
                '            request["tool_choice"] = tool_choice\n',
                '        request["tool_choice"] = tool_choice if (sticky or step == 1) else None\n',
            ),
        ),
        ("test_chat_loop_tool_choice", "test_chat_loop_one_call"),
        breaks=A_CHOICE,
    ),
    WrongAnswer(
        CHAT,
        "off by one: gives up one request early (max_steps - 1 requests)",
        splice(_CHAT_OK, ("while step < max_steps:", "while step < max_steps - 1:")),
        ("test_chat_loop_max_steps", "test_chat_loop_last_turn"),
        breaks=A_MAX_STEPS,
    ),
    WrongAnswer(
        CHAT,
        "off by one: sends max_steps + 1 requests before giving up",
        splice(_CHAT_OK, ("while step < max_steps:", "while step <= max_steps:")),
        ("test_chat_loop_max_steps",),
        breaks=A_MAX_STEPS,
    ),
    WrongAnswer(
        CHAT,
        "dispatches against every tool in the toolbox instead of the names offered in this request",
        splice(
            _CHAT_OK,
            ('function["arguments"], names, confirm)', 'function["arguments"], toolbox.names, confirm)'),
        ),
        ("test_chat_loop_parallel",),
        breaks=A_RUN,
    ),
    WrongAnswer(
        CHAT,
        "never passes confirm on, so a confirmed destructive tool is still refused",
        splice(_CHAT_OK, ('function["arguments"], names, confirm)', 'function["arguments"], names)')),
        ("test_chat_loop_parallel",),
        breaks=A_RUN,
    ),
    WrongAnswer(
        CHAT,
        "returns the content as it is, None when the final message has no text",
        splice(_CHAT_OK, ('return ("" if content is None else content), trace', "return content, trace")),
        ("test_chat_loop_zero_calls",),
        breaks=A_TEXT,
    ),
    # ---- Part B: responses_tool_loop -------------------------------------------------------------------
    WrongAnswer(
        RESPONSES,
        "imports the library's responses_tool_loop instead of writing one",
        "from course_lib.loops import responses_tool_loop\n",
        ALL_RESPONSES_TESTS,
        breaks=B_OWN,
    ),
    WrongAnswer(
        RESPONSES,
        "replays only the function_call items, dropping the reasoning item of a reasoning model",
        splice(
            _RESPONSES_OK,
            ("        for item in output:\n            history.append(item)\n", ""),
            (
                "        for function_call in function_calls:\n",
                "        history.extend(function_calls)\n        for function_call in function_calls:\n",
            ),
        ),
        ("test_responses_loop_reasoning",),
        breaks=B_REPLAY,
    ),
    WrongAnswer(
        RESPONSES,
        "answers with the item's id instead of its call_id",
        splice(_RESPONSES_OK, ('"call_id": function_call["call_id"]', '"call_id": function_call["id"]')),
        ("test_responses_loop_one_call", "test_responses_loop_parallel", "test_responses_loop_reasoning"),
        breaks=B_OUTPUT,
    ),
    WrongAnswer(
        RESPONSES,
        "answers only the first function call of a turn",
        splice(
            _RESPONSES_OK,
            ("for function_call in function_calls:", "for function_call in function_calls[:1]:"),
        ),
        ("test_responses_loop_parallel",),
        breaks=B_RUN,
    ),
    WrongAnswer(
        RESPONSES,
        "returns only the first output_text part of each message item",
        splice(_RESPONSES_OK, (_ADD_PART, _ADD_PART + "                            break\n")),
        ("test_responses_loop_zero_calls",),
        breaks=B_TEXT,
    ),
    WrongAnswer(
        RESPONSES,
        "returns the text of the first message item only, dropping the later ones",
        splice(_RESPONSES_OK, (_ADD_PART, _ADD_PART + "                    return text, trace\n")),
        ("test_responses_loop_zero_calls",),
        breaks=B_TEXT,
    ),
    WrongAnswer(
        RESPONSES,
        "reads the text at output[0].content[0].text instead of joining every output_text part",
        splice(
            _RESPONSES_OK,
            (
                '            text = ""\n'
                "            for item in output:\n"
                '                if item["type"] == "message":\n'
                '                    for part in item["content"]:\n'
                '                        if part["type"] == "output_text":\n'
                '                            text += part["text"]\n',
                '            text = output[0]["content"][0]["text"]\n',
            ),
        ),
        ("test_responses_loop_zero_calls",),
        breaks=B_TEXT,
    ),
    WrongAnswer(
        RESPONSES,
        "sends a forced tool_choice with every request, ignoring sticky",
        splice(
            _RESPONSES_OK,
            ("if tool_choice is not None and (sticky or step == 1):", "if tool_choice is not None:"),
        ),
        ("test_responses_loop_tool_choice",),
        breaks=B_CHOICE,
    ),
    WrongAnswer(
        RESPONSES,
        "off by one: sends max_steps + 1 requests before giving up",
        splice(_RESPONSES_OK, ("while step < max_steps:", "while step <= max_steps:")),
        ("test_responses_loop_max_steps",),
        breaks=B_MAX_STEPS,
    ),
    # ---- Part C: count the requests --------------------------------------------------------------------
    WrongAnswer(
        COUNT,
        "parallel calls always mean 2 requests: forgets the send_email turn",
        splice(_COUNT_OK, ("requests_parallel = 3", "requests_parallel = 2")),
        ("test_count_requests_parallel",),
    ),
    WrongAnswer(
        COUNT,
        "one request per call, forgetting the request that gets the final answer",
        splice(_COUNT_OK, ("requests_one_per_turn = 6", "requests_one_per_turn = 5")),
        ("test_count_requests_one_per_turn",),
    ),
    WrongAnswer(
        COUNT,
        "counts only the four weather results, not the email's",
        splice(
            _COUNT_OK,
            ("tool_messages_parallel = 5", "tool_messages_parallel = 4"),
            ("tool_messages_one_per_turn = 5", "tool_messages_one_per_turn = 4"),
        ),
        ("test_count_tool_messages",),
    ),
    WrongAnswer(
        COUNT,
        "adds up the tool messages of every request, counting each resent result again",
        splice(
            _COUNT_OK,
            ("tool_messages_parallel = 5", "tool_messages_parallel = 9"),
            ("tool_messages_one_per_turn = 5", "tool_messages_one_per_turn = 15"),
        ),
        ("test_count_tool_messages",),
    ),
    WrongAnswer(
        COUNT,
        "answers with strings instead of whole numbers",
        splice(
            _COUNT_OK,
            ("requests_parallel = 3", 'requests_parallel = "3"'),
            ("requests_one_per_turn = 6", 'requests_one_per_turn = "6"'),
        ),
        ("test_count_requests_parallel", "test_count_requests_one_per_turn"),
    ),
    WrongAnswer(
        CHAT,
        "refuses every conversation before the first request: each test of Part A also has a conversation the loop"
        " must carry to its end, so it scores nothing",
        "def chat_tool_loop(base, user_text, toolbox, names, **options):\n"
        '    raise MaxStepsExceeded("refused", [])\n',
        ALL_CHAT_TESTS,
        breaks=A_BODY,
    ),
    WrongAnswer(
        CHAT,
        "returns its input unchanged: the user's words as the answer, with no request and an empty trace",
        "def chat_tool_loop(base, user_text, toolbox, names, **options):\n    return user_text, []\n",
        ALL_CHAT_TESTS,
        breaks=A_BODY,
    ),
    WrongAnswer(
        RESPONSES,
        "refuses every conversation before the first request: each test of Part B also has a conversation the loop"
        " must carry to its end, so it scores nothing",
        "def responses_tool_loop(base, user_text, toolbox, names, **options):\n"
        '    raise MaxStepsExceeded("refused", [])\n',
        ALL_RESPONSES_TESTS,
        breaks=B_BODY,
    ),
    WrongAnswer(
        RESPONSES,
        "returns its input unchanged: the user's words as the answer, with no request and an empty trace",
        "def responses_tool_loop(base, user_text, toolbox, names, **options):\n    return user_text, []\n",
        ALL_RESPONSES_TESTS,
        breaks=B_BODY,
    ),
    WrongAnswer(
        CHAT,
        "sends the user's words as a list of content parts instead of the string the contract names",
        splice(
            _CHAT_OK,
            (
                '    history = [{"role": "user", "content": user_text}]',
                '    history = [{"role": "user", "content": [{"type": "text", "text": user_text}]}]',
            ),
        ),
        ("test_chat_loop_one_call",),
        breaks=A_START,
    ),
    WrongAnswer(
        CHAT,
        "always asks for MODEL, ignoring the model it was given",
        splice(_CHAT_OK, ('request["model"] = model if model else MODEL', 'request["model"] = MODEL')),
        ("test_chat_loop_one_call",),
        breaks=A_BODY,
    ),
    WrongAnswer(
        CHAT,
        "numbers the trace's steps from 0 instead of by request number",
        splice(_CHAT_OK, ("trace.append((step, ", "trace.append((step - 1, ")),
        ("test_chat_loop_trace",),
        breaks=A_STEP,
    ),
    WrongAnswer(
        CHAT,
        "answers each call with the tool's name as its tool_call_id",
        splice(_CHAT_OK, ('"tool_call_id": tool_call["id"]', '"tool_call_id": function["name"]')),
        ("test_chat_loop_parallel",),
        breaks=A_TOOL_MESSAGE,
    ),
    WrongAnswer(
        RESPONSES,
        "always asks for MODEL, ignoring the model it was given",
        splice(
            _RESPONSES_OK,
            ('request["model"] = model if model else MODEL', 'request["model"] = MODEL'),
        ),
        ("test_responses_loop_one_call",),
        breaks=B_BODY,
    ),
    # ---- at the contracts' boundaries (issue 35) ------------------------------------------------------------
    WrongAnswer(
        CHAT,
        'sends model "" as given instead of MODEL',
        splice(
            _CHAT_OK,
            (
                'request["model"] = model if model else MODEL',
                'request["model"] = MODEL if model is None else model',
            ),
        ),
        ("test_chat_loop_one_call",),
        breaks=A_BODY,
    ),
    WrongAnswer(
        CHAT,
        "leaves the tools key out when no names are offered",
        splice(
            _CHAT_OK,
            (
                '        request["tools"] = [{"type": "function", "function": toolbox[name].declaration()}'
                " for name in names]\n",
                "        if names:\n"
                '            request["tools"] = [{"type": "function", "function": toolbox[name].declaration()}'
                " for name in names]\n",
            ),
        ),
        ("test_chat_loop_one_call",),
        breaks=A_BODY,
    ),
    WrongAnswer(
        CHAT,
        "replays the assistant turn without its keys whose value is None",
        splice(
            _CHAT_OK,
            (
                "        history.append(turn)\n",
                "        history.append({k: v for k, v in turn.items() if v is not None})\n",
            ),
        ),
        ("test_chat_loop_replay",),
        breaks=A_REPLAY,
    ),
    WrongAnswer(
        CHAT,
        "returns the content whenever the message has text, even beside tool calls",
        splice(
            _CHAT_OK, ("        if not tool_calls:\n", '        if not tool_calls or turn.get("content"):\n')
        ),
        ("test_chat_loop_zero_calls",),
        breaks=A_TEXT,
    ),
    WrongAnswer(
        CHAT,
        "treats only an absent tool_calls as no calls: tool_calls None or [] goes round again",
        splice(
            _CHAT_OK,
            (
                '        tool_calls = turn.get("tool_calls")\n        if not tool_calls:\n',
                '        tool_calls = turn.get("tool_calls")\n        if "tool_calls" not in turn:\n',
            ),
            ("        for tool_call in tool_calls:\n", "        for tool_call in tool_calls or []:\n"),
        ),
        ("test_chat_loop_zero_calls",),
        breaks=A_TEXT,
    ),
    WrongAnswer(
        CHAT,
        "adds each trace entry as a list instead of a tuple",
        splice(
            _CHAT_OK,
            (
                'trace.append((step, function["name"], function["arguments"], output))',
                'trace.append([step, function["name"], function["arguments"], output])',
            ),
        ),
        ("test_chat_loop_trace",),
        breaks=A_TRACE,
    ),
    WrongAnswer(
        CHAT,
        "raises as soon as request max_steps asks for tools, without running its calls",
        splice(
            _CHAT_OK,
            (
                "        for tool_call in tool_calls:\n",
                "        if step == max_steps:\n"
                '            raise MaxStepsExceeded(f"gave up after {max_steps} requests", trace)\n'
                "        for tool_call in tool_calls:\n",
            ),
        ),
        ("test_chat_loop_last_turn",),
        breaks=A_LAST_TURN,
    ),
    WrongAnswer(
        RESPONSES,
        'sends model "" as given instead of MODEL',
        splice(
            _RESPONSES_OK,
            (
                'request["model"] = model if model else MODEL',
                'request["model"] = MODEL if model is None else model',
            ),
        ),
        ("test_responses_loop_one_call",),
        breaks=B_BODY,
    ),
    WrongAnswer(
        RESPONSES,
        "returns the text of a message item even when the output also holds function calls",
        splice(
            _RESPONSES_OK,
            (
                "        if not function_calls:\n",
                '        if not function_calls or any(item["type"] == "message" for item in output):\n',
            ),
        ),
        ("test_responses_loop_parallel",),
        breaks=B_RUN,
    ),
    WrongAnswer(
        RESPONSES,
        "replays the reasoning and function_call items of the output only, dropping a message item beside them",
        splice(
            _RESPONSES_OK,
            (
                "        for item in output:\n            history.append(item)\n",
                "        for item in output:\n"
                '            if item["type"] in ("reasoning", "function_call") or not any(\n'
                '                    i["type"] == "function_call" for i in output):\n'
                "                history.append(item)\n",
            ),
        ),
        ("test_responses_loop_reasoning",),
        breaks=B_REPLAY,
    ),
]
