"""The chat REPL example runs non-interactively on piped input."""
import os
import pathlib
import subprocess
import sys

from conftest import MODEL

EXAMPLE = pathlib.Path(__file__).resolve().parents[1] / "examples" / "chat_repl.py"


def test_chat_repl_with_piped_input():
    env = dict(os.environ, PYTHONPATH=str(EXAMPLE.parents[1]))
    out = subprocess.run([sys.executable, str(EXAMPLE), str(MODEL)], input="Hi there\nWeather in Oslo?\n",
                         capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.count("Assistant: ") == 2
    assert out.stdout.strip().endswith("2 turns")
