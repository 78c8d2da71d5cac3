"""Independent answers to notebook 03, written from its prose alone (see this package's docstring)."""

from __future__ import annotations

from grading.independent_answers import IndependentAnswer

COUNT_A = """
requests_parallel = 3
requests_one_per_turn = 6
tool_messages_parallel = 5
tool_messages_one_per_turn = 5
"""

COUNT_B = """
# four weather calls in one turn, then the email, then the answer
requests_parallel = 1 + 1 + 1
# one city per turn: four turns, the email, the answer
requests_one_per_turn = 4 + 1 + 1
tool_messages_parallel = 4 + 1
tool_messages_one_per_turn = 4 + 1
"""

COUNT_C = """
cities = ["Paris", "Bogota", "Oslo", "Lima"]
requests_parallel = 3
requests_one_per_turn = len(cities) + 2
tool_messages_parallel = tool_messages_one_per_turn = len(cities) + 1
"""

PLAIN_CHAT = """
def chat_tool_loop(base, user_text, toolbox, names, *, max_steps=5, confirm=None, tool_choice=None, sticky=False,
                   model=None, **extra):
    messages = [{"role": "user", "content": user_text}]
    tools = [{"type": "function", "function": toolbox[name].declaration()} for name in names]
    trace = []
    for step in range(1, max_steps + 1):
        body = {"model": model or MODEL, "tools": tools, **extra, "messages": messages}
        if tool_choice is not None and (step == 1 or sticky):
            body["tool_choice"] = tool_choice
        answer = post_json(base, "/chat/completions", body)
        message = answer["choices"][0]["message"]
        messages.append(message)
        calls = message.get("tool_calls") or []
        if not calls:
            text = message.get("content")
            return ("" if text is None else text), trace
        for call in calls:
            name = call["function"]["name"]
            arguments = call["function"]["arguments"]
            result = toolbox.run(name, arguments, names, confirm)
            trace.append((step, name, arguments, result))
            messages.append({"role": "tool", "tool_call_id": call["id"], "content": result})
    raise MaxStepsExceeded(f"no final answer after {max_steps} requests", trace)
"""

PLAIN_RESPONSES = """
def responses_tool_loop(base, user_text, toolbox, names, *, max_steps=5, confirm=None, tool_choice=None,
                        sticky=False, model=None, **extra):
    items = [{"role": "user", "content": user_text}]
    tools = [{"type": "function", **toolbox[name].declaration()} for name in names]
    trace = []
    for step in range(1, max_steps + 1):
        body = {"model": model or MODEL, "tools": tools, **extra, "input": items}
        if tool_choice is not None and (step == 1 or sticky):
            body["tool_choice"] = tool_choice
        answer = post_json(base, "/responses", body)
        output = answer["output"]
        items.extend(output)
        calls = [item for item in output if item["type"] == "function_call"]
        if not calls:
            parts = []
            for item in output:
                if item["type"] == "message":
                    parts += [part["text"] for part in item["content"] if part["type"] == "output_text"]
            return "".join(parts), trace
        for call in calls:
            result = toolbox.run(call["name"], call["arguments"], names, confirm)
            trace.append((step, call["name"], call["arguments"], result))
            items.append({"type": "function_call_output", "call_id": call["call_id"], "output": result})
    raise MaxStepsExceeded(f"no final answer after {max_steps} requests", trace)
"""

HELPERS_CHAT = '''
def _request_body(model, tools, extra, history_key, history, tool_choice, include_choice):
    body = {"model": model or MODEL, "tools": tools}
    body.update(extra)
    body[history_key] = history
    if include_choice and tool_choice is not None:
        body["tool_choice"] = tool_choice
    return body


def _run_calls(toolbox, calls, names, confirm, step, trace):
    """Run (name, arguments, call id) triples in order; return [(call id, result)]."""
    answered = []
    for name, arguments, call_id in calls:
        outcome = toolbox.run(name, arguments, names, confirm)
        trace.append((step, name, arguments, outcome))
        answered.append((call_id, outcome))
    return answered


def chat_tool_loop(base, user_text, toolbox, names, *, max_steps=5, confirm=None, tool_choice=None, sticky=False,
                   model=None, **extra):
    history = [{"role": "user", "content": user_text}]
    offered = [{"type": "function", "function": toolbox[n].declaration()} for n in names]
    trace = []
    step = 0
    while step < max_steps:
        step += 1
        body = _request_body(model, offered, extra, "messages", history, tool_choice, sticky or step == 1)
        reply = post_json(base, "/chat/completions", body)["choices"][0]["message"]
        history.append(reply)
        tool_calls = reply.get("tool_calls")
        if not tool_calls:
            return reply.get("content") or "", trace
        triples = [(c["function"]["name"], c["function"]["arguments"], c["id"]) for c in tool_calls]
        for call_id, outcome in _run_calls(toolbox, triples, names, confirm, step, trace):
            history.append({"role": "tool", "tool_call_id": call_id, "content": outcome})
    raise MaxStepsExceeded("the model was still calling tools after %d requests" % max_steps, trace)
'''

