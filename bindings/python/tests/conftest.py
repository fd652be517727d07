"""Fixtures of the ai00 Python suite: the shared models ($AI00_SHARED_DIR, default <repo>/../shared)
and, from ctest, the C reference programs ($AI00_REFERENCE_TURN, $AI00_EXAMPLE_CHAT_TURN)."""
import os
import pathlib
import sys

import pytest

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # the package in this folder, without installing it

import ai00  # noqa: E402

REPO = HERE.parents[2]
SHARED = pathlib.Path(os.environ.get("AI00_SHARED_DIR") or os.environ.get("AI00_DEFAULT_SHARED_DIR")
                      or REPO.parent / "shared")
MODEL = SHARED / "models" / "rand-rwkv7-c128-l3-v512-F16.gguf"
TINY = SHARED / "models" / "tiny-rwkv-7v0-834K-FP32.bin"
VOCAB = SHARED / "tokenizer" / "rwkv_vocab_v20230424.txt"
TOOLS = [{"name": "get_weather", "description": "Weather of a city",
          "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                         "required": ["city"]}}]
# The conversation of examples/c/chat_turn.c.
CHAT = [{"role": "system", "content": "You are a helpful assistant."},
        {"role": "user", "content": "Hello! Who are you?"}]


@pytest.fixture(scope="session")
def model():
    with ai00.Model(MODEL) as m:
        yield m


@pytest.fixture
def state(model):
    with model.new_state() as s:
        yield s
