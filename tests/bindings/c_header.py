"""The text of the C ABI: include/ai00/ai00.h with the ai00/c/*.h parts it includes, in order."""
import os
import re

INCLUDE = re.compile(r'^#include "([^"]+)"', re.M)


def header_text(path, seen=None):
    """ai00.h's text with every quoted #include replaced by the included file's text (once)."""
    seen = set() if seen is None else seen
    path = os.path.normpath(path)
    if path in seen:
        return ""
    seen.add(path)
    with open(path, encoding="utf-8") as f:
        text = f.read()
    here = os.path.dirname(path)
    return INCLUDE.sub(lambda m: header_text(os.path.join(here, m.group(1)), seen), text)
