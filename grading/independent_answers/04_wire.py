"""Independent answers to notebook 04, written from its prose alone (see this package's docstring)."""

from __future__ import annotations

from grading.independent_answers import IndependentAnswer

PLAIN = {
    "tool_specs": """
def tool_specs(toolbox, names, api):
    if api != "chat" and api != "responses":
        raise ValueError(f"unknown api {api!r}")
    specs = []
    for name in names:
        if name not in toolbox:
            raise ValueError(f"no tool named {name!r}")
        tool = toolbox[name]
        fields = {"name": tool.name, "description": tool.description,
                  "parameters": copy.deepcopy(tool.parameters), "strict": True}
        if api == "chat":
            specs.append({"type": "function", "function": fields})
        else:
            specs.append({"type": "function", **fields})
    return specs
""",
    "is_strict_compatible": """
def is_strict_compatible(schema):
    problems = []

    def visit(node, path):
        kind = node.get("type")
        is_object = kind == "object" or (isinstance(kind, list) and "object" in kind)
        if is_object:
            if node.get("additionalProperties") is not False:
                problems.append(f"{path}: additionalProperties must be false")
            required = node.get("required", [])
            for key in node.get("properties", {}):
                if key not in required:
                    problems.append(f"{path}: property {key!r} is not in required")
        for key, child in node.get("properties", {}).items():
            visit(child, f"{path}.{key}")
        if isinstance(node.get("items"), dict):
            visit(node["items"], path + "[]")

    visit(schema, "$")
    return problems
""",
    "second_request_messages": """
def second_request_messages(user_text, first_reply, results):
    assistant = first_reply["choices"][0]["message"]
    messages = [{"role": "user", "content": user_text}, assistant]
    for call in assistant["tool_calls"]:
        messages.append({"role": "tool", "tool_call_id": call["id"], "content": results[call["id"]]})
    return messages
""",
    "assemble_chat_stream": """
def assemble_chat_stream(events):
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
            for piece in delta.get("tool_calls") or []:
                function = piece.get("function") or {}
                if piece["index"] not in calls:
                    if piece.get("id") is None or function.get("name") is None:
                        raise ModelTurnError("a tool call's first delta has no id or name")
                    calls[piece["index"]] = {"id": piece["id"], "type": "function",
                                             "function": {"name": function["name"], "arguments": ""}}
                if function.get("arguments") is not None:
                    calls[piece["index"]]["function"]["arguments"] += function["arguments"]
            if choice.get("finish_reason") is not None:
                finish = choice["finish_reason"]
    if finish is None:
        raise ModelTurnError("the stream never finished")
    if finish in ("length", "content_filter"):
        raise ModelTurnError(f"the turn was cut short: {finish}")
    message = {"role": "assistant", "content": content}
    if calls:
        message["tool_calls"] = [calls[index] for index in sorted(calls)]
    return message
""",
    "assemble_responses_stream": """
def assemble_responses_stream(events):
    items = {}
    completed = False
    for event in events:
        kind = event["type"]
        if kind == "response.completed":
            completed = True
            break
        if kind in ("response.incomplete", "response.failed", "error"):
            raise ModelTurnError(f"the response ended with {kind}")
        if kind == "response.output_item.added":
            item = copy.deepcopy(event["item"])
            if item.get("type") == "function_call":
                item["arguments"] = ""
            elif item.get("type") == "message":
                item["content"] = []
            items[event["output_index"]] = item
            continue
        if "output_index" not in event:
            continue
        if event["output_index"] not in items:
            raise ModelTurnError("an event names an item that was never added")
        item = items[event["output_index"]]
        if kind == "response.function_call_arguments.delta":
            item["arguments"] += event["delta"]
        elif kind == "response.function_call_arguments.done":
            if event["arguments"] != item["arguments"]:
                raise ModelTurnError("the arguments differ from their deltas")
        elif kind == "response.content_part.added":
            item["content"].append({**copy.deepcopy(event["part"]), "text": ""})
        elif kind == "response.output_text.delta":
            item["content"][event["content_index"]]["text"] += event["delta"]
        elif kind == "response.output_item.done":
            if item.get("type") in ("function_call", "message"):
                item["status"] = event["item"]["status"]
            else:
                items[event["output_index"]] = copy.deepcopy(event["item"])
    if not completed:
        raise ModelTurnError("the stream ended before response.completed")
    return [items[index] for index in sorted(items)]
""",
    "chained_responses_loop": """
def chained_responses_loop(base, user_text, toolbox, names, *, max_steps=5, confirm=None, model=None, **extra):
    trace = []
    tools = tool_specs(toolbox, names, "responses")
    new_input = [{"role": "user", "content": user_text}]
    previous = None
    for step in range(1, max_steps + 1):
        body = {"model": model or MODEL, "tools": tools, **extra, "input": new_input}
        if previous is not None:
            body["previous_response_id"] = previous
        answer = post_json(base, "/responses", body)
        calls = [item for item in answer["output"] if item["type"] == "function_call"]
        if not calls:
            return "".join(part["text"] for item in answer["output"] if item["type"] == "message"
                           for part in item["content"] if part["type"] == "output_text"), trace
        new_input = []
        for call in calls:
            result = toolbox.run(call["name"], call["arguments"], names, confirm)
            trace.append((step, call["name"], call["arguments"], result))
            new_input.append({"type": "function_call_output", "call_id": call["call_id"], "output": result})
        previous = answer["id"]
    raise MaxStepsExceeded(f"no answer in {max_steps} requests", trace)
""",
}

