#!/usr/bin/env python3
"""pmix_info checks (run by `make info-check`; see mk/info.mk).

usage: info_check.py BINDIR LIBPMIX ATTR_QUERY MANDIR [INSTALL_ROOT]

Each check prints one ok/FAIL line; the exit status is the verdict. Every program runs
under a timeout, so a hang is a failure.
"""
import ctypes
import json
import os
import re
import subprocess
import sys

BIN, LIB, ATTR_QUERY, MANDIR = sys.argv[1:5]
INSTALL_ROOT = sys.argv[5] if len(sys.argv) > 5 else None
PMIX_INFO = os.path.join(BIN, "pmix_info")
PMIXRUN = os.path.join(BIN, "pmixrun")
failures = 0
count = 0


def check(cond, what):
    global failures, count
    count += 1
    if not cond:
        failures += 1
    print(("ok   " if cond else "FAIL ") + what, flush=True)


def run(args, env=None, timeout=60):
    e = dict(os.environ)
    for k in list(e):
        if k.startswith("PMIX_"):
            del e[k]
    e.update(env or {})
    try:
        p = subprocess.run(args, capture_output=True, text=True, env=e, timeout=timeout)
    except subprocess.TimeoutExpired:
        return 124, "", "timed out"
    return p.returncode, p.stdout, p.stderr


def library_version():
    lib = ctypes.CDLL(LIB)
    lib.PMIx_Get_version.restype = ctypes.c_char_p
    return lib.PMIx_Get_version().decode()


def summary_checks():
    rc, text, err = run([PMIX_INFO])
    check(rc == 0 and err == "", f"pmix_info runs (rc {rc}, stderr {err!r})")
    rc, out, err = run([PMIX_INFO, "--json"])
    check(rc == 0, f"pmix_info --json runs (rc {rc})")
    try:
        doc = json.loads(out)
    except ValueError as e:
        check(False, f"pmix_info --json is JSON ({e})")
        return
    check(True, "pmix_info --json is JSON")
    version = library_version()
    check(doc["library"]["version"] == version, f"version is PMIx_Get_version's: {version!r}")
    check(version in text, "the text shows the version")
    check(doc["library"]["api"] == "7.0.0", f"API level {doc['library']['api']}")
    for key in ("standard", "stable_abi", "provisional_abi"):
        check(re.fullmatch(r"\d+\.\d+", doc["library"][key]) is not None, f"{key} is a level")
    protos = doc["protocols"]
    check(len(protos) >= 1 and all(p["version"] > 0 for p in protos), f"protocols {protos}")
    for p in protos:
        check(f"{p['name']} version {p['version']}" in text, f"the text names {p['name']}")
    check(doc["security"]["mode"] == "native" and doc["store"]["name"], "security and store")
    names = [p["name"] for p in doc["parameters"]]
    check(len(names) == len(set(names)) and len(names) >= 10, f"{len(names)} unique parameters")
    for n in ("PMIX_DEBUG", "TMPDIR", "PMIX_RS_JOB_SEGMENT_MIN", "PMIX_SERVER_URI41"):
        check(n in names and f"  {n}\n" in text, f"{n} is listed")
    seg = next(p for p in doc["parameters"] if p["name"] == "PMIX_RS_JOB_SEGMENT_MIN")
    check(seg["current"] is None and seg["default"] == "8192", f"unset: {seg}")
    # A parameter set in the environment shows as its current value.
    env = {"PMIX_RS_JOB_SEGMENT_MIN": "4096", "PMIX_MCA_pmix_max_iof_cache": "a \"b\"\\c"}
    rc, out, _ = run([PMIX_INFO, "--json"], env)
    cur = {p["name"]: p["current"] for p in json.loads(out)["parameters"]}
    check(cur["PMIX_RS_JOB_SEGMENT_MIN"] == "4096", "a set parameter shows its value (json)")
    check(cur["PMIX_MCA_pmix_max_iof_cache"] == env["PMIX_MCA_pmix_max_iof_cache"],
          "a value with quotes survives the JSON")
    rc, out, _ = run([PMIX_INFO], env)
    check("PMIX_RS_JOB_SEGMENT_MIN\n      default: 8192\n      current: 4096\n" in out,
          "a set parameter shows its value (text)")


