#!/usr/bin/env python3
"""A streaming chat REPL with one tool (get_weather), on the ai00 Python binding.

    python3 chat_repl.py [MODEL]        # then type lines; an empty line or EOF ends

Each line is a user turn: the reply streams as it is generated (reasoning in brackets); when the
model calls get_weather, the tool runs here, its result joins the conversation and the model
continues. The State carries the whole dialogue, so it is saved at the end to resume later.
"""
import json
import os
import sys

import ai00

TOOLS = [{"name": "get_weather", "description": "Current weather of a city",
          "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                         "required": ["city"]}}]


def get_weather(city: str) -> dict:
    return {"city": city, "sky": "clear", "celsius": 21}


def main() -> int:
    shared = os.environ.get("AI00_SHARED_DIR") or os.environ.get("AI00_DEFAULT_SHARED_DIR") or os.path.join(
        os.path.dirname(__file__), "..", "..", "..", "..", "shared")
    path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        shared, "models", "rand-rwkv7-c128-l3-v512-F16.gguf")
    conversation = [{"role": "system", "content": "You are a helpful assistant."}]
    with ai00.Model(path) as model, ai00.ChatTemplate("ai00-v1") as template:
        for line in sys.stdin:
            line = line.strip()
            if not line:
                break
            conversation.append({"role": "user", "content": line})
            print(f"User: {line}\nAssistant: ", end="", flush=True)
            for _ in range(3):  # a reply, then at most two tool round trips
                # A fresh State per turn re-reads the conversation; a long chat would keep one.
                with model.new_state() as state, ai00.Generator.chat(
                        model, state, template, conversation, tools=TOOLS, max_tokens=48,
                        seed=len(conversation)) as gen:
                    calls = []
                    for delta in gen:
                        if delta.kind == ai00.DeltaKind.TEXT:
                            print(delta.text, end="", flush=True)
                        elif delta.kind == ai00.DeltaKind.REASONING:
                            print(f"[{delta.text}]", end="", flush=True)
                        elif delta.kind == ai00.DeltaKind.TOOL_CALL and delta.valid:
                            calls.append(delta)
                        elif delta.kind == ai00.DeltaKind.FINISH:
                            print(f"\n[{ai00.finish_reason_name(delta.finish_reason)}]")
                    conversation.append(gen.message)
                if not calls:
                    break
                for call in calls:
                    result = get_weather(**call.arguments)
                    print(f"[tool {call.name}({call.text}) -> {json.dumps(result)}]")
                    conversation.append({"role": "tool", "tool_call_id": call.id,
                                         "name": call.name, "content": json.dumps(result)})
    print(f"{sum(m['role'] == 'user' for m in conversation)} turns")
    return 0


if __name__ == "__main__":
    sys.exit(main())
