#!/usr/bin/env python3
"""ABI comparison of two PMIx header sets (ours against a reference).

    abicheck.py --ours include --ref DIR --allow FILE --out DIR [--cc gcc]
                [--rust-list FILE] [--signatures FILE] [--ref-label NAME]

What it does:
 1. Reads both header sets through the C preprocessor (declarations only from the header
    directory itself) and collects: structs/unions with their members, scalar and enum
    typedefs, enumerators, function-pointer typedefs, function prototypes, object-like
    and function-like macros.
 2. Writes dump.c, ONE program that prints sizeof/alignof of every struct, offset/size
    of every member (also inside pmix_value_t's union), size and signedness of every
    scalar typedef, the value (and type size/signedness) of every numeric constant,
    every string constant and the bytes of every *_STATIC_INIT object. Items present in
    both sets are compiled in both builds; items only in ours sit under #ifdef
    DUMP_OURS_ONLY (for the Rust cross-check). The program is compiled once against each
    header set and run; the outputs are compared key by key.
 3. Writes typecheck.c, compiled against OUR headers only: every reference prototype and
    function-pointer typedef is re-declared (a conflicting type is a compile error), every
    common struct member gets a static assertion that its type matches the reference's,
    and, with --signatures, every function of that list must already be declared by our
    headers and agree with the listed prototype.
 4. Reports every difference. A difference is accepted only if a line of the allow-list
    (fnmatch pattern, '|', reason) matches it; an allow-list line that matches nothing is
    itself an error, so the list stays honest.
 5. With --rust-list (output of `gen-header --list`), checks that every constant the Rust
    side defines has the same value in our C headers.
 6. With --rust-layout (output of `gen-header --layout`), checks that every #[repr(C)]
    type of pmix-sys has the size, alignment and member offsets/sizes of our C headers
    (enums: size only, since C makes them unsigned and pmix-sys uses c_int).
 7. Checks that the first 28 slots of pmix_server_module_t sit at 8*i in both sets.
Exit status 0 means no unexplained difference.
"""

import argparse
import fnmatch
import os
import re
import subprocess
import sys

TOP_HEADERS = ["pmix.h", "pmix_server.h", "pmix_tool.h"]  # (4.2.2's pmix_tool.h lacks pmix_server.h)

# Static initialisers whose struct type is not derivable from the macro name.
INIT_TYPES = {
    "PMIX_LOOKUP_STATIC_INIT": "pmix_pdata_t",
    "PMIX_DEVICE_DIST_STATIC_INIT": "pmix_device_distance_t",
}


def run(cmd, **kw):
    return subprocess.run(cmd, check=False, capture_output=True, text=True, **kw)


# ----------------------------------------------------------------------------------------
# Reading a header set
# ----------------------------------------------------------------------------------------

