#!/usr/bin/env python3
"""Compare the outputs of tests-c/diff/diff.c built against our library and against
OpenPMIx 4.2.2. Each output line is "id<TAB>result". A difference (a result that differs,
or an id only one side printed) fails unless its id matches a pattern of the allow-list.

Allow-list lines: "<fnmatch pattern of ids> | <reason>"; '#' starts a comment. Every
pattern needs a reason, and a pattern that no longer matches any difference is reported
(so the list shrinks when behaviour converges)."""

import argparse
import fnmatch
import sys


def load(path):
    out = {}
    for line in open(path, encoding="utf-8", errors="replace"):
        line = line.rstrip("\n")
        if not line:
            continue
        key, _, val = line.partition("\t")
        out[key] = val
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ours", required=True)
    ap.add_argument("--ref", required=True)
    ap.add_argument("--allow", required=True)
    a = ap.parse_args()
    ours, ref = load(a.ours), load(a.ref)
    allow = []
    for n, line in enumerate(open(a.allow), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        pat, sep, reason = line.partition("|")
        if not sep or not reason.strip():
            sys.exit(f"{a.allow}:{n}: every allow-list entry needs '| reason'")
        allow.append([pat.strip(), reason.strip(), 0])
    bad = 0
    allowed = 0
    for key in sorted(set(ours) | set(ref)):
        o, r = ours.get(key, "<missing>"), ref.get(key, "<missing>")
        if o == r:
            continue
        hit = next((e for e in allow if fnmatch.fnmatchcase(key, e[0])), None)
        if hit:
            hit[2] += 1
            allowed += 1
            continue
        bad += 1
        print(f"FAIL {key}\n     4.2.2: {r}\n     ours:  {o}")
    for pat, reason, used in allow:
        if not used:
            print(f"note allow-list entry '{pat}' matches no difference any more")
    same = sum(1 for k in ours if ours.get(k) == ref.get(k))
    print(f"robust-diff: {len(ours)} observations, {same} identical, {allowed} allowed differences, "
          f"{bad} unexpected differences")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
