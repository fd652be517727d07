#!/usr/bin/env python3
"""Self-test of the tree checks (docs/layers.md "Tests and benchmarks"): builds small trees in a
temporary folder and requires check_layers.py and check_citations.py to pass on the clean one
and to report each planted violation with its file:line."""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))

CLEAN = {
    "docs/layers.md": "# Layers\n\n## Include rules\n\ntext\n",
    "src/base/util.h": "// Helpers (docs/layers.md \"Include rules\").\n#include <string>\n",
    "src/format/fmt.h": '#include "base/util.h"\n// see src/base/util.h\n',
    "src/core/model/m.h": '#include "base/util.h"\n',
    "src/core/pipeline/p.h": '#include "core/model/m.h"\n#include "format/fmt.h"\n'
                             'const char* k = "plain";  // goose in a comment is fine\n',
    "include/ai00/ai00.h": "#include <stdint.h>\n",
    "include/ai00/ai00.hpp": '#include "ai00.h"\n',
    "tools/t/main.cpp": '#include <ai00/ai00.hpp>\n#include "local.h"\n',
    "tools/t/local.h": "// local\n",
}
PLANTED = {
    "src/format/bad.h": ('#include "core/model/m.h"\n', "src/format/bad.h:1"),
    "src/base/bad.h": ("#include <fmt/format.h>\n", "src/base/bad.h:1"),
    "tools/t/bad.cpp": ('#include "base/util.h"\n', "tools/t/bad.cpp:1"),
    "src/grammar/g.cpp": ('\nconst char* f = "openchatml";\n', "src/grammar/g.cpp:2"),
    "include/ai00/bad.hpp": ('#include "base/util.h"\n', "include/ai00/bad.hpp:1"),
}
BAD_CITES = {
    "src/base/c1.h": ('// x\n// see docs/layers.md "No such heading"\n', "src/base/c1.h:2"),
    # Spelled in two pieces so that no tool scanning this file takes it for a real citation.
    "src/base/c2.h": ("/* docs/" + "nothing.md */\n", "src/base/c2.h:1"),
    "src/base/c3.h": ("// docs/layers.md section 2\n", "src/base/c3.h:1"),
    "src/base/c4.h": ("# define X 1\n// src/base/missing.cpp\n", "src/base/c4.h:2"),
}


def write(root, files):
    for rel, text in files.items():
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)


def run(script, root):
    p = subprocess.run([sys.executable, os.path.join(HERE, script), root], capture_output=True,
                       text=True)
    return p.returncode, p.stdout


def expect(script, root, code, wanted):
    rc, out = run(script, root)
    ok = rc == code and all(any(line.startswith(w + ":") for line in out.splitlines())
                            for w in wanted)
    if not ok:
        print(f"FAIL {script} on {root}: rc {rc} (want {code}), want {wanted}\n{out}")
    return ok


def main():
    ok = True
    with tempfile.TemporaryDirectory() as root:
        write(root, CLEAN)
        ok &= expect("check_layers.py", root, 0, [])
        ok &= expect("check_citations.py", root, 0, [])
        write(root, {k: v[0] for k, v in PLANTED.items()})
        ok &= expect("check_layers.py", root, 1, [v[1] for v in PLANTED.values()])
        write(root, {k: v[0] for k, v in BAD_CITES.items()})
        ok &= expect("check_citations.py", root, 1, [v[1] for v in BAD_CITES.values()])
        rc, out = run("check_citations.py", root)
        if len(out.splitlines()) != len(BAD_CITES) + 1:
            print("FAIL check_citations.py reports more than the planted citations:\n" + out)
            ok = False
    print("test_checks: " + ("ok" if ok else "FAILED"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
