#!/usr/bin/env python3
"""Layer check (docs/layers.md "Include rules"): reads every `#include "..."` and
`#include <ai00/...>` of the C and C++ files under src/, bindings/c, include/ai00, tools/ and
examples/, resolves it to a layer, and fails on an edge the table of docs/layers.md does not
allow. It also fails when code of src/grammar or src/core names a chat format: formats give their
syntax as data (docs/chat-formats.md "Syntax as data"). tests/ and bench/ are exempt.

usage: check_layers.py <repo root>     exit 1 and one `file:line: ...` per violation.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from source_files import kind, tracked_files  # noqa: E402

SRC_LAYERS = ["base", "cpu_kernels", "weights", "tokenizer", "sampling", "model", "pipeline",
              "format", "grammar"]
# layer -> the layers it may include (itself always)
ALLOWED = {
    "base": set(),
    "cpu_kernels": {"base"},
    "weights": {"base"},
    "tokenizer": {"base"},
    "sampling": {"base"},
    "model": {"weights", "tokenizer", "sampling", "cpu_kernels", "base"},
    "pipeline": {"model", "weights", "tokenizer", "sampling", "format", "grammar", "base"},
    "format": {"base"},
    "grammar": {"base"},
    "bindings/c": set(SRC_LAYERS) | {"include/ai00/ai00.h"},
    "include/ai00": {"include/ai00"},
    "tools": {"include/ai00"},
    "examples": {"include/ai00"},
}
RULE = {
    "base": "src/base includes the standard library only",
    "cpu_kernels": "src/cpu_kernels includes base (and xsimd, TBB) only",
    "weights": "src/core/weights includes base only",
    "tokenizer": "src/core/tokenizer includes base only",
    "sampling": "src/core/sampling includes base only",
    "model": "src/core/model includes weights, tokenizer, sampling, cpu_kernels and base only",
    "pipeline": "src/core/pipeline includes model, weights, tokenizer, sampling, format, grammar "
                "and base only",
    "format": "src/format includes base only",
    "grammar": "src/grammar includes base only",
    "bindings/c": "bindings/c includes src/ and include/ai00/ai00.h only",
    "include/ai00": "include/ai00 includes ai00.h, other include/ai00 headers and std only",
    "tools": "tools/ includes include/ai00 and its own headers only",
    "examples": "examples/ includes include/ai00 and its own headers only",
}
THIRD_PARTY = re.compile(r"(xsimd|tbb|oneapi|fmt|simdjson|Eigen|catch2|benchmark)\b")
STD_ONLY = {"base", "include/ai00"}  # third-party headers are checked for these only
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
FORMAT_NAME = re.compile(r"(?i)\b(ai00[-_]?v[01]|openchatml|goose)\w*")
CODE_TOKENS = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)


def layer_of(rel):
    """The layer of a repository path, or None for a path outside the checked tree."""
    parts = rel.split("/")
    if parts[0] == "src" and len(parts) > 2:
        if parts[1] == "core" and len(parts) > 3:
            return parts[2] if parts[2] in SRC_LAYERS else None
        return parts[1] if parts[1] in SRC_LAYERS else None
    if rel.startswith("bindings/c/"):
        return "bindings/c"
    if rel.startswith("include/ai00/"):
        return "include/ai00"
    if parts[0] in ("tools", "examples"):
        return parts[0]
    return None


def resolve(repo, rel, bracket, target):
    """Repository path an include names, 'std' for a system header, or None if unresolved."""
    if bracket == "<":
        if target.startswith("ai00/"):
            return "include/" + target
        return "std"
    local = os.path.normpath(os.path.join(os.path.dirname(rel), target))
    for cand in (local, "src/" + target, "include/" + target):
        if os.path.isfile(os.path.join(repo, cand)):
            return cand
    return None


def check_includes(repo, rel, text, layer):
    bad = []
    for no, line in enumerate(text.split("\n"), 1):
        m = INCLUDE.match(line)
        if not m:
            continue
        bracket, target = m.group(1), m.group(2)
        where = f'{rel}:{no}: #include {bracket}{target}{">" if bracket == "<" else chr(34)}'
        path = resolve(repo, rel, bracket, target)
        if path is None:
            bad.append(f"{where}: does not resolve to a file of the repository")
            continue
        if path == "std":
            if layer in STD_ONLY and THIRD_PARTY.match(target):
                bad.append(f"{where}: {RULE[layer]}")
            continue
        dest = layer_of(path)
        if dest == layer:
            continue
        ok = dest in ALLOWED[layer] or path in ALLOWED[layer]
        if not ok:
            bad.append(f"{where} ({dest or path}): {RULE[layer]}")
    return bad


def check_format_names(rel, text):
    """Code (not comments) of src/grammar and src/core must not name a chat format."""
    code = CODE_TOKENS.sub(lambda m: m.group(0) if m.group(0)[0] in "\"'"
                           else re.sub(r"[^\n]", " ", m.group(0)), text)
    bad = []
    for no, line in enumerate(code.split("\n"), 1):
        for m in FORMAT_NAME.finditer(line):
            if rel.startswith("src/core/sampling/") and m.group(1).lower() == "goose":
                continue  # RWKV-7 "Goose" is also the model family its sampling presets are for
            bad.append(f"{rel}:{no}: names the chat format `{m.group(0)}`: only src/format knows "
                       f"formats; pass the syntax as data (docs/chat-formats.md)")
    return bad


def main():
    repo = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".")
    bad = []
    for rel in tracked_files(repo):
        layer = layer_of(rel)
        if layer is None or kind(rel) != "c":
            continue
        with open(os.path.join(repo, rel), encoding="utf-8", errors="replace") as f:
            text = f.read()
        bad += check_includes(repo, rel, text, layer)
        if rel.startswith(("src/grammar/", "src/core/")):
            bad += check_format_names(rel, text)
    for line in bad:
        print(line)
    print(f"check_layers: {len(bad)} violation(s)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
