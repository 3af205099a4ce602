"""PMIxTool and I/O forwarding from Python. Run as ranks: ``tool_iof.py <scenario>``.

  attach  (2 ranks) rank 0 starts a Python tool (this file, scenario ``tool``, with
          the rank's PMIx identity and server URIs removed from its environment)
          that attaches to pmixrun by its pid (PMIX_SERVER_PIDINFO), checks its
          server, finds the job among the namespaces, gets the job size, pulls the
          stdout of every rank, tells rank 0 it is ready through a pipe, waits for
          the marker line each rank prints after that, deregisters, disconnects,
          attaches again and finalizes; bad arguments raise. Rank 0 relays the
          tool's lines and checks its exit status.
  peers   (3 ranks) rank 0 pulls its namespace's stdout and receives each peer's
          marker line, on the progress thread, never its own output; a blocking
          iof_pull from the handler is PMIX_ERR_WOULD_BLOCK; deregistration, push
          and bad arguments.
"""

import os
import select
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import Waiter, check, check_eq, check_progress_thread, check_rc, info, is_pmix_rs, main, say  # noqa: E402
from dynamic import query_answers, value_of  # noqa: E402
from pmix import *  # noqa: E402,F401,F403
from pmix import PMIxTool  # noqa: E402

WAIT_S = 30.0


def raises(exc, fn, what):
    try:
        fn()
    except exc as e:
        return check(True, "%s raises %s (%s)" % (what, exc.__name__, e))
    except BaseException as e:  # noqa: B902
        return check(False, "%s raised %r, want %s" % (what, e, exc.__name__))
    return check(False, "%s did not raise %s" % (what, exc.__name__))


class Output:
    """What an IOF handler received, per source rank."""

    def __init__(self):
        self.cond = threading.Condition()
        self.text = {}
        self.chunks = []  # (iofhdlr id, channel, source)
        self.threads = Waiter()

    def __call__(self, iofid, channel, source, payload, infos):
        self.threads()
        with self.cond:
            self.chunks.append((iofid, channel, source))
            if source is not None:
                r = source["rank"]
                self.text[r] = self.text.get(r, b"") + payload["bytes"]
            self.cond.notify_all()

    def wait_for(self, pred, timeout=WAIT_S):
        deadline = time.monotonic() + timeout
        with self.cond:
            while not pred():
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self.cond.wait(left)
            return True

    def has(self, rank, marker):
        return marker.encode() in self.text.get(rank, b"")