HELPERS = {
    "tool_specs": """
def _entry(tool, api):
    body = {
        "name": tool.name,
        "description": tool.description,
        "parameters": copy.deepcopy(tool.parameters),
        "strict": True,
    }
    return {"type": "function", "function": body} if api == "chat" else dict(type="function", **body)


def tool_specs(toolbox, names, api):
    if api not in ("chat", "responses"):
        raise ValueError("api must be 'chat' or 'responses'")
    wanted = list(names)
    unknown = [name for name in wanted if name not in toolbox]
    if unknown:
        raise ValueError("unknown tools: " + ", ".join(map(repr, unknown)))
    return [_entry(toolbox[name], api) for name in wanted]
""",
    "is_strict_compatible": """
def _object_schema(schema):
    declared = schema.get("type")
    return "object" in declared if isinstance(declared, list) else declared == "object"


def is_strict_compatible(schema):
    found = []
    pending = [("$", schema)]
    while pending:
        path, current = pending.pop()
        properties = current.get("properties", {})
        if _object_schema(current):
            if current.get("additionalProperties", None) is not False:
                found.append(path + ": additionalProperties is not false")
            listed = set(current.get("required", ()))
            found += [f"{path}: property '{key}' is not in required" for key in properties if key not in listed]
        pending += [(f"{path}.{key}", sub) for key, sub in properties.items()]
        if isinstance(current.get("items"), dict):
            pending.append((f"{path}[]", current["items"]))
    return found
""",
    "second_request_messages": """
def second_request_messages(user_text, first_reply, results):
    turn = first_reply["choices"][0]["message"]
    answers = [dict(role="tool", tool_call_id=c["id"], content=results[c["id"]]) for c in turn["tool_calls"]]
    return [dict(role="user", content=user_text), turn, *answers]
""",
    "assemble_chat_stream": """
class _Call:
    def __init__(self, delta):
        fn = delta.get("function") or {}
        if delta.get("id") is None or fn.get("name") is None:
            raise ModelTurnError("tool call delta without id or name")
        self.id, self.name, self.pieces = delta["id"], fn["name"], []

    def add(self, delta):
        fragment = (delta.get("function") or {}).get("arguments")
        if fragment is not None:
            self.pieces.append(fragment)

    def as_dict(self):
        return {"id": self.id, "type": "function", "function": {"name": self.name, "arguments": "".join(self.pieces)}}


def assemble_chat_stream(events):
    texts, calls, reason = [], {}, None
    for chunk in events:
        if chunk == "[DONE]":
            break
        first = [c for c in chunk["choices"] if c["index"] == 0]
        for choice in first:
            delta = choice["delta"]
            if delta.get("content") is not None:
                texts.append(delta["content"])
            for part in delta.get("tool_calls") or ():
                if part["index"] not in calls:
                    calls[part["index"]] = _Call(part)
                calls[part["index"]].add(part)
            reason = choice.get("finish_reason") or reason
    if reason is None:
        raise ModelTurnError("no finish_reason")
    if reason in {"length", "content_filter"}:
        raise ModelTurnError("unfinished turn: " + reason)
    result = {"role": "assistant", "content": "".join(texts) if texts else None}
    if calls:
        result["tool_calls"] = [calls[i].as_dict() for i in sorted(calls)]
    return result
""",
    "assemble_responses_stream": """
FAILURES = {"response.incomplete", "response.failed", "error"}


def _opened(item):
    fresh = copy.deepcopy(item)
    if fresh.get("type") == "function_call":
        fresh["arguments"] = ""
    if fresh.get("type") == "message":
        fresh["content"] = []
    return fresh


def assemble_responses_stream(events):
    out = {}

    def target(event):
        if event["output_index"] not in out:
            raise ModelTurnError(f"output_index {event['output_index']} was never added")
        return out[event["output_index"]]

    for event in events:
        t = event["type"]
        if t in FAILURES:
            raise ModelTurnError(t)
        if t == "response.completed":
            return [out[i] for i in sorted(out)]
        if t == "response.output_item.added":
            out[event["output_index"]] = _opened(event["item"])
        elif t == "response.function_call_arguments.delta":
            target(event)["arguments"] += event["delta"]
        elif t == "response.function_call_arguments.done" and target(event)["arguments"] != event["arguments"]:
            raise ModelTurnError("arguments done differ from the deltas")
        elif t == "response.content_part.added":
            part = copy.deepcopy(event["part"])
            part["text"] = ""
            target(event)["content"].append(part)
        elif t == "response.output_text.delta":
            target(event)["content"][event["content_index"]]["text"] += event["delta"]
        elif t == "response.output_item.done":
            current = target(event)
            if current.get("type") in ("function_call", "message"):
                current["status"] = event["item"]["status"]
            else:
                out[event["output_index"]] = copy.deepcopy(event["item"])
    raise ModelTurnError("no response.completed")
""",
    "chained_responses_loop": """
def _final_text(output):
    messages = [o for o in output if o["type"] == "message"]
    return "".join(p["text"] for o in messages for p in o["content"] if p["type"] == "output_text")


def chained_responses_loop(base, user_text, toolbox, names, *, max_steps=5, confirm=None, model=None, **extra):
    offered = tool_specs(toolbox, names, "responses")
    trace, step, chain = [], 0, {}
    items = [{"role": "user", "content": user_text}]
    while step < max_steps:
        step += 1
        answer = post_json(base, "/responses", {"model": model or MODEL, "tools": offered, **extra, **chain,
                                                "input": items})
        wanted = [o for o in answer["output"] if o["type"] == "function_call"]
        if not wanted:
            return _final_text(answer["output"]), trace
        items = []
        for call in wanted:
            text = toolbox.run(call["name"], call["arguments"], names, confirm)
            trace.append((step, call["name"], call["arguments"], text))
            items.append({"type": "function_call_output", "call_id": call["call_id"], "output": text})
        chain = {"previous_response_id": answer["id"]}
    raise MaxStepsExceeded("still calling tools after the last request", trace)
""",
}

