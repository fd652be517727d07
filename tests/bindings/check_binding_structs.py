#!/usr/bin/env python3
"""Every struct a language binding re-declares has the header's fields, in the header's order.

    check_binding_structs.py <repository root>

ctypes (Python), koffi (Node), #[repr(C)] (Rust) and [StructLayout(Sequential)] (C#) copy the
layout of each ai00.h struct by hand; Go's cgo reads the header itself and is not checked. When a
field is appended to a versioned struct and one binding is not updated, its struct is shorter
than the library's: the library then ignores the new field at best (struct_size tells it the
older size) and, for a struct it writes into, the binding reads garbage. This check fails on
such a copy: a missing, extra, renamed or reordered field, naming the binding, the struct and
the first difference. Binding struct names map to header ones by dropping `ai00_`, case and
underscores and a trailing `C` (ModelInfoC -> ai00_model_info); ALIASES lists the others. A
binding struct that maps to no header struct is an error too, so a renamed struct is noticed.
Standard library only.
"""
import os
import re
import sys

from c_header import header_text  # ai00.h with its ai00/c parts

# Binding struct name (normalised) -> header struct name, where dropping the prefix is not enough.
ALIASES = {"checkresult": "ai00_grammar_check_result"}


def norm(name):
    n = name.lower().replace("_", "")
    if n.startswith("ai00"):
        n = n[4:]
    if n.endswith("c") and not n.endswith("logitbiasc"):
        n = n[:-1] if n[:-1] else n
    return n


def header_structs(path):
    text = header_text(path)
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    out = {}
    for m in re.finditer(r"typedef struct (ai00_\w+) \{(.*?)\} \1;", text, flags=re.S):
        fields = []
        for decl in m.group(2).split(";"):
            decl = decl.strip()
            if not decl:
                continue
            fp = re.search(r"\(\s*\*\s*(\w+)\s*\)", decl)  # a function pointer field
            if fp:
                fields.append(fp.group(1))
                continue
            head, _, rest = decl.partition(",")
            names = [re.search(r"(\w+)\s*(\[[^\]]*\])?$", head).group(1)]
            names += [re.search(r"(\w+)", r).group(1) for r in rest.split(",") if rest]
            fields += names
        out[m.group(1)] = fields
    return out


def rust_structs(path):
    text = open(path, encoding="utf-8").read()
    out = {}
    for m in re.finditer(r"pub struct (ai00_\w+) \{(.*?)\n\}", text, flags=re.S):
        fields = re.findall(r"pub (\w+):", m.group(2))
        if fields:
            out[m.group(1)] = fields
    return out


def python_structs(path):
    text = open(path, encoding="utf-8").read()
    out = {}
    for m in re.finditer(r"class (\w+)\(Structure\):\s*_fields_ = \[(.*?)\]\n", text, flags=re.S):
        out[m.group(1)] = re.findall(r'\("(\w+)",', m.group(2))
    return out


def csharp_structs(path):
    text = open(path, encoding="utf-8").read()
    out = {}
    for m in re.finditer(r"public struct (\w+)\s*\{(.*?)\}", text, flags=re.S):
        body = re.sub(r"//[^\n]*", "", m.group(2))
        fields = []
        for decl in body.split(";"):
            decl = re.sub(r"\[[^\]]*\]", "", decl).strip()
            if not decl.startswith("public "):
                continue
            decl = re.sub(r"^public\s+(fixed\s+)?\S+\s+", "", decl)
            fields += [re.match(r"(\w+)", d.strip()).group(1) for d in decl.split(",")]
        out[m.group(1)] = fields
    return out


def node_structs(path):
    text = open(path, encoding="utf-8").read()
    out = {}
    for m in re.finditer(r"koffi\.struct\('(\w+)',\s*\{(.*?)\}\);", text, flags=re.S):
        out[m.group(1)] = re.findall(r"(\w+):\s*'", m.group(2))
    return out


def main(root):
    header = header_structs(os.path.join(root, "include", "ai00", "ai00.h"))
    by_norm = {norm(n): n for n in header}
    by_norm.update(ALIASES)
    copies = {
        "rust": ("bindings/rust/src/sys.rs", rust_structs),
        "python": ("bindings/python/ai00/_ffi.py", python_structs),
        "csharp": ("bindings/csharp/src/Native.cs", csharp_structs),
        "node": ("bindings/node/lib/ffi.js", node_structs),
    }
    errors = []
    checked = 0
    for lang, (rel, parse) in copies.items():
        for name, fields in parse(os.path.join(root, rel)).items():
            target = by_norm.get(norm(name))
            if target is None:
                errors.append(f"{rel}: struct {name} matches no struct of ai00.h (add it to ALIASES?)")
                continue
            want = header[target]
            checked += 1
            if fields != want:
                i = next((k for k, (a, b) in enumerate(zip(fields, want)) if a != b),
                         min(len(fields), len(want)))
                got = fields[i] if i < len(fields) else "(end)"
                exp = want[i] if i < len(want) else "(end)"
                errors.append(f"{rel}: {name} (ai00.h {target}) field {i}: has {got}, "
                              f"the header has {exp}; header fields: {', '.join(want)}")
    for e in errors:
        print(e)
    print(f"{checked} struct copies checked, {len(errors)} error(s)")
    return 1 if errors or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "."))
