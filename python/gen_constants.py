#!/usr/bin/env python3
"""Generate pmix/_constants.py from the PMIx C headers.

The constants are never typed by hand: this script runs the C preprocessor
over the headers (``cc -dM -E`` lists every macro, ``cc -E`` gives the enums),
keeps every object-like ``PMIX_*`` macro whose body is a number, a numeric
expression or a string literal, evaluates the numeric ones with a small
whitelisting evaluator (no ``eval``), adds the ``PMIX_*`` enumerators, and
writes them sorted by name.

Usage:
    gen_constants.py --include DIR [--cc CC] [--output FILE] [--check]

``--check`` regenerates into memory and exits 1 if FILE differs (the make
target ``python-constants-check`` uses it).
"""

import argparse
import ast
import os
import re
import subprocess
import sys
import tempfile

HEADERS = ("pmix.h", "pmix_server.h", "pmix_tool.h")

# Limits of <stdint.h> that the headers use in their definitions.
C_LIMITS = {
    "UINT8_MAX": 0xFF,
    "UINT16_MAX": 0xFFFF,
    "UINT32_MAX": 0xFFFFFFFF,
    "UINT64_MAX": 0xFFFFFFFFFFFFFFFF,
    "INT8_MAX": 0x7F,
    "INT16_MAX": 0x7FFF,
    "INT32_MAX": 0x7FFFFFFF,
    "INT64_MAX": 0x7FFFFFFFFFFFFFFF,
    "INT8_MIN": -0x80,
    "INT16_MIN": -0x8000,
    "INT32_MIN": -0x80000000,
    "INT64_MIN": -0x8000000000000000,
    "SIZE_MAX": 0xFFFFFFFFFFFFFFFF,
    "INT_MAX": 0x7FFFFFFF,
    "UINT_MAX": 0xFFFFFFFF,
}

DEFINE_RE = re.compile(r"^#define (PMIX_[A-Za-z0-9_]*)(?:\s+(.*))?$")
# a cast to an integer type, e.g. "(uint32_t)" or "(pmix_status_t)"
CAST_RE = re.compile(
    r"\(\s*(?:const\s+)?(?:unsigned\s+|signed\s+)?"
    r"(?:u?int(?:8|16|32|64)_t|size_t|int|long|short|char|pmix_[a-z_]+_t)\s*\)"
)
INT_SUFFIX_RE = re.compile(r"\b(0[xX][0-9a-fA-F]+|\d+)(?:[uU]?[lL]{0,2}|[lL]{1,2}[uU])\b")
ENUM_RE = re.compile(r"\benum\b[^{;]*\{([^}]*)\}")

_BINOPS = (ast.Add, ast.Sub, ast.Mult, ast.BitOr, ast.BitAnd, ast.BitXor, ast.LShift, ast.RShift)
_UNOPS = (ast.USub, ast.UAdd, ast.Invert)


class NotConstant(Exception):
    """The macro body is not a constant we can express in Python."""


def _int(v):
    if not isinstance(v, int):
        raise NotConstant("arithmetic on a string")
    return v


def _eval_node(node, resolve):
    if isinstance(node, ast.Expression):
        return _eval_node(node.body, resolve)
    if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
        return node.value
    if isinstance(node, ast.Name):
        return resolve(node.id)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, _UNOPS):
        v = _int(_eval_node(node.operand, resolve))
        if isinstance(node.op, ast.USub):
            return -v
        if isinstance(node.op, ast.UAdd):
            return v
        return ~v
    if isinstance(node, ast.BinOp) and isinstance(node.op, _BINOPS):
        a = _int(_eval_node(node.left, resolve))
        b = _int(_eval_node(node.right, resolve))
        op = node.op
        if isinstance(op, ast.Add):
            return a + b
        if isinstance(op, ast.Sub):
            return a - b
        if isinstance(op, ast.Mult):
            return a * b
        if isinstance(op, ast.BitOr):
            return a | b
        if isinstance(op, ast.BitAnd):
            return a & b
        if isinstance(op, ast.BitXor):
            return a ^ b
        if isinstance(op, ast.LShift):
            if not 0 <= b < 64:
                raise NotConstant("shift out of range")
            return a << b
        return a >> b
    raise NotConstant(ast.dump(node))


