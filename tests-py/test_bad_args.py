"""Bad arguments from an initialized Python client."""

from conftest import assert_ok, run_ranks


def test_bad_arguments_raise_or_return_bad_param():
    assert_ok(run_ranks("bad_args.py", "exceptions"), 2)
