"""Shared by the misuse/diff generators: the API's prototypes and which functions are
helpers (defined under capi/src/helpers) rather than runtime functions."""

import glob
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SIGS = os.path.join(ROOT, "tests-c", "abi", "api-master-signatures.txt")


def prototypes():
    """[(name, return type, [param texts], in_4_2_2)] from the signature list."""
    out = []
    for line in open(SIGS):
        s = line.strip()
        if not s or s.startswith("#"):
            continue
        master_only = s.startswith("+")
        s = s.lstrip("+ ").rstrip(";")
        m = re.match(r"(.*?)\b(PMIx_\w+)\s*\((.*)\)$", s)
        if not m:
            raise SystemExit(f"cannot parse prototype: {line!r}")
        ret, name, params = m.group(1).strip(), m.group(2), m.group(3).strip()
        plist = [] if params in ("", "void") else [p.strip() for p in params.split(",")]
        out.append((name, ret, plist, not master_only))
    return out


def helper_names():
    """Names of the exports implemented in capi/src/helpers."""
    names = set()
    for f in glob.glob(os.path.join(ROOT, "capi", "src", "helpers", "*.rs")):
        for line in open(f):
            if line.lstrip().startswith("//"):
                continue
            names.update(re.findall(r"\bfn (PMIx_\w+)\(", line))
    return names
