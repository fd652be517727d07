#!/usr/bin/env python3
"""Cited-file check (docs/layers.md "Tests and benchmarks"): every comment of a tracked source or
build file, and every line of a Markdown file, that cites `docs/<name>.md` must name a file that
exists, each quoted heading after it (`docs/model.md "State layout", "Numerics"`) must be a
heading of that file, and a cited repository path (`src/...`, `tests/...`, ...) must exist.
Section numbers are not accepted: headings are the stable names.

usage: check_citations.py <repo root>     exit 1 and one `file:line: ...` per bad citation.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from source_files import comments, kind, tracked_files  # noqa: E402

TOP = r"(?:src|include|bindings|tools|tests|bench|examples|cmake|scripts|docs)"
DOC = re.compile(r'(?<![\w/.-])docs/([\w.-]+\.md)((?:\s*"[^"]+"(?:\s*,\s*"[^"]+")*)?)'
                 r'(\s+(?:sections?|§|s\.)\s*\d[\d.]*)?')
PATH = re.compile(r"(?<![\w./-])(" + TOP + r"/[\w./-]*\w)")
PLACEHOLDER = re.compile(r"[./]?[<{*]")  # src/format/<format>.cpp, src/core/{a,b}.*


def headings(doc_path, cache={}):
    """Heading texts of a Markdown file (outside code fences)."""
    if doc_path not in cache:
        found, fence = set(), False
        with open(doc_path, encoding="utf-8") as f:
            for line in f:
                if line.startswith("```"):
                    fence = not fence
                m = None if fence else re.match(r"#{1,6}\s+(.*?)\s*$", line)
                if m:
                    found.add(m.group(1))
        cache[doc_path] = found
    return cache[doc_path]


def blocks(entries):
    """Consecutive comment lines joined into one text, with the line of every offset."""
    out, text, lines, last = [], "", [], None
    for no, piece in entries:
        if last is not None and no != last + 1 and no != last:
            out.append((text, lines))
            text, lines = "", []
        piece = piece.strip() + " "
        text += piece
        lines += [no] * len(piece)
        last = no
    if text:
        out.append((text, lines))
    return out


def check_text(repo, rel, text, lines):
    bad = []
    for m in DOC.finditer(text):
        where = f"{rel}:{lines[m.start()]}"
        doc = os.path.join(repo, "docs", m.group(1))
        if not os.path.isfile(doc):
            bad.append(f"{where}: cites docs/{m.group(1)}, which does not exist")
            continue
        if m.group(3):
            bad.append(f"{where}: cites docs/{m.group(1)}{m.group(3)}: cite a heading by name, "
                       f"not a section number")
        for h in re.findall(r'"([^"]+)"', m.group(2)):
            if re.sub(r"\s+", " ", h) not in headings(doc):
                bad.append(f'{where}: cites docs/{m.group(1)} "{h}", which has no such heading')
    for m in PATH.finditer(text):
        if PLACEHOLDER.match(text, m.end()) or m.group(1).startswith("docs/"):
            continue
        if not os.path.exists(os.path.join(repo, m.group(1))):
            bad.append(f"{rel}:{lines[m.start()]}: cites {m.group(1)}, which does not exist")
    return bad


def main():
    repo = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".")
    bad = []
    for rel in tracked_files(repo):
        if kind(rel) is None:
            continue
        with open(os.path.join(repo, rel), encoding="utf-8", errors="replace") as f:
            text = f.read()
        for block, lines in blocks(comments(rel, text)):
            bad += check_text(repo, rel, block, lines)
    for line in bad:
        print(line)
    print(f"check_citations: {len(bad)} bad citation(s)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