class HeaderSet:
    def __init__(self, incdir, cc):
        self.incdir = os.path.realpath(incdir)
        self.cc = cc
        self.structs = {}      # typedef name -> {"tag":..., "kind":..., "members":[(name,type)], "union":{member:[(n,t)]}}
        self.scalars = {}      # typedef name -> type text ("" for enums)
        self.is_array = set()  # scalar typedefs that are arrays
        self.enums = {}        # enumerator -> enum typedef name
        self.fptr_typedefs = {}  # name -> full declaration text
        self.protos = {}       # function name -> declaration text
        self.inline_fns = set()
        self.extern_vars = set()
        self.obj_macros = {}   # name -> replacement text
        self.fn_macros = set()
        self._preprocess()
        self._macros()

    def _src(self):
        return "".join(f"#include <{h}>\n" for h in TOP_HEADERS)

    def _preprocess(self):
        r = run([self.cc, "-E", "-I", self.incdir, "-x", "c", "-"], input=self._src())
        if r.returncode != 0:
            sys.exit(f"abicheck: preprocessing {self.incdir} failed:\n{r.stderr}")
        keep = []
        mine = False
        for line in r.stdout.splitlines():
            m = re.match(r'#\s*\d+\s+"([^"]*)"', line)
            if m:
                path = m.group(1)
                mine = os.path.realpath(path).startswith(self.incdir + os.sep)
                continue
            if mine:
                keep.append(line)
        self._parse(" ".join(keep))

    def _macros(self):
        r = run([self.cc, "-dM", "-E", "-I", self.incdir, "-x", "c", "-"], input=self._src())
        if r.returncode != 0:
            sys.exit(f"abicheck: -dM on {self.incdir} failed:\n{r.stderr}")
        # Macros defined by the header files themselves: scan the files for #define names.
        names = set()
        for f in os.listdir(self.incdir):
            if f.endswith(".h"):
                with open(os.path.join(self.incdir, f), errors="replace") as fh:
                    for line in fh:
                        m = re.match(r"\s*#\s*define\s+(\w+)", line)
                        if m:
                            names.add(m.group(1))
        for line in r.stdout.splitlines():
            m = re.match(r"#define (\w+)(\(?)\s*(.*)$", line)
            if not m or m.group(1) not in names:
                continue
            if m.group(2) == "(":
                self.fn_macros.add(m.group(1))
            else:
                self.obj_macros[m.group(1)] = m.group(3).strip()

    # --- a small declaration parser for preprocessed text ---

    def _parse(self, text):
        text = re.sub(r"\s+", " ", text)
        decls = []
        depth = 0
        start = 0
        i = 0
        while i < len(text):
            c = text[i]
            if c == '"':
                j = i + 1
                while j < len(text) and text[j] != '"':
                    j += 2 if text[j] == "\\" else 1
                i = j
            elif c == "{":
                depth += 1
            elif c == "}":
                depth -= 1
                if depth == 0:
                    head = text[start:i]
                    # a function definition ends at its closing brace
                    if re.search(r"\)\s*\{", head) and not head.lstrip().startswith("typedef"):
                        decls.append(text[start:i + 1].strip())
                        start = i + 1
            elif c == ";" and depth == 0:
                decls.append(text[start:i].strip())
                start = i + 1
            i += 1
        for d in decls:
            if d:
                self._decl(d)

    @staticmethod
    def _strip_attrs(s):
        while True:
            m = re.search(r"__attribute__\s*\(\(", s)
            if not m:
                return s.strip()
            depth = 0
            j = m.start() + len("__attribute__")
            while j < len(s):
                if s[j] == "(":
                    depth += 1
                elif s[j] == ")":
                    depth -= 1
                    if depth == 0:
                        break
                j += 1
            s = s[: m.start()] + s[j + 1:]

    @staticmethod
    def _split_top(body, sep=";"):
        parts, depth, cur = [], 0, ""
        for c in body:
            if c in "{(":
                depth += 1
            elif c in "})":
                depth -= 1
            if c == sep and depth == 0:
                parts.append(cur.strip())
                cur = ""
            else:
                cur += c
        if cur.strip():
            parts.append(cur.strip())
        return parts

    @staticmethod
    def _declarator(member):
        """'T *name[N]' -> (name, 'T *[N]'); handles '(*name)(args)' too."""
        m = re.search(r"\(\s*\*\s*(\w+)\s*\)", member)
        if m:
            return m.group(1), (member[: m.start()] + "(*)" + member[m.end():]).strip()
        m = re.match(r"(.*?)(\w+)\s*((?:\[[^\]]*\]\s*)*)$", member)
        if not m:
            return None, None
        return m.group(2), (m.group(1).strip() + " " + m.group(3).replace(" ", "")).strip()

    def _members(self, body):
        out, unions = [], {}
        for mem in self._split_top(body):
            um = re.match(r"(union|struct)\s*(\w*)\s*\{(.*)\}\s*(\w+)$", mem)
            if um:
                inner, _ = self._members(um.group(3))
                unions[um.group(4)] = inner
                out.append((um.group(4), None))
                continue
            name, typ = self._declarator(mem)
            if name:
                out.append((name, typ))
        return out, unions

    def _decl(self, d):
        d = self._strip_attrs(d)
        if d.startswith("typedef"):
            rest = d[len("typedef"):].strip()
            m = re.match(r"(struct|union)\s*(\w*)\s*\{(.*)\}\s*(\w+)$", rest)
            if m:
                members, unions = self._members(m.group(3))
                self.structs[m.group(4)] = {"kind": m.group(1), "tag": m.group(2),
                                            "members": members, "unions": unions}
                return
            m = re.match(r"enum\s*(\w*)\s*\{(.*)\}\s*(\w+)$", rest)
            if m:
                self.scalars[m.group(3)] = ""
                for e in m.group(2).split(","):
                    e = e.split("=")[0].strip()
                    if e:
                        self.enums[e] = m.group(3)
                return
            m = re.search(r"\(\s*\*\s*(\w+)\s*\)\s*\(", rest)
            if m:
                self.fptr_typedefs[m.group(1)] = "typedef " + rest + ";"
                return
            name, typ = self._declarator(rest)
            if name:
                self.scalars[name] = typ
                if "[" in typ:
                    self.is_array.add(name)
            return
        if d.startswith("static"):
            m = re.search(r"(\w+)\s*\(", d)
            if m:
                self.inline_fns.add(m.group(1))
            return
        if d.startswith("extern") and "(" not in d:
            name, _ = self._declarator(d)
            if name:
                self.extern_vars.add(name)
            return
        m = re.match(r"(?:extern\s+)?[\w\s\*]*?\b(\w+)\s*\((.*)\)$", d)
        if m and "{" not in d:
            self.protos[m.group(1)] = d + ";"