def attrs_checks():
    for funcs in ([], ["PMIx_Get", "PMIx_Fence"]):
        arg = [",".join(funcs)] if funcs else []
        rc, out, err = run([PMIX_INFO, "--attrs"] + arg + ["--json"])
        check(rc == 0, f"pmix_info --attrs {arg} --json (rc {rc})")
        mine = json.loads(out)
        rc, out, err = run([PMIXRUN, "--timeout", "60", "-n", "1", ATTR_QUERY] + arg, timeout=90)
        check(rc == 0, f"attr_query {arg} under pmixrun (rc {rc}, {err.strip()!r})")
        theirs = json.loads(out) if rc == 0 else None
        check(mine == theirs, f"--attrs {arg} equals PMIx_Query_info's answer")
        fns = list(mine["attributes"])
        check(fns == funcs if funcs else len(fns) > 5, f"functions {fns}")
    rc, out, _ = run([PMIX_INFO, "--json"])
    lib = json.loads(out)["library"]
    rc, out, err = run([PMIXRUN, "--timeout", "60", "-n", "1", ATTR_QUERY, "--abi"], timeout=90)
    abi = json.loads(out) if rc == 0 else {}
    check(abi == {"stable_abi": lib["stable_abi"], "provisional_abi": lib["provisional_abi"]},
          f"the ABI levels are PMIx_Query_info's: {abi} ({err.strip()!r})")
    rc, out, _ = run([PMIX_INFO, "--attrs", "PMIx_Fence"])
    check(rc == 0 and out.startswith("PMIx_Fence\n") and "pmix.timeout" in out, "--attrs text")
    rc, out, err = run([PMIX_INFO, "--attrs", "PMIx_Nothing"])
    check(rc == 2 and out == "" and "PMIx_Nothing" in err, "--attrs of an unknown function: 2")


def usage_checks():
    rc, out, err = run([PMIX_INFO, "--bogus"])
    check(rc == 2 and out == "" and "unknown option '--bogus'" in err and "Usage:" in err,
          "an unknown option: usage on stderr, exit 2")
    rc, out, _ = run([PMIX_INFO, "--help"])
    check(rc == 0 and out.startswith("pmix_info:") and "Usage:" in out, "--help")
    rc, out, _ = run([PMIX_INFO, "--version"])
    check(rc == 0 and re.fullmatch(r"pmix_info \(pmix-rs\) \S+\n", out) is not None, "--version")


OPT = re.compile(r"(?<![\w-])(--?[A-Za-z][\w-]*)")


def help_options(text):
    """Options on the option lines of a --help text (a line that starts with '-')."""
    opts = set()
    for line in text.splitlines():
        if re.match(r"^ {2,6}-{1,2}[A-Za-z]", line):
            opts.update(OPT.findall(re.split(r"\s{2,}", line.strip())[0]))
    return opts


def man_options(path):
    """Options in the tags (the line after .TP) of a man page's OPTIONS section."""
    opts, in_options, tag_next = set(), False, False
    with open(path) as f:
        for line in f:
            if line.startswith(".SH"):
                in_options = line.split(None, 1)[1].strip() == "OPTIONS"
            elif in_options and line.startswith(".TP"):
                tag_next = True
            elif tag_next:
                tag_next = False
                tag = re.sub(r"\\f[BIRP]", "", line).replace("\\-", "-").replace('"', " ")
                opts.update(OPT.findall(re.sub(r"^\.\w+", "", tag)))
    return opts


def man_checks():
    for prog in ("pmixrun", "pmix_info"):
        rc, out, _ = run([os.path.join(BIN, prog), "--help"])
        check(rc == 0, f"{prog} --help (rc {rc})")
        h, m = help_options(out), man_options(os.path.join(MANDIR, prog + ".1"))
        check(len(h) >= 4, f"{prog} --help lists options: {sorted(h)}")
        check(h == m, f"{prog}: --help and man page list the same options "
                      f"(only in help: {sorted(h - m)}, only in man: {sorted(m - h)})")


def install_checks():
    for rel, mode in (("usr/bin/pmix_info", 0o755), ("usr/bin/pmixrun", 0o755),
                      ("usr/lib/libpmix.so.2", 0o755),
                      ("usr/share/man/man1/pmix_info.1", 0o644),
                      ("usr/share/man/man1/pmixrun.1", 0o644)):
        p = os.path.join(INSTALL_ROOT, rel)
        ok = os.path.isfile(p) and (os.stat(p).st_mode & 0o777) == mode
        check(ok, f"make install put /{rel} (mode {oct(mode)})")
    rc, out, _ = run([os.path.join(INSTALL_ROOT, "usr/bin/pmix_info"), "--version"])
    check(rc == 0 and out.startswith("pmix_info"), "the installed pmix_info runs")


summary_checks()
attrs_checks()
usage_checks()
man_checks()
if INSTALL_ROOT:
    install_checks()
print(f"info_check.py: {count} checks, {failures} failed")
sys.exit(1 if failures else 0)
