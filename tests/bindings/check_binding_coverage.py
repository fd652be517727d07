#!/usr/bin/env python3
"""Every exported function of include/ai00/ai00.h is bound by every language binding.

    check_binding_coverage.py <repository root>

Lists the functions the header exports (`AI00_API <type> ai00_name(`), then for every directory
under bindings/ except `c` (the C implementation itself) fails when a function is neither used
by that binding's library sources nor listed in bindings/<lang>/abi_not_applicable.txt as
`function_name: reason`. The list stays honest: a listed name that is not in the header, is
listed twice, has no reason, or is in fact used, is an error too.

"Used" means the name occurs as a whole word in a library source file, outside comments, on a
line that is not merely its foreign declaration (a Rust `fn ai00_x(` or a C#/C `extern ...
ai00_x(` line), so declaring or documenting a function without wrapping it does not count.
Comments are whole lines starting with `//`, `/*`, `*` or (Python) `#`; a Go cgo preamble (the
comment right above `import "C"`) is C code and counts. Tests and examples are not library
sources: a function reachable only from a test is not bound. Standard library only.
"""
import os
import re
import sys

from c_header import header_text  # ai00.h with its ai00/c parts

SOURCE_EXTENSIONS = {".rs", ".go", ".py", ".js", ".mjs", ".cjs", ".ts", ".mts", ".cs", ".c",
                     ".h", ".cpp", ".hpp"}
# Directories that hold build output, dependencies, tests or examples, not the binding itself.
SKIPPED_DIRS = {"target", "build", "node_modules", "bin", "obj", "__pycache__", ".git",
                "tests", "test", "__tests__", "examples", "example", "testdata", "dist"}
TEST_FILE = re.compile(r"(_test\.go|^test_.*\.py|_test\.py|\.test\.[mc]?[jt]s|Tests?\.cs)$")
EXPORT = re.compile(r"AI00_API\s+[^;(]*?\b(ai00_[A-Za-z0-9_]+)\s*\(")
NOT_APPLICABLE = "abi_not_applicable.txt"


def exported_functions(header_path):
    text = header_text(header_path)
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)  # comments may quote declarations
    names = EXPORT.findall(text)
    return sorted(set(names))


def is_declaration(line, name):
    return (re.search(r"\bfn\s+" + name + r"\s*\(", line) is not None or
            re.search(r"\bextern\b.*\b" + name + r"\s*\(", line) is not None)


def binding_sources(lang_dir):
    for root, dirs, files in os.walk(lang_dir):
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS and not d.startswith("."))
        for name in sorted(files):
            if os.path.splitext(name)[1] in SOURCE_EXTENSIONS and not TEST_FILE.search(name):
                yield os.path.join(root, name)


def code_lines(path):
    """The lines of a source file that are code (see the module comment)."""
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = f.read().split("\n")
    ext = os.path.splitext(path)[1]
    comment = re.compile(r"^\s*(#|//|/\*|\*)" if ext == ".py" else r"^\s*(//|/\*|\*)")
    keep = [not comment.match(line) for line in lines]
    if ext == ".go":  # the comment block right above import "C" is the cgo preamble
        for i, line in enumerate(lines):
            if line.strip() == 'import "C"':
                j = i - 1
                while j >= 0 and lines[j].lstrip().startswith("//"):
                    keep[j] = True
                    j -= 1
    return [line for line, k in zip(lines, keep) if k]


def used_functions(lang_dir, functions):
    word = re.compile(r"\bai00_[A-Za-z0-9_]+\b")
    wanted = set(functions)
    used = set()
    for path in binding_sources(lang_dir):
        for line in code_lines(path):
            for name in set(word.findall(line)) & wanted:
                if not is_declaration(line, name):
                    used.add(name)
    return used


def read_not_applicable(path, errors, rel):
    listed = {}
    if not os.path.exists(path):
        return listed
    with open(path, encoding="utf-8") as f:
        for number, raw in enumerate(f, 1):
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            name, sep, reason = line.partition(":")
            name, reason = name.strip(), reason.strip()
            if not sep or not reason:
                errors.append(f"{rel}:{number}: '{line}' needs the form 'function_name: reason'")
            elif name in listed:
                errors.append(f"{rel}:{number}: {name} is listed twice")
            else:
                listed[name] = number
    return listed


def main(argv):
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    root = argv[1]
    functions = exported_functions(os.path.join(root, "include", "ai00", "ai00.h"))
    if not functions:
        print("check_binding_coverage: no AI00_API function found in include/ai00/ai00.h")
        return 1
    bindings_dir = os.path.join(root, "bindings")
    languages = sorted(d for d in os.listdir(bindings_dir)
                       if d != "c" and os.path.isdir(os.path.join(bindings_dir, d)))
    errors = []
    for lang in languages:
        lang_dir = os.path.join(bindings_dir, lang)
        rel = f"bindings/{lang}/{NOT_APPLICABLE}"
        listed = read_not_applicable(os.path.join(lang_dir, NOT_APPLICABLE), errors, rel)
        used = used_functions(lang_dir, functions)
        for name in functions:
            if name not in used and name not in listed:
                errors.append(f"bindings/{lang}: {name} is neither used nor listed in {rel}")
        for name, number in sorted(listed.items(), key=lambda kv: kv[1]):
            if name not in functions:
                errors.append(f"{rel}:{number}: {name} is not exported by include/ai00/ai00.h")
            elif name in used:
                errors.append(f"{rel}:{number}: {name} is used by the binding; remove the line")
        print(f"bindings/{lang}: {len(used)} of {len(functions)} functions used, "
              f"{len(listed)} listed as not applicable")
    for error in errors:
        print(error)
    if errors:
        print(f"check_binding_coverage: {len(errors)} problem(s)")
        return 1
    print(f"check_binding_coverage: {len(functions)} functions, {len(languages)} binding(s), ok")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
