"""PMIxTool and I/O forwarding (iof_pull/iof_deregister/iof_push) from Python."""

from conftest import assert_ok, pmix_rs_only, pmixrun_only, run_ranks

PROG = "tool_iof.py"


@pmix_rs_only("PMIx_tool_* and PMIx_IOF_* as pmix-rs implements them (tool identity <nspace>-tool<n>)")
@pmixrun_only("the tool finds the server by pmixrun's pid")
def test_python_tool_attaches_to_a_running_job():
    run = run_ranks(PROG, "attach")
    assert_ok(run, 2)
    assert "tool: [pid" in run.stdout and "ok - tool finalize" in run.stdout, run.report()


@pmixrun_only("ORTE's IOF forwarding to a client is not what this checks")
def test_a_rank_pulls_its_peers_stdout():
    assert_ok(run_ranks(PROG, "peers", np=3), 3)