# ----------------------------------------------------------------------------------------
# Generating the programs
# ----------------------------------------------------------------------------------------

def classify(value):
    if value == "":
        return "empty"
    if value.startswith('"'):
        return "string"
    if value.startswith("{"):
        return "init"
    if "__attribute__" in value:
        return "attr"
    return "number"


def init_type(name, hs):
    if name in INIT_TYPES:
        return INIT_TYPES[name]
    t = "pmix_" + name[len("PMIX_"):-len("_STATIC_INIT")].lower() + "_t"
    return t if t in hs.structs else None


def emit_items(out, ours, ref, common):
    """Write the print statements for one group of items (lists of names)."""
    for s in common["structs"]:
        info = ours.structs[s]
        out.append(f'    printf("struct {s} size=%zu align=%zu\\n", sizeof({s}), _Alignof({s}));')
        refmem = dict(ref.structs[s]["members"]) if s in ref.structs else {}
        for mname, _ in info["members"]:
            if ref is not ours and mname not in refmem and not common.get("ours_only"):
                continue
            out.append(f'    printf("field {s}.{mname} offset=%zu size=%zu\\n", '
                       f'offsetof({s}, {mname}), sizeof((({s} *)0)->{mname}));')
            for uname, utyp in info["unions"].get(mname, []):
                if ref is not ours and not common.get("ours_only"):
                    if uname not in dict(ref.structs[s]["unions"].get(mname, [])):
                        continue
                out.append(f'    printf("field {s}.{mname}.{uname} offset=%zu size=%zu\\n", '
                           f'offsetof({s}, {mname}.{uname}), sizeof((({s} *)0)->{mname}.{uname}));')
    for t in common["scalars"]:
        if t in ours.is_array:
            out.append(f'    printf("type {t} size=%zu\\n", sizeof({t}));')
        else:
            out.append(f'    printf("type {t} size=%zu signed=%d\\n", sizeof({t}), (int)(({t})-1 < ({t})0));')
    for n in common["numbers"]:
        out.append(f'    printf("const {n} = %lld size=%zu signed=%d\\n", (long long)({n}), '
                   f'sizeof({n}), (int)((__typeof__({n}))-1 < 0));')
    for n in common["enums"]:
        out.append(f'    printf("const {n} = %lld\\n", (long long)({n}));')
    for n in common["strings"]:
        out.append(f'    dump_string("{n}", {n});')
    for n in common["inits"]:
        t = init_type(n, ours)
        out.append(f'    {{ static const {t} v = {n}; dump_bytes("init {n}", &v, sizeof(v)); }}')


