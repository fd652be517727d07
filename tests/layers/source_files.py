"""Shared by the tree checks of tests/layers: the tracked files of the repository and the comment
text of a source or build file, line by line (docs/layers.md "Tests and benchmarks")."""
import os
import re
import subprocess

SKIP_DIRS = {".git", "build", ".cache"}


def tracked_files(repo):
    """Paths relative to `repo`: `git ls-files` when it is a work tree, else a walk of it."""
    try:
        out = subprocess.run(["git", "-C", repo, "ls-files"], capture_output=True, text=True,
                             check=True).stdout
        files = [f for f in out.splitlines() if f]
        if files:
            return [f for f in files if os.path.isfile(os.path.join(repo, f))]
    except (OSError, subprocess.CalledProcessError):
        pass
    files = []
    for root, dirs, names in os.walk(repo):
        dirs[:] = [d for d in dirs if d not in SKIP_DIRS and not d.startswith("build")]
        files += [os.path.relpath(os.path.join(root, n), repo) for n in names]
    return sorted(files)


def kind(path):
    """'c' for the C family, 'hash' for CMake, shell and Python, 'text' for Markdown, else None."""
    name = os.path.basename(path)
    ext = os.path.splitext(name)[1]
    if ext in (".h", ".hpp", ".c", ".cc", ".cpp"):
        return "c"
    if name == "CMakeLists.txt" or ext in (".cmake", ".sh", ".py", ".in"):
        return "hash"
    if ext == ".md":
        return "text"
    return None


def _c_comments(text):
    """[(line, comment text)] of // and /* */ comments, skipping string and char literals."""
    out, i, line, n = [], 0, 1, len(text)
    while i < n:
        ch = text[i]
        if ch == "\n":
            line += 1
            i += 1
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append((line, text[i + 2:j]))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j
            for k, piece in enumerate(text[i + 2:j].split("\n")):
                out.append((line + k, re.sub(r"^\s*\*(?!/)", "", piece)))
            line += text.count("\n", i, j)
            i = j + 2
        elif ch == "R" and text.startswith('R"', i) and (i == 0 or not text[i - 1].isalnum()):
            m = re.match(r'R"([^(\s]*)\(', text[i:])
            if not m:
                i += 1
                continue
            end = text.find(")" + m.group(1) + '"', i)
            end = n if end < 0 else end
            line += text.count("\n", i, end)
            i = end + len(m.group(1)) + 2
        elif ch in "\"'":
            j = i + 1
            while j < n and text[j] != ch and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            i = j + 1
        else:
            i += 1
    return out


def _hash_comments(text, python):
    out = []
    in_doc = None
    for no, raw in enumerate(text.split("\n"), 1):
        if python and (in_doc or re.search(r'"""|\'\'\'', raw)):
            out.append((no, raw))  # docstrings count as comments
            for q in re.findall(r'"""|\'\'\'', raw):
                in_doc = None if in_doc == q else (in_doc or q)
            continue
        quote = None
        for i, ch in enumerate(raw):
            if quote:
                quote = None if ch == quote else quote
            elif ch in "\"'":
                quote = ch
            elif ch == "#":
                out.append((no, raw[i + 1:]))
                break
    return out


def comments(path, text):
    """[(line number, comment text)] for the file at `path` (relative or absolute)."""
    k = kind(path)
    if k == "c":
        return _c_comments(text)
    if k == "hash":
        return _hash_comments(text, path.endswith(".py"))
    if k == "text":
        return list(enumerate(text.split("\n"), 1))
    return []
