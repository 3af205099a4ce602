"""The PMIx_Connect page (seeds/001): example and rules."""

import pytest

from conftest import assert_ok, pmix_rs_only, pmixrun_only, run_ranks

PROG = "connect_rules.py"


@pmixrun_only("mpirun never exits after a PMIx_Connect that carried PMIX_TIMEOUT")
@pytest.mark.parametrize("np", [2, 4])
def test_page_example(np):
    run = run_ranks(PROG, "example", np=np)
    assert_ok(run, np)
    assert run.stdout.count("connect completed: SUCCESS") == np, run.report()


@pytest.mark.parametrize("np", [2, 4])
def test_page_example_without_directives(np):
    assert_ok(run_ranks(PROG, "example_no_directives", np=np), np)


def test_explicit_list():
    assert_ok(run_ranks(PROG, "explicit_list", np=3), 3)


def test_null_or_empty_procs_is_bad_param():
    assert_ok(run_ranks(PROG, "bad_param"), 2)


@pmix_rs_only("no membership check: a connect naming only others succeeds")
def test_not_a_member():
    assert_ok(run_ranks(PROG, "not_a_member"), 2)


def test_nb_callback_contract():
    assert_ok(run_ranks(PROG, "nb_cbdata"), 2)


@pmix_rs_only("no progress-thread check: a blocking call from a callback deadlocks")
def test_blocking_call_in_callback_would_block():
    assert_ok(run_ranks(PROG, "would_block"), 2)
