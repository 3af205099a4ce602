"""Spawn, job control, groups, queries and every _nb form, from Python."""

from conftest import assert_ok, pmix_rs_only, pmixrun_only, run_ranks

PROG = "dynamic.py"


@pmixrun_only("spawned children get no PMIX_PARENT_ID/PMIX_SPAWNED; PMIx_Connect answers PMIX_ERR_PARTIAL_SUCCESS "
              "and exchanges no endpoint data")
def test_spawn_children_connect_back():
    run = run_ranks(PROG, "spawn_connect")
    assert_ok(run, 2)
    for r in range(2):
        assert ("[child %d] ok - finalize" % r) in run.stdout, "child %d did not finalize\n%s" % (r, run.report())


@pmixrun_only("ORTE accepts the kill but logs 'ORTE_ERROR_LOG: Not found', no PMIX_EVENT_JOB_END comes, "
              "and mpirun segfaults in PMIx_server_finalize at exit")
def test_job_control():
    assert_ok(run_ranks(PROG, "job_control"), 2)


@pmixrun_only("ORTE does not support PMIx groups")
def test_groups():
    assert_ok(run_ranks(PROG, "groups", np=4), 4)


@pmixrun_only("ORTE answers PMIx_Query_info with PMIX_ERROR")
def test_query():
    assert_ok(run_ranks(PROG, "query"), 2)


def test_every_nb_form_calls_back_once_on_the_progress_thread():
    run = run_ranks(PROG, "nb_forms")
    assert_ok(run, 2)
    assert "boom in query_nb callback" in run.stderr, run.report()
    assert "pmix: exception in the query_nb callback" in run.stderr, run.report()


@pmix_rs_only("the handlers of a PMIX_RANGE_PROC_LOCAL event and notify_event's callback run in the caller's thread")
def test_local_event_runs_on_the_progress_thread():
    assert_ok(run_ranks(PROG, "local_event"), 2)
