"""The PMIx_Fence page (seeds/002): example and rules."""

import pytest

from conftest import assert_ok, pmix_rs_only, run_alone, run_ranks

PROG = "fence_rules.py"


@pytest.mark.parametrize("np", [2, 4])
def test_page_example(np):
    assert_ok(run_ranks(PROG, "example", np=np), np)


@pytest.mark.parametrize("np", [2, 4])
def test_null_procs_span_the_namespace(np):
    assert_ok(run_ranks(PROG, "null_procs", np=np), np)


@pytest.mark.parametrize("np", [2, 4])
def test_collect_data(np):
    assert_ok(run_ranks(PROG, "collect_data", np=np), np)


def test_explicit_list():
    assert_ok(run_ranks(PROG, "explicit_list", np=3), 3)


def test_fence_nb_callback_contract():
    assert_ok(run_ranks(PROG, "nb"), 2)


@pmix_rs_only("fence_nb with a NULL cbfunc is fire-and-forget (returns at once)")
def test_fence_nb_null_cbfunc_blocks():
    assert_ok(run_ranks(PROG, "nb_null_cbfunc"), 2)


@pmix_rs_only("no participant check: a non-member's fence succeeds")
def test_not_a_member():
    assert_ok(run_ranks(PROG, "not_a_member"), 2)


@pmix_rs_only("no progress-thread check: a blocking call from a callback deadlocks")
def test_blocking_call_in_callback_would_block():
    assert_ok(run_ranks(PROG, "would_block"), 2)


def test_callback_exception_is_reported_and_survived():
    run = run_ranks(PROG, "callback_exception")
    assert_ok(run, 2)


def test_singleton_fence():
    run = run_alone(PROG, "singleton_fence")
    assert run.returncode == 0 and not run.lines("FAIL"), run.report()


@pmix_rs_only("a singleton's fence_nb returns PMIX_ERR_UNREACH")
def test_singleton_fence_nb_operation_succeeded():
    run = run_alone(PROG, "singleton_fence_nb")
    assert run.returncode == 0 and not run.lines("FAIL"), run.report()