# -- the tool (a separate process, started by rank 0 of "attach") -------------
def tool(_foo):
    pid, job, fd = int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
    t = PMIxTool()
    target = [info(PMIX_SERVER_PIDINFO, pid, PMIX_PID)]
    raises(TypeError, lambda: t.init("not-a-list"), "init(str)")
    rc, me = t.init(target)
    check_rc(t, rc, PMIX_SUCCESS, "tool init by pmixrun's pid")
    if rc != PMIX_SUCCESS:
        return
    check(me.get("nspace", "").startswith(job + "-tool") and me.get("rank") == 0, "identity %r" % (me,))
    check(t.is_connected(), "connected")
    rc, servers = t.get_servers()
    check(rc == PMIX_SUCCESS and len(servers) == 1, "one server: %s %r" % (t.error_string(rc), servers))
    server = servers[0] if servers else {"nspace": "none", "rank": 0}
    check_rc(t, t.set_server(server, None), PMIX_SUCCESS, "set_server(our server)")
    check_rc(t, t.set_server({"nspace": "no-such-server", "rank": 0}, None), PMIX_ERR_UNREACH, "set_server(another)")
    rc, res = t.query([{"keys": [PMIX_QUERY_NAMESPACES], "qualifiers": []}])
    nss = value_of(query_answers(res), PMIX_QUERY_NAMESPACES)
    check(rc == PMIX_SUCCESS and isinstance(nss, str) and job in nss.split(","),
          "the job %s is among the namespaces: %s %r" % (job, t.error_string(rc), nss))
    rc, v = t.get({"nspace": job, "rank": PMIX_RANK_WILDCARD}, PMIX_JOB_SIZE, [])
    check_eq((rc, v and v["value"]), (PMIX_SUCCESS, 2), "job size")
    out = Output()
    # bad arguments raise before anything reaches C
    raises(TypeError, lambda: t.set_server("server", None), "set_server(str)")
    raises(KeyError, lambda: t.disconnect({"nspace": job}), "disconnect(server without 'rank')")
    raises(TypeError, lambda: t.attach_to_server("not-a-list"), "attach_to_server(str)")
    wild = [{"nspace": job, "rank": PMIX_RANK_WILDCARD}]
    raises(TypeError, lambda: t.iof_pull(wild, "stdout", None, out), "iof_pull(channels=str)")
    raises(TypeError, lambda: t.iof_pull(wild, PMIX_FWD_STDOUT_CHANNEL, None, 42), "iof_pull(hdlr=int)")
    raises(TypeError, lambda: t.iof_pull("procs", PMIX_FWD_STDOUT_CHANNEL, None, out), "iof_pull(procs=str)")
    rc, iofid = t.iof_pull(wild, PMIX_FWD_STDOUT_CHANNEL, None, out)
    check(rc == PMIX_SUCCESS and iofid >= 0, "iof_pull of the job's stdout: %s, id %r" % (t.error_string(rc), iofid))
    os.write(fd, b"R")
    os.close(fd)
    check(out.wait_for(lambda: out.has(0, "py-tool-marker-0") and out.has(1, "py-tool-marker-1")),
          "both ranks' markers arrived through the pull")
    check(all(c[0] == iofid and c[1] == PMIX_FWD_STDOUT_CHANNEL for c in out.chunks), "every chunk tagged with our id")
    check_progress_thread(t, out.threads, "the IOF handler")
    check_rc(t, t.iof_deregister(iofid, None), PMIX_SUCCESS, "iof_deregister")
    check_rc(t, t.iof_deregister(iofid, None), PMIX_ERR_BAD_PARAM, "iof_deregister again")
    check_rc(t, t.disconnect(server), PMIX_SUCCESS, "disconnect(server)")
    check(not t.is_connected(), "not connected after disconnect")
    rc, me2, srv2 = t.attach_to_server(target)
    check(rc == PMIX_SUCCESS and me2 == me and srv2 == server,
          "attach again: same identity and server (%s %r %r)" % (t.error_string(rc), me2, srv2))
    rc, v = t.get({"nspace": job, "rank": PMIX_RANK_WILDCARD}, PMIX_JOB_SIZE, [])
    check_eq((rc, v and v["value"]), (PMIX_SUCCESS, 2), "job size after attaching again")
    check_rc(t, t.finalize(), PMIX_SUCCESS, "tool finalize")
    check(not t.is_connected(), "not connected after finalize")


