"""The PMIx_Get page (seeds/000): example and rules, from Python under a launcher."""

import pytest

from conftest import assert_ok, pmix_rs_only, run_ranks

PROG = "get_rules.py"


@pytest.mark.parametrize("np", [2, 4])
def test_page_example(np):
    run = run_ranks(PROG, "example", np=np)
    assert_ok(run, np)
    assert run.stdout.count("get completed: SUCCESS") == np, run.report()


@pmix_rs_only("a NULL proc is looked up as {own nspace, PMIX_RANK_UNDEF} (a 'globally unique' key), not as the caller")
def test_null_proc_is_self():
    assert_ok(run_ranks(PROG, "null_proc"), 2)


@pytest.mark.parametrize("np", [2, 4])
def test_wildcard_job_data(np):
    assert_ok(run_ranks(PROG, "wildcard", np=np), np)


def test_self_referential_keys():
    assert_ok(run_ranks(PROG, "self_referential"), 2)


@pytest.mark.parametrize("np", [2, 4])
def test_reserved_keys(np):
    assert_ok(run_ranks(PROG, "reserved_keys", np=np), np)


def test_level_directives():
    assert_ok(run_ranks(PROG, "level_directives"), 2)


def test_storage_directives():
    assert_ok(run_ranks(PROG, "storage_directives"), 2)


@pmix_rs_only("no PMIX_DEL_* scopes (a deleting Put is PMIX_ERR_BAD_PARAM)")
def test_deleted_key_is_not_found():
    assert_ok(run_ranks(PROG, "deleted_key"), 2)


@pmix_rs_only("PMIX_VERSION_NUMERIC does not exist before master")
def test_version_numeric_ignores_proc():
    assert_ok(run_ranks(PROG, "version_numeric"), 2)


def test_optional():
    assert_ok(run_ranks(PROG, "optional"), 2)


def test_immediate():
    assert_ok(run_ranks(PROG, "immediate"), 2)


def test_timeout():
    assert_ok(run_ranks(PROG, "timeout"), 2)


def test_overlong_key_is_bad_param():
    assert_ok(run_ranks(PROG, "overlong_key"), 2)


def test_get_nb_not_found_calls_back_once_with_none():
    assert_ok(run_ranks(PROG, "nb_not_found"), 2)


def test_get_nb_null_cbfunc_is_bad_param():
    assert_ok(run_ranks(PROG, "nb_null_cbfunc"), 2)


def test_null_key_returns_all_data():
    assert_ok(run_ranks(PROG, "null_key"), 2)


def test_refresh_cache():
    assert_ok(run_ranks(PROG, "refresh_cache"), 2)


@pmix_rs_only("its shared-memory store (ds21) shows the re-posted value without a refresh")
def test_values_from_others_are_cached():
    assert_ok(run_ranks(PROG, "cached_value"), 2)


@pmix_rs_only("a key outside the requester's scope is reported as PMIX_ERR_NOT_FOUND")
def test_exists_outside_scope():
    assert_ok(run_ranks(PROG, "outside_scope"), 2)


@pmix_rs_only("no progress-thread check: a blocking call from a callback deadlocks")
def test_blocking_call_in_callback_would_block():
    assert_ok(run_ranks(PROG, "would_block"), 2)


def test_callback_exception_is_reported_and_survived():
    run = run_ranks(PROG, "callback_exception")
    assert_ok(run, 2)
    assert run.stderr.count("RuntimeError: boom in callback") == 2, run.report()
    assert "pmix: exception in the get_nb callback" in run.stderr, run.report()
