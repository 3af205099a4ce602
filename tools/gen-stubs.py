#!/usr/bin/env python3
"""Write capi/src/stubs.rs: a `PMIX_ERR_NOT_SUPPORTED` export for every function of
OpenPMIx master's API that no other file under capi/src/ defines yet.

    python3 tools/gen-stubs.py [--check]

The list of functions and their C prototypes is tests-c/abi/api-master-signatures.txt.
A function counts as defined elsewhere when some capi/src/**/*.rs file other than
stubs.rs contains `fn PMIx_Name(`. Rerun the script whenever an implementation lands (or
after merging branches); the output depends only on those inputs, so rerunning is safe.
With --check nothing is written: the exit status says whether stubs.rs is up to date.

Stub behaviour: functions returning pmix_status_t return PMIX_ERR_NOT_SUPPORTED; void
functions do nothing; pointer-returning functions return NULL, except the `const char *`
*_string functions of constants, which never return NULL and give "UNKNOWN"; bool gives false,
integers 0, pmix_boolean_t PMIX_NON_BOOL, pmix_value_cmp_t
PMIX_VALUE_COMPARISON_NOT_AVAIL. PMIx_Get_version returns pmix_sys::PMIX_VERSION_STRING.
Every body runs inside the capi guard and logs "not supported" at debug level.
"""

import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SIGS = os.path.join(ROOT, "tests-c", "abi", "api-master-signatures.txt")
CAPI = os.path.join(ROOT, "capi", "src")
OUT = os.path.join(CAPI, "stubs.rs")

SCALARS = {
    "char": "c_char", "int": "c_int", "void": "c_void", "size_t": "usize",
    "uint32_t": "u32", "int32_t": "i32", "uint8_t": "u8", "bool": "bool",
    "uid_t": "libc::uid_t", "gid_t": "libc::gid_t",
}

FALLBACK = {
    "pmix_status_t": None,  # handled by ffi_status!
    "void": "()",
    "bool": "false",
    "int": "0",
    "size_t": "0",
    "pmix_boolean_t": "sys::PMIX_NON_BOOL",
    "pmix_value_cmp_t": "sys::PMIX_VALUE_COMPARISON_NOT_AVAIL",
}


def rust_base(c):
    if c in SCALARS:
        return SCALARS[c]
    if re.fullmatch(r"pmix_\w+", c):
        return "sys::" + c
    raise SystemExit(f"gen-stubs: no Rust type for C type {c!r}")


def rust_type(ctext):
    """C type text (no name) -> Rust type."""
    t = ctext.strip()
    const = False
    if t.startswith("const "):
        const = True
        t = t[len("const "):].strip()
    stars = t.count("*")
    base = t.replace("*", "").strip()
    if base in ("pmix_nspace_t", "pmix_key_t"):
        # an array parameter: decays to a pointer to its first char
        base = "char"
        stars += 1
    if stars == 0:
        if const:
            raise SystemExit(f"gen-stubs: const by-value parameter {ctext!r}")
        return rust_base(base)
    r = ("*const " if const else "*mut ") + rust_base(base)
    for _ in range(stars - 1):
        r = "*mut " + r
    return r


def parse_param(p):
    p = p.strip()
    arrays = p.count("[]")
    p = p.replace("[]", "").strip()
    m = re.match(r"(.*?)(\w+)$", p)
    if not m:
        raise SystemExit(f"gen-stubs: cannot parse parameter {p!r}")
    ctype = m.group(1).strip() + "*" * arrays
    return m.group(2), rust_type(ctype)


def parse_proto(line):
    m = re.match(r"\s*(.*?)\b(PMIx_\w+)\s*\((.*)\)\s*;?\s*$", line)
    if not m:
        raise SystemExit(f"gen-stubs: cannot parse prototype {line!r}")
    ret, name, params = m.group(1).strip(), m.group(2), m.group(3).strip()
    args = [] if params in ("", "void") else [parse_param(p) for p in params.split(",")]
    return name, ret, args


def signatures():
    out = []
    with open(SIGS) as fh:
        for line in fh:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            out.append(parse_proto(line.lstrip("+").strip()))
    return out


def defined_elsewhere():
    found = {}
    for dirpath, _, files in os.walk(CAPI):
        for f in files:
            path = os.path.join(dirpath, f)
            if not f.endswith(".rs") or os.path.realpath(path) == os.path.realpath(OUT):
                continue
            with open(path) as fh:
                for line in fh:
                    if line.lstrip().startswith("//"):
                        continue  # a doc comment naming a function is not a definition
                    for m in re.finditer(r"\bfn\s+(PMIx_\w+)\s*\(", line):
                        found[m.group(1)] = os.path.relpath(path, ROOT)
    return found