def attach(ctx):
    foo = ctx.foo
    proc, rfd = None, None
    if ctx.rank == 0:
        env = {k: v for k, v in os.environ.items()
               if k not in ("PMIX_NAMESPACE", "PMIX_RANK", "PMIX_RS_SERVER_URI")
               and not k.startswith("PMIX_SERVER_URI")}
        rfd, wfd = os.pipe()
        # the tool's own lines come back through a pipe (they are relayed
        # below), so its output is not mixed into the stdout it pulls
        proc = subprocess.Popen([sys.executable, os.path.abspath(__file__), "tool", str(os.getppid()), ctx.ns,
                                 str(wfd)], env=env, pass_fds=(wfd,), stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        os.close(wfd)
        ready = select.select([rfd], [], [], WAIT_S)[0]
        check(ready and os.read(rfd, 1) == b"R", "the tool is pulling our output")
    check_rc(foo, foo.fence(None, None), PMIX_SUCCESS, "fence after the tool's pull")
    say("py-tool-marker-%d" % ctx.rank)
    if ctx.rank == 0:
        try:
            text, _ = proc.communicate(timeout=WAIT_S + 10)
        except subprocess.TimeoutExpired:
            proc.kill()
            text, _ = proc.communicate()
        os.close(rfd)
        for line in text.splitlines():
            say("  tool: " + line)
        check_eq(proc.returncode, 0, "the tool's exit status")
    check_rc(foo, foo.fence(None, None), PMIX_SUCCESS, "fence after the tool")


def peers(ctx):
    foo = ctx.foo
    if ctx.rank != 0:
        check_rc(foo, foo.fence(None, None), PMIX_SUCCESS, "fence 1")
        say("py-iof-peer-%d" % ctx.rank)
        check_rc(foo, foo.fence(None, None), PMIX_SUCCESS, "fence 2")
        return
    out = Output()
    nested = []

    def hdlr(*args):
        if not nested:
            nested.append(foo.iof_pull(ctx.wild, PMIX_FWD_STDOUT_CHANNEL, None, lambda *a: None))
        out(*args)

    rc, iofid = foo.iof_pull(ctx.wild, PMIX_FWD_STDOUT_CHANNEL, None, hdlr)
    check(rc == PMIX_SUCCESS and iofid >= 0, "iof_pull of the namespace's stdout: %s, id %r" % (foo.error_string(rc), iofid))
    say("py-iof-self-0")
    check_rc(foo, foo.fence(None, None), PMIX_SUCCESS, "fence 1")
    check(out.wait_for(lambda: all(out.has(r, "py-iof-peer-%d" % r) for r in range(1, ctx.size))),
          "every peer's marker arrived: %r" % (out.text,))
    check(0 not in out.text, "nothing from ourselves")
    check_progress_thread(foo, out.threads, "the IOF handler")
    check_eq(nested[:1], [(PMIX_ERR_WOULD_BLOCK, -1)], "a blocking iof_pull from the handler")
    check_rc(foo, foo.iof_deregister(iofid), PMIX_SUCCESS, "iof_deregister")
    check_rc(foo, foo.iof_deregister(iofid), PMIX_ERR_BAD_PARAM, "iof_deregister again")
    w = Waiter()
    rc, id2 = foo.iof_pull(ctx.wild, PMIX_FWD_STDERR_CHANNEL, [info(PMIX_TIMEOUT, 5, PMIX_INT)], w)
    check_rc(foo, rc, PMIX_SUCCESS, "iof_pull of stderr with a directive")
    rc = foo.iof_deregister(id2, None, w, "dereg")
    check_rc(foo, rc, PMIX_SUCCESS, "iof_deregister with a callback")
    check(w.wait_until(lambda calls: (PMIX_SUCCESS, "dereg") in calls), "its callback ran: %r" % (w.calls,))
    one = [{"nspace": ctx.ns, "rank": 1}]
    check_rc(foo, foo.iof_push(one, None), PMIX_SUCCESS, "iof_push without data")
    if is_pmix_rs(foo):
        check_rc(foo, foo.iof_push(one, {"bytes": b"x\n", "size": 2}), PMIX_ERR_NOT_SUPPORTED,
                 "iof_push to stdin (pmixrun has no push_stdin)")
    # bad arguments
    rc, bad = foo.iof_pull(None, PMIX_FWD_STDOUT_CHANNEL, None, out)
    check_eq((rc, bad), (PMIX_ERR_BAD_PARAM, -1), "iof_pull(procs=None)")
    check_rc(foo, foo.iof_pull(ctx.wild, PMIX_FWD_STDIN_CHANNEL, None, out)[0], PMIX_ERR_NOT_SUPPORTED, "iof_pull of stdin")
    raises(TypeError, lambda: foo.iof_pull(ctx.wild, PMIX_FWD_STDOUT_CHANNEL, None, None), "iof_pull(hdlr=None)")
    raises(ValueError, lambda: foo.iof_pull(ctx.wild, 1 << 20, None, out), "iof_pull(channels=2**20)")
    raises(TypeError, lambda: foo.iof_pull(ctx.wild, PMIX_FWD_STDOUT_CHANNEL, "dirs", out), "iof_pull(directives=str)")
    raises(ValueError, lambda: foo.iof_deregister(-1), "iof_deregister(-1)")
    raises(TypeError, lambda: foo.iof_deregister("1"), "iof_deregister('1')")
    raises(TypeError, lambda: foo.iof_push(one, 42), "iof_push(data=int)")
    raises(KeyError, lambda: foo.iof_push(one, {"size": 1}), "iof_push(data without 'bytes')")
    raises(TypeError, lambda: foo.iof_push(one, b"x", None, "not-callable"), "iof_push(cbfunc=str)")
    check_rc(foo, foo.fence(None, None), PMIX_SUCCESS, "fence 2")


if __name__ == "__main__":
    sys.exit(main({"attach": attach, "peers": peers, "tool": tool}, init=sys.argv[1:2] != ["tool"]))