HELPERS_RESPONSES = """
def _output_text(output):
    return "".join(
        part["text"]
        for item in output
        if item["type"] == "message"
        for part in item["content"]
        if part["type"] == "output_text"
    )


def responses_tool_loop(base, user_text, toolbox, names, *, max_steps=5, confirm=None, tool_choice=None,
                        sticky=False, model=None, **extra):
    history = [{"role": "user", "content": user_text}]
    offered = [dict(type="function", **toolbox[n].declaration()) for n in names]
    trace = []
    step = 0
    while step < max_steps:
        step += 1
        body = _request_body(model, offered, extra, "input", history, tool_choice, sticky or step == 1)
        output = post_json(base, "/responses", body)["output"]
        history += output
        triples = [(i["name"], i["arguments"], i["call_id"]) for i in output if i["type"] == "function_call"]
        if not triples:
            return _output_text(output), trace
        for call_id, outcome in _run_calls(toolbox, triples, names, confirm, step, trace):
            history.append({"type": "function_call_output", "call_id": call_id, "output": outcome})
    raise MaxStepsExceeded("the model was still calling tools after %d requests" % max_steps, trace)
"""

TERSE_CHAT = """
def chat_tool_loop(base, user_text, toolbox, names, *, max_steps=5, confirm=None, tool_choice=None, sticky=False,
                   model=None, **extra):
    msgs, trace = [{"role": "user", "content": user_text}], []
    specs = [{"type": "function", "function": toolbox[n].declaration()} for n in names]
    for n in range(max_steps):
        req = dict(model=model or MODEL, tools=specs, **extra)
        req["messages"] = msgs
        if tool_choice is not None and (sticky or n == 0):
            req["tool_choice"] = tool_choice
        msg = post_json(base, "/chat/completions", req)["choices"][0]["message"]
        msgs.append(msg)
        if not msg.get("tool_calls"):
            return msg.get("content") or "", trace
        for tc in msg["tool_calls"]:
            fn = tc["function"]
            out = toolbox.run(fn["name"], fn["arguments"], names, confirm)
            trace.append((n + 1, fn["name"], fn["arguments"], out))
            msgs.append({"role": "tool", "tool_call_id": tc["id"], "content": out})
    raise MaxStepsExceeded("step limit reached", trace)
"""

TERSE_RESPONSES = """
def responses_tool_loop(base, user_text, toolbox, names, *, max_steps=5, confirm=None, tool_choice=None,
                        sticky=False, model=None, **extra):
    inp, trace = [{"role": "user", "content": user_text}], []
    specs = [{"type": "function", **toolbox[n].declaration()} for n in names]
    for n in range(max_steps):
        req = dict(model=model or MODEL, tools=specs, **extra)
        req["input"] = inp
        if tool_choice is not None and (sticky or n == 0):
            req["tool_choice"] = tool_choice
        out = post_json(base, "/responses", req)["output"]
        inp.extend(out)
        fcs = [o for o in out if o["type"] == "function_call"]
        if not fcs:
            return "".join(p["text"] for o in out if o["type"] == "message" for p in o["content"]
                           if p["type"] == "output_text"), trace
        for fc in fcs:
            res = toolbox.run(fc["name"], fc["arguments"], names, confirm)
            trace.append((n + 1, fc["name"], fc["arguments"], res))
            inp.append({"type": "function_call_output", "call_id": fc["call_id"], "output": res})
    raise MaxStepsExceeded("step limit reached", trace)
"""

ANSWERS = [
    IndependentAnswer("plain", {"chat_tool_loop": PLAIN_CHAT, "responses_tool_loop": PLAIN_RESPONSES,
                                "count_the_requests": COUNT_A}),
    IndependentAnswer("helpers", {"chat_tool_loop": HELPERS_CHAT, "responses_tool_loop": HELPERS_RESPONSES,
                                  "count_the_requests": COUNT_B}),
    IndependentAnswer("terse", {"chat_tool_loop": TERSE_CHAT, "responses_tool_loop": TERSE_RESPONSES,
                                "count_the_requests": COUNT_C}),
]  # fmt: skip