def stub(name, ret, args):
    params = ", ".join(f"_{n}: {t}" for n, t in args)
    cret = ret.replace(" ", "")
    doc = (f"/// `{name}`: not supported yet (see the module docs).\n///\n/// # Safety\n"
           "/// No argument is read, so any values are accepted; nothing is written, kept or\n"
           "/// released.\n")
    head = f"{doc}#[no_mangle]\npub unsafe extern \"C\" fn {name}({params})"
    if cret == "pmix_status_t":
        return (f"{head} -> sys::pmix_status_t {{\n"
                f"    crate::ffi_status!({name}, {{ not_supported(\"{name}\") }})\n}}\n")
    if cret == "void":
        return (f"{head} {{\n"
                f"    crate::ffi_value!({name}, (), {{ log_unsupported(\"{name}\") }})\n}}\n")
    if name == "PMIx_Get_version":
        return (f"{head} -> *const c_char {{\n"
                f"    crate::ffi_value!({name}, sys::PMIX_VERSION_STRING.as_ptr(), {{\n"
                f"        sys::PMIX_VERSION_STRING.as_ptr()\n    }})\n}}\n")
    if "*" in cret:
        rty = rust_type(ret)
        if cret == "constchar*" and name.endswith("_string") and name != "PMIx_Get_attribute_string":
            val = 'c"UNKNOWN".as_ptr()'
        else:
            val = "core::ptr::null()" if rty.startswith("*const") else "core::ptr::null_mut()"
        return (f"{head} -> {rty} {{\n"
                f"    crate::ffi_value!({name}, {val}, {{\n"
                f"        log_unsupported(\"{name}\");\n        {val}\n    }})\n}}\n")
    if cret in FALLBACK:
        rty = rust_type(ret)
        val = FALLBACK[cret]
        return (f"{head} -> {rty} {{\n"
                f"    crate::ffi_value!({name}, {val}, {{\n"
                f"        log_unsupported(\"{name}\");\n        {val}\n    }})\n}}\n")
    raise SystemExit(f"gen-stubs: no stub rule for return type {ret!r} of {name}")


HEADER = '''//! Exports of OpenPMIx master's API whose implementation has not landed yet: each logs
//! "not supported" (debug level) and returns `PMIX_ERR_NOT_SUPPORTED` (or the neutral
//! value of its return type). The whole ABI is exported from the first build, so programs
//! link and fail cleanly instead of failing to load.
//!
//! GENERATED by `python3 tools/gen-stubs.py` from tests-c/abi/api-master-signatures.txt;
//! do not edit. A function implemented anywhere else under capi/src/ (`fn PMIx_Name(`) is
//! left out; rerun the script after adding one.
#![allow(clippy::too_many_arguments)]

use core::ffi::{c_char, c_int, c_void};
use pmix_sys as sys;

fn log_unsupported(name: &str) {
    log::debug!("{name}: not supported");
}

fn not_supported(name: &str) -> sys::pmix_status_t {
    log_unsupported(name);
    sys::PMIX_ERR_NOT_SUPPORTED
}
'''


def render():
    sigs = signatures()
    names = [s[0] for s in sigs]
    if len(names) != len(set(names)):
        raise SystemExit("gen-stubs: duplicate function in the signature list")
    elsewhere = defined_elsewhere()
    body = []
    used = set()
    for name, ret, args in sigs:
        if name in elsewhere:
            continue
        text = stub(name, ret, args)
        used.update(re.findall(r"\b(c_char|c_int|c_void)\b", text))
        body.append(text)
    text = HEADER
    for ty in ("c_char", "c_int", "c_void"):
        if ty not in used:
            text = text.replace(f"{ty}, ", "").replace(f", {ty}", "").replace(f"{{{ty}}}", "{}")
    text = text.replace("use core::ffi::{};\n", "")
    text += "\n" + "\n".join(body)
    extra = sorted(set(elsewhere) - set(names))
    return rustfmt(text), len(body), len(sigs) - len(body), extra


def rustfmt(text):
    """Format like `cargo fmt` would, so that `cargo fmt --check` accepts the file."""
    r = subprocess.run(["rustfmt", "--edition", "2021", "--emit", "stdout"], input=text,
                       capture_output=True, text=True, cwd=ROOT)
    if r.returncode != 0:
        raise SystemExit(f"gen-stubs: rustfmt failed:\n{r.stderr}")
    return r.stdout


def main():
    check = "--check" in sys.argv[1:]
    text, nstub, nskip, extra = render()
    for n in extra:
        print(f"gen-stubs: note: {n} is defined under capi/src but is not in the signature list",
              file=sys.stderr)
    old = open(OUT).read() if os.path.exists(OUT) else ""
    if check:
        if old != text:
            print("gen-stubs: capi/src/stubs.rs is out of date; run python3 tools/gen-stubs.py",
                  file=sys.stderr)
            return 1
        return 0
    if old != text:
        with open(OUT, "w") as fh:
            fh.write(text)
    print(f"gen-stubs: {nstub} stubs, {nskip} functions implemented elsewhere")
    return 0


if __name__ == "__main__":
    sys.exit(main())