def gen_dump(ours, ref, path):
    def common_and_ours(a, b):
        both = sorted(set(a) & set(b))
        only = sorted(set(a) - set(b))
        return both, only

    groups = {"both": {}, "ours": {"ours_only": True}}
    s_both, s_only = common_and_ours(ours.structs, ref.structs)
    groups["both"]["structs"], groups["ours"]["structs"] = s_both, s_only
    t_both, t_only = common_and_ours(ours.scalars, ref.scalars)
    groups["both"]["scalars"], groups["ours"]["scalars"] = t_both, t_only
    e_both, e_only = common_and_ours(ours.enums, ref.enums)
    groups["both"]["enums"], groups["ours"]["enums"] = e_both, e_only
    kinds = {}
    for hs, tag in ((ours, "ours"), (ref, "ref")):
        for n, v in hs.obj_macros.items():
            kinds.setdefault(n, {})[tag] = classify(v)
    for k in ("numbers", "strings", "inits"):
        groups["both"][k], groups["ours"][k] = [], []
    want = {"number": "numbers", "string": "strings", "init": "inits"}
    for n in sorted(kinds):
        ko = kinds[n].get("ours")
        kr = kinds[n].get("ref")
        if ko not in want:
            continue
        if ko == "init" and init_type(n, ours) is None:
            continue
        if kr == ko and (ko != "init" or init_type(n, ref) is not None):
            groups["both"][want[ko]].append(n)
        else:
            groups["ours"][want[ko]].append(n)

    out = ["/* Generated by tests-c/abi/abicheck.py - do not edit. */",
           "#include <stddef.h>", "#include <stdio.h>", "#include <string.h>"]
    out += [f"#include <{h}>" for h in TOP_HEADERS]
    out += [
        "static void dump_string(const char *name, const char *s)",
        "{",
        "    printf(\"const %s = \\\"\", name);",
        "    for (; *s; s++) {",
        "        if (*s == '\"' || *s == '\\\\' || *s < 32) printf(\"\\\\x%02x\", (unsigned char)*s);",
        "        else putchar(*s);",
        "    }",
        "    printf(\"\\\"\\n\");",
        "}",
        "static void dump_bytes(const char *what, const void *p, size_t n)",
        "{",
        "    const unsigned char *b = p;",
        "    printf(\"%s = \", what);",
        "    for (size_t i = 0; i < n; i++) printf(\"%02x\", b[i]);",
        "    printf(\"\\n\");",
        "}",
        "int main(void)",
        "{",
    ]
    emit_items(out, ours, ref, groups["both"])
    out.append("#ifdef DUMP_OURS_ONLY")
    # members of common structs that only we have
    for s in groups["both"]["structs"]:
        refmem = dict(ref.structs[s]["members"])
        for mname, _ in ours.structs[s]["members"]:
            if mname not in refmem:
                out.append(f'    printf("field {s}.{mname} offset=%zu size=%zu\\n", '
                           f'offsetof({s}, {mname}), sizeof((({s} *)0)->{mname}));')
            else:
                refu = dict(ref.structs[s]["unions"].get(mname, []))
                for uname, _ in ours.structs[s]["unions"].get(mname, []):
                    if uname not in refu:
                        out.append(f'    printf("field {s}.{mname}.{uname} offset=%zu size=%zu\\n", '
                                   f'offsetof({s}, {mname}.{uname}), sizeof((({s} *)0)->{mname}.{uname}));')
    emit_items(out, ours, ours, groups["ours"])
    out.append("#endif")
    out += ["    return 0;", "}"]
    with open(path, "w") as fh:
        fh.write("\n".join(out) + "\n")


