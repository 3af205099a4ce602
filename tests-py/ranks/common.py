"""Shared helpers for the rank programs (run as ranks under a launcher).

Each program is ``python3 <prog>.py <scenario>``. It prints one ``ok - ...``
or ``FAIL - ...`` line per check, prefixed with the rank, and its exit status
is the verdict (0 = every check passed). A watchdog dumps the stacks and
exits non-zero if a scenario hangs.
"""

import faulthandler
import os
import sys
import threading
import time
import traceback

from pmix import *  # noqa: F401,F403  (the pages' own import)
from pmix import PMIxClient

WATCHDOG = float(os.environ.get("PMIX_TEST_WATCHDOG", "45"))

_failures = 0
_checks = 0
_tag = "[?]"


_out_lock = threading.Lock()


def say(*parts):
    """print(), but one locked write per line: callbacks print from the
    progress thread while the main thread prints its checks."""
    line = " ".join(str(p) for p in parts) + "\n"
    with _out_lock:
        sys.stdout.write(line)
        sys.stdout.flush()


def check(cond, what):
    """Record one check; never raises."""
    global _failures, _checks
    _checks += 1
    if cond:
        say("%s ok - %s" % (_tag, what))
    else:
        _failures += 1
        say("%s FAIL - %s" % (_tag, what))
    return bool(cond)


def check_eq(got, want, what):
    return check(got == want, "%s (got %r, want %r)" % (what, got, want))


def check_rc(foo, rc, want, what):
    return check(rc == want, "%s: rc %s (%r), want %s" % (what, foo.error_string(rc), rc, foo.error_string(want)))


class Waiter:
    """Collects callback invocations from the progress thread."""

    def __init__(self):
        self.calls = []
        self.thread_ids = []
        self.native_ids = []
        self.event = threading.Event()
        self.lock = threading.Lock()
        self.cond = threading.Condition(self.lock)

    def __call__(self, *args):
        with self.lock:
            self.calls.append(args)
            self.thread_ids.append(threading.get_ident())
            self.native_ids.append(threading.get_native_id())
            self.cond.notify_all()
        self.event.set()

    def wait(self, timeout=20.0):
        return self.event.wait(timeout)

    def wait_until(self, pred, timeout=20.0):
        """Wait until ``pred(calls)`` holds; False if it never did in time."""
        deadline = time.monotonic() + timeout
        with self.cond:
            while not pred(self.calls):
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self.cond.wait(left)
            return True

    def settle(self, delay=0.5):
        """Give a stray second invocation the chance to show up."""
        time.sleep(delay)
        with self.lock:
            return list(self.calls)


def thread_name(native_id):
    """The kernel's name of one of our threads (None if unknown)."""
    try:
        with open("/proc/self/task/%d/comm" % native_id) as f:
            return f.read().strip()
    except OSError:
        return None


def check_progress_thread(foo, waiter, what):
    """Every call the waiter saw ran on the library's progress thread: not on
    ours, and (pmix-rs names it) on the thread called pmix-progress."""
    with waiter.lock:
        ids = list(waiter.thread_ids)
        native = list(waiter.native_ids)
    if not ids:
        return check(False, "%s: no callback to check the thread of" % what)
    ok = threading.main_thread().ident not in ids
    names = [thread_name(n) for n in native]
    if is_pmix_rs(foo):
        ok = ok and all(n == "pmix-progress" for n in names)
    return check(ok, "%s ran on the progress thread (%s)" % (what, ", ".join(str(n) for n in names)))


class Ctx:
    def __init__(self, foo, me):
        self.foo = foo
        self.me = me
        self.ns = me["nspace"]
        self.rank = me["rank"]
        rc, v = foo.get({"nspace": self.ns, "rank": PMIX_RANK_WILDCARD}, PMIX_JOB_SIZE, [])
        self.size = v["value"] if rc == PMIX_SUCCESS and v else 1
        self.wild = [{"nspace": self.ns, "rank": PMIX_RANK_WILDCARD}]

    def peer(self, offset=1):
        return {"nspace": self.ns, "rank": (self.rank + offset) % self.size}

    def barrier(self):
        return self.foo.fence(None, None)


def info(key, value, val_type):
    return {"key": key, "value": value, "val_type": val_type}


def is_pmix_rs(foo):
    v = foo.get_version() or ""
    return "pmix-rs" in v


def main(scenarios, init=True, tag=""):
    """Run the scenario named in argv[1] (or list them with --list). ``tag``
    prefixes the rank in every line (e.g. "child " for a spawned job)."""
    global _tag
    if len(sys.argv) < 2 or sys.argv[1] == "--list":
        print("\n".join(sorted(scenarios)))
        return 0
    name = sys.argv[1]
    if name not in scenarios:
        print("unknown scenario %r; known: %s" % (name, ", ".join(sorted(scenarios))), flush=True)
        return 2
    faulthandler.dump_traceback_later(WATCHDOG, exit=True)
    foo = PMIxClient()
    if not init:
        _tag = "[pid %d]" % os.getpid()
        try:
            scenarios[name](foo)
        except BaseException:
            traceback.print_exc()
            check(False, "scenario %s raised" % name)
        return finish()
    rc, me = foo.init()
    if rc != PMIX_SUCCESS:
        say("[?] FAIL - init: %s" % foo.error_string(rc))
        return 1
    _tag = "[%s%d]" % (tag, me["rank"])
    ctx = Ctx(foo, me)
    try:
        scenarios[name](ctx)
    except BaseException:
        traceback.print_exc()
        sys.stdout.flush()
        check(False, "scenario %s raised" % name)
    rc = foo.finalize()
    check_rc(foo, rc, PMIX_SUCCESS, "finalize")
    return finish()


def finish():
    faulthandler.cancel_dump_traceback_later()
    if _checks == 0:
        say("%s FAIL - no checks ran" % _tag)
        return 1
    return 1 if _failures else 0
