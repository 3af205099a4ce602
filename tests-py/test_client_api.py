"""The rest of PMIxClient, under a launcher."""

import pytest

from conftest import assert_ok, pmixrun_only, run_ranks

PROG = "client_api.py"


def test_lifecycle():
    assert_ok(run_ranks(PROG, "lifecycle"), 0)


@pytest.mark.parametrize("scenario", [
    "put_types", "store_internal", "publish_lookup", "publish_lookup_nb", "resolve", "events_local",
    "event_registration_nb", "log", "strings", "results_shapes", "spawn",
])
def test_scenario(scenario):
    assert_ok(run_ranks(PROG, scenario), 2)


@pmixrun_only("ORTE answers a multi-key lookup with only some of the keys")
def test_publish_lookup_multi():
    assert_ok(run_ranks(PROG, "publish_lookup_multi"), 2)


@pmixrun_only("after a PMIX_RANGE_NAMESPACE notification ORTE never completes the next fence")
def test_events_namespace():
    assert_ok(run_ranks(PROG, "events_namespace"), 2)


def test_event_handler_exception():
    run = run_ranks(PROG, "event_handler_exception")
    assert_ok(run, 2)
    assert "boom in event handler" in run.stderr, run.report()


def test_abort_ends_the_job():
    run = run_ranks(PROG, "abort", timeout=50)
    assert "[0] ok - rank 0 aborting" in run.stdout, run.report()
    assert not run.lines("FAIL"), run.report()
    assert run.returncode not in (0, 137, -9), run.report()
