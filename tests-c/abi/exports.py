#!/usr/bin/env python3
"""Export checks of build/lib/libpmix.so.2.

    exports.py --lib build/lib/libpmix.so.2 --signatures tests-c/abi/api-master-signatures.txt
               [--debian-lib FILE] [--ompi-plugin FILE]

 * every function of OpenPMIx master's API (the signature list) is exported;
 * every PMIx_* function Debian's OpenPMIx 4.2.2 library exports is exported;
 * nothing else is exported: only PMIx_* (and pmix_cuda_*), in particular no lowercase
   pmix_server_* (Open MPI's ORTE defines pmix_server_init & co. itself) and no Rust symbol;
   the one exception is the data symbol pmix_framework_names (Open MPI 5's libopen-pal
   imports it), which must be an OBJECT of 17 pointers (16 names and a NULL);
 * the SONAME is libpmix.so.2;
 * every PMIx_* function Open MPI's PMIx plugin imports is exported (missing ones named).
The reference files are optional: when one is absent its check is reported as SKIP.
"""

import argparse
import os
import re
import subprocess
import sys


def nm(path, *flags):
    r = subprocess.run(["nm", "-D", *flags, path], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"exports: nm failed on {path}: {r.stderr}")
    names = set()
    for line in r.stdout.splitlines():
        parts = line.split()
        if parts:
            names.add(parts[-1].split("@")[0])
    return names


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", required=True)
    ap.add_argument("--signatures", required=True)
    ap.add_argument("--debian-lib", default="/usr/lib/x86_64-linux-gnu/libpmix.so.2")
    ap.add_argument("--ompi-plugin",
                    default="/usr/lib/x86_64-linux-gnu/openmpi/lib/openmpi3/mca_pmix_ext3x.so")
    a = ap.parse_args()
    fails = 0

    def check(ok, msg):
        nonlocal fails
        print(("ok   " if ok else "FAIL ") + msg)
        if not ok:
            fails += 1

    ours = nm(a.lib, "--defined-only")
    master = []
    with open(a.signatures) as fh:
        for line in fh:
            m = re.search(r"\b(PMIx_\w+)\s*\(", line)
            if m and not line.lstrip().startswith("#"):
                master.append(m.group(1))
    missing = sorted(set(master) - ours)
    check(not missing and len(set(master)) == 308,
          f"all {len(set(master))} functions of OpenPMIx master exported"
          + (f"; missing: {' '.join(missing)}" if missing else ""))

    if os.path.exists(a.debian_lib):
        deb = {n for n in nm(a.debian_lib, "--defined-only") if n.startswith("PMIx_")}
        missing = sorted(deb - ours)
        check(not missing, f"all {len(deb)} PMIx_* exports of {a.debian_lib} exported"
              + (f"; missing: {' '.join(missing)}" if missing else ""))
    else:
        print(f"SKIP {a.debian_lib} not installed (Debian libpmix2)")

    data = {"pmix_framework_names"}
    stray = sorted(n for n in ours if not (n.startswith("PMIx_") or n.startswith("pmix_cuda_"))
                   and n not in data)
    check(not stray, "only PMIx_* / pmix_cuda_* (and pmix_framework_names) exported"
          + (f"; also: {' '.join(stray[:40])}" if stray else ""))
    r = subprocess.run(["readelf", "-sW", "--dyn-syms", a.lib], capture_output=True, text=True)
    obj = [ln.split() for ln in r.stdout.splitlines() if ln.endswith(" pmix_framework_names")]
    ok = bool(obj) and obj[0][3] == "OBJECT" and obj[0][2] == "136"
    check(ok, "pmix_framework_names is a 136-byte OBJECT (OpenPMIx 5.0.11's size)"
          + ("" if ok else f"; found {' '.join(obj[0][2:4])}" if obj else "; not exported"))
    check(not any(n.startswith("pmix_server_") for n in ours), "no lowercase pmix_server_* exported")

    r = subprocess.run(["readelf", "-d", a.lib], capture_output=True, text=True)
    m = re.search(r"\(SONAME\)\s+Library soname: \[([^\]]+)\]", r.stdout)
    check(m is not None and m.group(1) == "libpmix.so.2",
          f"SONAME is libpmix.so.2 (found {m.group(1) if m else 'none'})")

    if os.path.exists(a.ompi_plugin):
        need = {n for n in nm(a.ompi_plugin, "--undefined-only") if n.startswith("PMIx_")}
        missing = sorted(need - ours)
        check(not missing and len(need) > 0,
              f"all {len(need)} PMIx_* imports of Open MPI's {os.path.basename(a.ompi_plugin)} exported"
              + (f"; missing: {' '.join(missing)}" if missing else ""))
    else:
        print(f"SKIP {a.ompi_plugin} not installed (Open MPI)")

    print(f"exports: {len(ours)} symbols, {fails} failed")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
