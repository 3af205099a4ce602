#!/usr/bin/env python3
"""Check that every helper export (capi/src/helpers) is called by at least one
hand-written misuse test in tests-c/misuse/*.c; list the ones that are not."""

import glob
import os
import re
import sys

sys.path.insert(0, os.path.dirname(__file__))
import sigs  # noqa: E402

called = set()
for f in glob.glob(os.path.join(sigs.ROOT, "tests-c", "misuse", "*.c")):
    text = open(f).read()
    called.update(re.findall(r"\b(PMIx_\w+)\s*\(", text))
    # structs.c's LIFECYCLE(T, Name) calls PMIx_Name_{construct,destruct,create,free}
    for name in re.findall(r"\bLIFECYCLE\(\s*\w+\s*,\s*(\w+)\s*\)", text):
        called.update(f"PMIx_{name}_{op}" for op in ("construct", "destruct", "create", "free"))
helpers = sigs.helper_names()
missing = sorted(helpers - called)
for m in missing:
    print(f"FAIL helper {m} is not called by any tests-c/misuse test")
if missing:
    sys.exit(1)
print(f"ok   all {len(helpers)} helper exports are called by the misuse tests")