def gen_typecheck(ours, ref, sigs, path):
    out = ["/* Generated by tests-c/abi/abicheck.py - do not edit. Compiled against our",
           " * headers only; any conflicting declaration is a compile error. */"]
    out += [f"#include <{h}>" for h in TOP_HEADERS]
    if sigs:
        out.append("/* every function of the signature list is declared by our headers */")
        out.append("void *abicheck_declared[] = {")
        for name, _ in sigs:
            out.append(f"    (void *)&{name},")
        out.append("};")
        out.append("/* and agrees with the listed prototype */")
        for _, proto in sigs:
            out.append("extern " + proto)
    out.append("/* reference prototypes */")
    for name in sorted(ref.protos):
        if name in ours.protos:
            out.append(ref.protos[name])
    out.append("/* reference function-pointer typedefs (identical redefinition is allowed) */")
    for name in sorted(ref.fptr_typedefs):
        if name in ours.fptr_typedefs:
            out.append(ref.fptr_typedefs[name])
    out.append("/* reference scalar typedefs */")
    for name in sorted(ref.scalars):
        typ = ref.scalars[name]
        if name in ours.scalars and typ and name not in ref.is_array and ours.scalars[name]:
            out.append(f"typedef {typ} {name};")
    out.append("/* member types */")
    for s in sorted(set(ours.structs) & set(ref.structs)):
        om = dict(ours.structs[s]["members"])
        for mname, rtyp in ref.structs[s]["members"]:
            if mname not in om:
                continue
            if rtyp is not None:
                out.append(f"_Static_assert(__builtin_types_compatible_p(__typeof__((({s} *)0)->{mname}), "
                           f"{rtyp}), \"{s}.{mname} has the reference type\");")
            else:
                ou = dict(ours.structs[s]["unions"].get(mname, []))
                for uname, utyp in ref.structs[s]["unions"].get(mname, []):
                    if uname in ou and utyp is not None:
                        out.append(f"_Static_assert(__builtin_types_compatible_p(__typeof__((({s} *)0)->{mname}.{uname}), "
                                   f"{utyp}), \"{s}.{mname}.{uname} has the reference type\");")
    out.append("int main(void) { return 0; }")
    with open(path, "w") as fh:
        fh.write("\n".join(out) + "\n")


def read_signatures(path):
    sigs = []
    with open(path) as fh:
        for line in fh:
            line = line.strip().lstrip("+").strip()
            if not line or line.startswith("#"):
                continue
            m = re.search(r"\b(PMIx_\w+)\s*\(", line)
            if m:
                sigs.append((m.group(1), line if line.endswith(";") else line + ";"))
    return sigs


# ----------------------------------------------------------------------------------------
# Comparing
# ----------------------------------------------------------------------------------------

def parse_dump(text):
    d = {}
    for line in text.splitlines():
        if line.startswith("const ") or line.startswith("init "):
            k, _, v = line.partition(" = ")
        else:
            parts = line.split(" ", 2)
            k, v = " ".join(parts[:2]), (parts[2] if len(parts) > 2 else "")
        d[k] = v
    return d


def presence_diffs(ours, ref):
    diffs = []

    def cmp(kind, a, b):
        for n in sorted(set(b) - set(a)):
            diffs.append(f"missing {kind} {n}")

    cmp("struct", ours.structs, ref.structs)
    for s in sorted(set(ours.structs) & set(ref.structs)):
        if ours.structs[s]["tag"] != ref.structs[s]["tag"]:
            diffs.append(f"tag {s} ours={ours.structs[s]['tag']!r} ref={ref.structs[s]['tag']!r}")
        om = dict(ours.structs[s]["members"])
        for mname, _ in ref.structs[s]["members"]:
            if mname not in om:
                diffs.append(f"missing field {s}.{mname}")
            else:
                ou = dict(ours.structs[s]["unions"].get(mname, []))
                for uname, _ in ref.structs[s]["unions"].get(mname, []):
                    if uname not in ou:
                        diffs.append(f"missing field {s}.{mname}.{uname}")
        # member order must agree for the common members
        rorder = [m for m, _ in ref.structs[s]["members"] if m in om]
        oorder = [m for m, _ in ours.structs[s]["members"] if m in dict(ref.structs[s]["members"])]
        if rorder != oorder:
            diffs.append(f"order {s}")
    cmp("type", ours.scalars, ref.scalars)
    cmp("enumerator", ours.enums, ref.enums)
    cmp("fptr-typedef", ours.fptr_typedefs, ref.fptr_typedefs)
    cmp("function", ours.protos, ref.protos)
    # an inline helper of the reference may be a macro (or function) in ours
    have = set(ours.inline_fns) | set(ours.fn_macros) | set(ours.protos)
    for n in sorted(ref.inline_fns - have):
        diffs.append(f"missing inline {n}")
    cmp("extern-var", ours.extern_vars, ref.extern_vars)
    ofn = set(ours.fn_macros) | set(ours.protos) | set(ours.inline_fns)
    for n in sorted(set(ref.fn_macros) - ofn):
        diffs.append(f"missing fn-macro {n}")
    for n in sorted(set(ref.obj_macros) - set(ours.obj_macros)):
        diffs.append(f"missing macro {n}")
    for n in sorted(set(ours.obj_macros) & set(ref.obj_macros)):
        ko, kr = classify(ours.obj_macros[n]), classify(ref.obj_macros[n])
        if ko != kr and not (ko == "attr" and kr == "attr"):
            diffs.append(f"kind macro {n} ours={ko} ref={kr}")
    return diffs