def parse_string(body):
    """A body made only of adjacent C string literals -> str, else None."""
    pieces = re.findall(r'"((?:[^"\\]|\\.)*)"', body)
    if not pieces:
        return None
    if re.sub(r'"((?:[^"\\]|\\.)*)"', "", body).strip():
        return None
    out = []
    for p in pieces:
        if "\\" in p:
            # only the simple escapes a key string could carry
            p = p.encode("latin-1").decode("unicode_escape")
        out.append(p)
    return "".join(out)


class Table:
    def __init__(self, macros):
        self.macros = macros  # name -> body text
        self.values = {}
        self.busy = set()

    def resolve(self, name):
        if name in self.values:
            return self.values[name]
        if name in C_LIMITS:
            return C_LIMITS[name]
        if name not in self.macros or name in self.busy:
            raise NotConstant(name)
        self.busy.add(name)
        try:
            v = self.evaluate(self.macros[name])
        finally:
            self.busy.discard(name)
        self.values[name] = v
        return v

    def evaluate(self, body):
        body = body.strip()
        if not body:
            raise NotConstant("empty")
        s = parse_string(body)
        if s is not None:
            return s
        if '"' in body or "'" in body or "{" in body:
            raise NotConstant(body)
        expr = CAST_RE.sub(" ", body)
        expr = INT_SUFFIX_RE.sub(lambda m: m.group(1), expr)
        # C octal literals ("010") are not Python; the headers have none but
        # refuse rather than misread one
        if re.search(r"(?<![0-9A-Za-z_x])0[0-7]+\b", expr):
            raise NotConstant("octal")
        try:
            tree = ast.parse(expr, mode="eval")
        except SyntaxError as e:
            raise NotConstant(str(e))
        return _eval_node(tree, self.resolve)


def preprocess(cc, include, flags):
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, "consts.c")
        with open(src, "w") as f:
            for h in HEADERS:
                if os.path.exists(os.path.join(include, h)):
                    f.write("#include <%s>\n" % h)
        cmd = [cc] + flags + ["-I" + include, src]
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if r.returncode != 0:
            sys.stderr.write(r.stderr)
            raise SystemExit("gen_constants: %s failed" % " ".join(cmd))
        return r.stdout


def collect(cc, include):
    if not os.path.exists(os.path.join(include, "pmix.h")):
        raise SystemExit("gen_constants: no pmix.h in %s" % include)
    macros = {}
    for line in preprocess(cc, include, ["-dM", "-E"]).splitlines():
        m = DEFINE_RE.match(line)
        if m:
            macros[m.group(1)] = m.group(2) or ""
    table = Table(macros)
    out = {}
    for name, body in macros.items():
        try:
            v = table.values[name] if name in table.values else table.evaluate(body)
        except NotConstant:
            continue
        out[name] = v
        table.values[name] = v
    # enumerators (pmix_group_opt_t, pmix_value_cmp_t, ...)
    text = preprocess(cc, include, ["-E", "-P"])
    for m in ENUM_RE.finditer(text):
        members = [x.strip() for x in m.group(1).split(",") if x.strip()]
        if not members or not all(x.startswith("PMIX_") for x in members):
            continue
        nxt = 0
        for member in members:
            if "=" in member:
                name, expr = (p.strip() for p in member.split("=", 1))
                try:
                    nxt = table.evaluate(expr)
                except NotConstant:
                    break
            else:
                name = member
            if name not in out:
                out[name] = nxt
                table.values[name] = nxt
            nxt += 1
    return out


def render(consts):
    lines = [
        "# Generated by python/gen_constants.py from the PMIx C headers"
        " (%s). Do not edit:" % ", ".join(HEADERS),
        "# run `make python-constants` to regenerate.",
        "# flake8: noqa",
        "",
    ]
    for name in sorted(consts):
        lines.append("%s = %r" % (name, consts[name]))
    lines.append("")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--include", required=True, help="directory holding pmix.h")
    ap.add_argument("--cc", default=os.environ.get("CC", "cc"))
    ap.add_argument("--output", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "pmix", "_constants.py"))
    ap.add_argument("--check", action="store_true", help="compare with --output instead of writing it")
    args = ap.parse_args()
    text = render(collect(args.cc, args.include))
    if args.check:
        try:
            with open(args.output) as f:
                old = f.read()
        except OSError:
            old = None
        if old != text:
            sys.stderr.write("gen_constants: %s is out of date; run `make python-constants`\n" % args.output)
            return 1
        return 0
    with open(args.output, "w") as f:
        f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