TERSE = {
    "tool_specs": """
def tool_specs(toolbox, names, api):
    if api not in ("chat", "responses"):
        raise ValueError(api)
    out = []
    for n in names:
        try:
            t = toolbox[n] if n in toolbox else None
        except TypeError:
            t = None
        if t is None:
            raise ValueError(f"unknown tool {n!r}")
        f = dict(name=t.name, description=t.description, parameters=copy.deepcopy(t.parameters), strict=True)
        out.append({"type": "function", "function": f} if api == "chat" else {"type": "function", **f})
    return out
""",
    "is_strict_compatible": """
def is_strict_compatible(schema, path="$"):
    t = schema.get("type")
    probs = []
    if t == "object" or (type(t) is list and "object" in t):
        if schema.get("additionalProperties") is not False:
            probs.append(path + ": needs additionalProperties: false")
        probs += [f"{path}: property '{k}' is not in required" for k in schema.get("properties", {})
                  if k not in schema.get("required", [])]
    for k, sub in schema.get("properties", {}).items():
        probs += is_strict_compatible(sub, f"{path}.{k}")
    if type(schema.get("items")) is dict:
        probs += is_strict_compatible(schema["items"], path + "[]")
    return probs
""",
    "second_request_messages": """
def second_request_messages(user_text, first_reply, results):
    m = first_reply["choices"][0]["message"]
    return [{"role": "user", "content": user_text}, m] + [
        {"role": "tool", "tool_call_id": tc["id"], "content": results[tc["id"]]} for tc in m["tool_calls"]]
""",
    "assemble_chat_stream": """
def assemble_chat_stream(events):
    text, ids, names, args, done = None, {}, {}, {}, None
    for ev in events:
        if ev == "[DONE]":
            break
        for ch in ev["choices"]:
            if ch["index"]:
                continue
            d = ch["delta"]
            if d.get("content") is not None:
                text = (text or "") + d["content"]
            for tc in d.get("tool_calls") or []:
                i, fn = tc["index"], tc.get("function") or {}
                if i not in ids:
                    if tc.get("id") is None or fn.get("name") is None:
                        raise ModelTurnError("call without id or name")
                    ids[i], names[i], args[i] = tc["id"], fn["name"], ""
                args[i] += fn.get("arguments") or ""
            done = ch.get("finish_reason") if ch.get("finish_reason") is not None else done
    if done is None or done in ("length", "content_filter"):
        raise ModelTurnError(f"turn not finished ({done})")
    msg = {"role": "assistant", "content": text}
    if ids:
        msg["tool_calls"] = [{"id": ids[i], "type": "function", "function": {"name": names[i], "arguments": args[i]}}
                             for i in sorted(ids)]
    return msg
""",
    "assemble_responses_stream": """
def assemble_responses_stream(events):
    got = {}
    for e in events:
        t = e["type"]
        if t == "response.completed":
            return [got[k] for k in sorted(got)]
        if t in ("response.incomplete", "response.failed", "error"):
            raise ModelTurnError(t)
        if t == "response.output_item.added":
            it = copy.deepcopy(e["item"])
            it.update({"function_call": {"arguments": ""}, "message": {"content": []}}.get(it.get("type"), {}))
            got[e["output_index"]] = it
            continue
        if "output_index" in e and e["output_index"] not in got:
            raise ModelTurnError("unknown output_index")
        if t == "response.function_call_arguments.delta":
            got[e["output_index"]]["arguments"] += e["delta"]
        elif t == "response.function_call_arguments.done":
            if got[e["output_index"]]["arguments"] != e["arguments"]:
                raise ModelTurnError("arguments mismatch")
        elif t == "response.content_part.added":
            got[e["output_index"]]["content"].append(dict(copy.deepcopy(e["part"]), text=""))
        elif t == "response.output_text.delta":
            got[e["output_index"]]["content"][e["content_index"]]["text"] += e["delta"]
        elif t == "response.output_item.done":
            it = got[e["output_index"]]
            if it.get("type") in ("function_call", "message"):
                it["status"] = e["item"]["status"]
            else:
                got[e["output_index"]] = copy.deepcopy(e["item"])
    raise ModelTurnError("stream ended early")
""",
    "chained_responses_loop": """
def chained_responses_loop(base, user_text, toolbox, names, *, max_steps=5, confirm=None, model=None, **extra):
    specs, trace, prev = tool_specs(toolbox, names, "responses"), [], None
    inp = [{"role": "user", "content": user_text}]
    for n in range(1, max_steps + 1):
        req = dict(model=model or MODEL, tools=specs, **extra)
        req["input"] = inp
        if prev:
            req["previous_response_id"] = prev
        r = post_json(base, "/responses", req)
        fcs = [o for o in r["output"] if o["type"] == "function_call"]
        if not fcs:
            return "".join(p["text"] for o in r["output"] if o["type"] == "message" for p in o["content"]
                           if p["type"] == "output_text"), trace
        inp = []
        for fc in fcs:
            res = toolbox.run(fc["name"], fc["arguments"], names, confirm)
            trace.append((n, fc["name"], fc["arguments"], res))
            inp.append({"type": "function_call_output", "call_id": fc["call_id"], "output": res})
        prev = r["id"]
    raise MaxStepsExceeded("step limit", trace)
""",
}

ANSWERS = [
    IndependentAnswer("plain", PLAIN),
    IndependentAnswer("helpers", HELPERS),
    IndependentAnswer("terse", TERSE),
]