def value_diffs(od, rd):
    diffs = []
    for k in sorted(set(od) & set(rd)):
        if od[k] != rd[k]:
            diffs.append(f"value {k} ours={od[k]} ref={rd[k]}")
    for k in sorted(set(rd) - set(od)):
        diffs.append(f"value {k} missing in ours")
    return diffs


def module_slots(dump, label):
    errs = []
    slots = [(k, v) for k, v in dump.items() if k.startswith("field pmix_server_module_t.")]
    offs = {}
    for k, v in slots:
        m = re.match(r"offset=(\d+) size=(\d+)", v)
        offs[k.split(".", 1)[1]] = int(m.group(1))
    order = sorted(offs, key=offs.get)
    first28 = order[:28]
    for i, name in enumerate(first28):
        if offs[name] != 8 * i:
            errs.append(f"{label}: pmix_server_module_t.{name} at {offs[name]}, want {8 * i}")
    if len(first28) != 28:
        errs.append(f"{label}: pmix_server_module_t has {len(first28)} slots, want at least 28")
    return errs, first28


def load_allow(path):
    entries = []
    with open(path) as fh:
        for n, line in enumerate(fh, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            pat, sep, reason = line.partition("|")
            if not sep or not reason.strip():
                sys.exit(f"abicheck: {path}:{n}: need 'pattern | reason'")
            entries.append([pat.strip(), reason.strip(), 0])
    return entries


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ours", required=True)
    ap.add_argument("--ref", required=True)
    ap.add_argument("--ref-label", default="ref")
    ap.add_argument("--allow", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--cc", default=os.environ.get("CC", "cc"))
    ap.add_argument("--rust-list")
    ap.add_argument("--signatures")
    ap.add_argument("--rust-layout", help="output of `gen-header --layout`")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    cflags = ["-std=gnu11", "-Wall", "-Wextra", "-Werror", "-Wno-unused-parameter", "-Wno-type-limits"]

    ours = HeaderSet(a.ours, a.cc)
    ref = HeaderSet(a.ref, a.cc)
    dump_c = os.path.join(a.out, "dump.c")
    gen_dump(ours, ref, dump_c)
    sigs = read_signatures(a.signatures) if a.signatures else []
    tc_c = os.path.join(a.out, "typecheck.c")
    gen_typecheck(ours, ref, sigs, tc_c)

    problems = []
    outputs = {}
    for label, inc, extra in (("ours", a.ours, ["-DDUMP_OURS_ONLY"]), (a.ref_label, a.ref, [])):
        exe = os.path.join(a.out, f"dump-{label}")
        r = run([a.cc, *cflags, *extra, "-I", inc, dump_c, "-o", exe])
        if r.returncode != 0:
            sys.exit(f"abicheck: dump.c does not compile against {label}:\n{r.stderr[:4000]}")
        r = run([exe])
        if r.returncode != 0:
            sys.exit(f"abicheck: dump-{label} failed")
        with open(os.path.join(a.out, f"dump-{label}.txt"), "w") as fh:
            fh.write(r.stdout)
        outputs[label] = parse_dump(r.stdout)
    r = run([a.cc, *cflags, "-c", "-I", a.ours, tc_c, "-o", os.path.join(a.out, "typecheck.o")])
    if r.returncode != 0:
        errs = [l for l in r.stderr.splitlines() if "error" in l]
        problems += ["typecheck: " + l for l in errs[:50]] or ["typecheck: " + r.stderr[:2000]]

    od, rd = outputs["ours"], outputs[a.ref_label]
    diffs = presence_diffs(ours, ref) + value_diffs(od, rd)

    for label, d in (("ours", od), (a.ref_label, rd)):
        errs, _ = module_slots(d, label)
        problems += errs
    _, o28 = module_slots(od, "ours")
    _, r28 = module_slots(rd, a.ref_label)
    if o28 != r28:
        problems.append(f"pmix_server_module_t: first 28 slots differ: {o28} vs {r28}")
    module_note = (f"pmix_server_module_t: first 28 slots at offsets 0..216 in both, same names "
                   f"(ours has {len([k for k in od if k.startswith('field pmix_server_module_t.')])} slots)")
    nrust = 0

    if a.rust_list:
        with open(a.rust_list) as fh:
            for line in fh:
                name, _, val = line.strip().partition(" ")
                key = f"const {name}"
                if key not in od:
                    problems.append(f"rust: {name} is not defined by our headers")
                    continue
                cval = od[key].split(" size=")[0]
                nrust += 1
                if cval != val:
                    problems.append(f"rust: {name} = {val} in pmix-sys, {cval} in our headers")

    nlayout = 0
    if a.rust_layout:
        rust = parse_dump(open(a.rust_layout).read())
        for k, v in rust.items():
            if k not in od:
                problems.append(f"rust layout: {k} has no counterpart in our C headers")
                continue
            cv = od[k]
            if k.startswith("type ") and ours.scalars.get(k[5:]) == "":
                v, cv = v.split(" signed=")[0], cv.split(" signed=")[0]
            nlayout += 1
            if v != cv:
                problems.append(f"rust layout: {k}: pmix-sys {v}, C headers {cv}")
        for k in od:
            if k.startswith("struct ") and k not in rust:
                problems.append(f"rust layout: pmix-sys has no #[repr(C)] type for C {k}")
            if k.startswith("field ") and k.split(".")[0].replace("field", "struct") in rust \
                    and k not in rust:
                problems.append(f"rust layout: pmix-sys lacks member {k[6:]}")

    allow = load_allow(a.allow)
    unexplained = []
    for d in diffs:
        hit = None
        for e in allow:
            if fnmatch.fnmatchcase(d, e[0]):
                hit = e
                break
        if hit:
            hit[2] += 1
        else:
            unexplained.append(d)
    stale = [e for e in allow if e[2] == 0]

    print(f"abicheck: ours={a.ours} {a.ref_label}={a.ref}")
    print(f"  structs compared: {len(set(ours.structs) & set(ref.structs))}, "
          f"dump lines: ours {len(od)}, {a.ref_label} {len(rd)}")
    print(f"  prototypes/typedefs/member types checked: {tc_c} compiled against ours "
          f"({len(ref.protos)} {a.ref_label} prototypes, {len(sigs)} listed signatures)")
    if a.rust_list:
        print(f"  pmix-sys constants compared with our headers: {nrust}")
    if a.rust_layout:
        print(f"  pmix-sys layout lines compared with our headers: {nlayout}")
    if not any("pmix_server_module_t" in p for p in problems):
        print(f"  {module_note}")
    print(f"  differences: {len(diffs)} ({len(diffs) - len(unexplained)} allowed)")
    for e in allow:
        if e[2]:
            print(f"  allowed x{e[2]:<3} {e[0]}  -- {e[1]}")
    ok = True
    for d in unexplained:
        print(f"FAIL difference not in the allow-list: {d}")
        ok = False
    for e in stale:
        print(f"FAIL allow-list entry matches nothing (remove it): {e[0]}")
        ok = False
    for p in problems:
        print(f"FAIL {p}")
        ok = False
    print("abicheck: " + ("ok" if ok else "FAILED"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
