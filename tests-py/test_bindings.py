"""The bindings themselves, without a launcher: constants, layouts, value
conversions, argument checking, library lookup, packaging."""

import ctypes
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from conftest import PYPATH, PYTHON, REPO, library

import pmix
from pmix import _constants as C
from pmix import _convert as cv
from pmix import _types as T

GEN = REPO / "python" / "gen_constants.py"
DEBIAN_INCLUDE = "/usr/lib/x86_64-linux-gnu/pmix2/include"


def test_star_import_gives_constants_and_client():
    ns = {}
    exec("from pmix import *", ns)
    assert ns["PMIxClient"] is pmix.PMIxClient
    # the pages' names, with OpenPMIx's values
    assert ns["PMIX_TIMEOUT"] == "pmix.timeout"
    assert ns["PMIX_COLLECT_DATA"] == "pmix.collect"
    assert ns["PMIX_INT"] == 6 and ns["PMIX_BOOL"] == 1 and ns["PMIX_STRING"] == 3
    assert ns["PMIX_ERR_BAD_PARAM"] == -27 and ns["PMIX_ERR_WOULD_BLOCK"] == -15
    assert ns["PMIX_RANK_WILDCARD"] == 2**32 - 2 and ns["PMIX_RANK_INVALID"] == 2**32 - 4
    assert ns["PMIX_GLOBAL"] == 3 and ns["PMIX_MAX_KEYLEN"] == 511
    assert ns["PMIX_GROUP_ACCEPT"] == 1  # an enumerator, not a macro


def test_every_kind_of_constant_is_there():
    names = [n for n in dir(C) if n.startswith("PMIX_")]
    attrs = [n for n in names if isinstance(getattr(C, n), str) and getattr(C, n).startswith("pmix")]
    errs = [n for n in names if n.startswith("PMIX_ERR_") and isinstance(getattr(C, n), int)]
    assert len(attrs) > 400, len(attrs)
    assert len(errs) > 50, len(errs)
    for n in ("PMIX_UINT32", "PMIX_DATA_ARRAY", "PMIX_PROC_RANK", "PMIX_RANGE_NAMESPACE", "PMIX_PERSIST_SESSION",
              "PMIX_LOCAL", "PMIX_REMOTE", "PMIX_INTERNAL", "PMIX_RANK_UNDEF", "PMIX_RANK_LOCAL_NODE"):
        assert hasattr(C, n), n
    assert sorted(set(pmix.__all__)) == sorted(pmix.__all__)


def test_struct_layouts():
    assert ctypes.sizeof(T.pmix_proc_t) == 260
    assert ctypes.sizeof(T.pmix_value_t) == 32 and T.pmix_value_t.data.offset == 8
    assert ctypes.sizeof(T.pmix_info_t) == 552
    assert ctypes.sizeof(T.pmix_pdata_t) == 808
    assert ctypes.sizeof(T.pmix_app_t) == 56


VALUES = [
    {"value": None, "val_type": C.PMIX_UNDEF},
    {"value": True, "val_type": C.PMIX_BOOL},
    {"value": False, "val_type": C.PMIX_BOOL},
    {"value": "text \u00e9", "val_type": C.PMIX_STRING},
    {"value": None, "val_type": C.PMIX_STRING},
    {"value": 2**64 - 1, "val_type": C.PMIX_SIZE},
    {"value": -(2**63), "val_type": C.PMIX_INT64},
    {"value": -7, "val_type": C.PMIX_INT},
    {"value": 255, "val_type": C.PMIX_UINT8},
    {"value": 0.25, "val_type": C.PMIX_FLOAT},
    {"value": 1e300, "val_type": C.PMIX_DOUBLE},
    {"value": {"sec": 1, "usec": 2}, "val_type": C.PMIX_TIMEVAL},
    {"value": C.PMIX_ERR_NOT_FOUND, "val_type": C.PMIX_STATUS},
    {"value": C.PMIX_RANK_WILDCARD, "val_type": C.PMIX_PROC_RANK},
    {"value": {"nspace": "ns", "rank": 4}, "val_type": C.PMIX_PROC},
    {"value": "nspace-only", "val_type": C.PMIX_PROC_NSPACE},
    {"value": {"bytes": b"\x00\x01\x02", "size": 3}, "val_type": C.PMIX_BYTE_OBJECT},
    {"value": {"envar": "A", "value": "b", "separator": ";"}, "val_type": C.PMIX_ENVAR},
    {"value": {"proc": {"nspace": "n", "rank": 1}, "hostname": "h", "executable": "/x", "pid": 9, "exitcode": 0,
               "state": 3}, "val_type": C.PMIX_PROC_INFO},
    {"value": {"view": 1, "coord": [1, 2, 3], "dims": 3}, "val_type": C.PMIX_COORD},
    {"value": {"type": C.PMIX_BOOL, "array": [True, False]}, "val_type": C.PMIX_DATA_ARRAY},
    {"value": {"type": C.PMIX_DOUBLE, "array": [0.5]}, "val_type": C.PMIX_DATA_ARRAY},
    {"value": {"type": C.PMIX_STRING, "array": []}, "val_type": C.PMIX_DATA_ARRAY},
    {"value": {"type": C.PMIX_VALUE, "array": [{"value": 1, "val_type": C.PMIX_INT}]}, "val_type": C.PMIX_DATA_ARRAY},
    {"value": {"type": C.PMIX_INFO, "array": [
        {"key": "outer", "flags": 0, "value": {"type": C.PMIX_INFO, "array": [
            {"key": "inner", "flags": 8, "value": "deep", "val_type": C.PMIX_STRING}]},
         "val_type": C.PMIX_DATA_ARRAY}]}, "val_type": C.PMIX_DATA_ARRAY},
]


@pytest.mark.parametrize("val", VALUES, ids=lambda v: "type%d" % v["val_type"])
def test_value_round_trip_through_c_structs(val):
    keep = cv.Keep()
    v = T.pmix_value_t()
    cv.load_value(v, val["value"], val["val_type"], keep)
    # the bytes of the C struct, not a Python shadow, hold the value
    copy = T.pmix_value_t.from_buffer_copy(bytes(v))
    assert cv.unload_value(copy) == val


def test_info_array_round_trip():
    keep = cv.Keep()
    dicts = [{"key": C.PMIX_TIMEOUT, "value": 10, "val_type": C.PMIX_INT},
             {"key": "k" * C.PMIX_MAX_KEYLEN, "value": "x", "val_type": C.PMIX_STRING, "flags": 1}]
    ptr, n = cv.info_array(dicts, keep)
    back = cv.unload_info_array(ptr, n)
    assert back == [dict(dicts[0], flags=0), dicts[1]]


def test_none_and_empty_lists_are_null():
    keep = cv.Keep()
    assert cv.info_array(None, keep) == (None, 0)
    assert cv.info_array([], keep) == (None, 0)
    assert cv.proc_array(None, keep) == (None, 0)
    assert cv.proc_ptr(None, keep) is None


@pytest.mark.parametrize("bad,exc", [
    ({"value": 1}, KeyError),
    ({"value": "1", "val_type": C.PMIX_INT}, TypeError),
    ({"value": 1 << 70, "val_type": C.PMIX_UINT64}, ValueError),
    ({"value": 1, "val_type": 4242}, ValueError),
    ({"value": {"nspace": "n"}, "val_type": C.PMIX_PROC}, KeyError),
    ({"value": {"type": C.PMIX_UINT8, "array": [256]}, "val_type": C.PMIX_DATA_ARRAY}, ValueError),
    ("not a dict", TypeError),
])
def test_malformed_values_raise(bad, exc):
    with pytest.raises(exc):
        cv.value_ptr(bad, cv.Keep())


def test_over_length_info_key_is_bad_param():
    with pytest.raises(cv.StatusError) as e:
        cv.info_array([{"key": "k" * 512, "value": 1, "val_type": C.PMIX_INT}], cv.Keep())
    assert e.value.status == C.PMIX_ERR_BAD_PARAM


def _py(code, env_extra=None, drop=()):
    env = {k: v for k, v in os.environ.items() if k not in drop}
    if PYPATH:
        env["PYTHONPATH"] = PYPATH
    env.update(env_extra or {})
    return subprocess.run([PYTHON, "-c", code], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, timeout=60)


def test_constants_import_without_a_library():
    r = _py("from pmix import *; print(PMIX_TIMEOUT)", {"PMIX_LIBRARY": "/nonexistent/libpmix.so.2"})
    assert r.returncode == 0 and r.stdout.strip() == "pmix.timeout", r.stderr


def test_missing_library_is_a_clear_error():
    r = _py("from pmix import *\ntry:\n    PMIxClient()\nexcept LibraryNotFound as e:\n    print('NF', e)",
            {"PMIX_LIBRARY": "/nonexistent/libpmix.so.2"})
    assert r.returncode == 0 and r.stdout.startswith("NF") and "PMIX_LIBRARY" in r.stdout, r.stdout + r.stderr


def _real_library():
    lib = library()
    if lib and os.path.exists(lib):
        return os.path.realpath(lib)
    for cand in ("/usr/lib/x86_64-linux-gnu/libpmix.so.2",):
        if os.path.exists(cand):
            return os.path.realpath(cand)
    pytest.skip("no libpmix.so.2 to load")


def test_pmix_library_env_wins():
    lib = _real_library()
    r = _py("import pmix._lib as L; print(L.load().path)", {"PMIX_LIBRARY": lib})
    assert r.returncode == 0 and r.stdout.strip() == lib, r.stderr


def test_library_next_to_the_package_is_used():
    lib = _real_library()
    with tempfile.TemporaryDirectory() as d:
        shutil.copytree(REPO / "python" / "pmix", Path(d) / "pmix", ignore=shutil.ignore_patterns("libpmix.so*"))
        os.symlink(lib, Path(d) / "pmix" / "libpmix.so.2")
        r = _py("import pmix, pmix._lib as L; print(pmix.__file__); print(L.load().path)", {"PYTHONPATH": d},
                drop=("PMIX_LIBRARY", "LD_LIBRARY_PATH"))
        assert r.returncode == 0, r.stderr
        where, path = r.stdout.split()
        assert where.startswith(d) and path == str(Path(d) / "pmix" / "libpmix.so.2"), r.stdout


def test_pip_install():
    r = subprocess.run([PYTHON, "-c", "import setuptools, pip"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if r.returncode != 0:
        pytest.skip("pip/setuptools not installed for %s" % PYTHON)
    with tempfile.TemporaryDirectory() as d:
        src = Path(d) / "src"
        shutil.copytree(REPO / "python", src, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
        r = subprocess.run([PYTHON, "-m", "pip", "install", "--no-build-isolation", "--no-deps", "--no-index",
                            "--target", str(Path(d) / "site"), str(src)],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=300)
        assert r.returncode == 0, r.stdout
        r = _py("import pmix; print(pmix.__file__, pmix.PMIX_TIMEOUT)", {"PYTHONPATH": str(Path(d) / "site")})
        assert r.returncode == 0 and "site/pmix/__init__.py pmix.timeout" in r.stdout, r.stdout + r.stderr


# -- the generator ---------------------------------------------------------
sys.path.insert(0, str(REPO / "python"))
import gen_constants  # noqa: E402


@pytest.mark.parametrize("body,want", [
    ("42", 42),
    ("-15", -15),
    ("0x10U", 16),
    ("2L", 2),
    ("UINT32_MAX-1", 2**32 - 2),
    ("(UINT32_MAX - 50)", 2**32 - 51),
    ("(PMIX_A + 2)", 7),
    ("(PMIX_A | 0x8)", 13),
    ("((pmix_status_t) -3)", -3),
    ('"pmix.a"', "pmix.a"),
    ('"pmix." "b"', "pmix.b"),
    ("PMIX_S", "pmix.s"),
])
def test_generator_evaluates(body, want):
    t = gen_constants.Table({"PMIX_A": "5", "PMIX_S": '"pmix.s"'})
    assert t.evaluate(body) == want


@pytest.mark.parametrize("body", [
    "{ .a = 0 }", "__attribute__((visibility(\"default\")))", "PMIX_UNKNOWN", "", "'c'", "010", "foo(1)",
    "PMIX_S + 1",
])
def test_generator_refuses_non_constants(body):
    t = gen_constants.Table({"PMIX_S": '"pmix.s"'})
    with pytest.raises(gen_constants.NotConstant):
        t.evaluate(body)


@pytest.mark.skipif(not (REPO / "include" / "pmix.h").exists(), reason="no include/pmix.h")
def test_committed_constants_match_our_headers():
    if not shutil.which(os.environ.get("CC", "cc")):
        pytest.skip("no C compiler")
    text = gen_constants.render(gen_constants.collect(os.environ.get("CC", "cc"), str(REPO / "include")))
    committed = (REPO / "python" / "pmix" / "_constants.py").read_text()
    assert text == committed, "python/pmix/_constants.py is stale: run make python-constants"


@pytest.mark.skipif(not os.path.exists(os.path.join(DEBIAN_INCLUDE, "pmix.h")), reason="Debian's PMIx headers are not installed")
def test_generator_on_openpmix_headers():
    if not shutil.which(os.environ.get("CC", "cc")):
        pytest.skip("no C compiler")
    consts = gen_constants.collect(os.environ.get("CC", "cc"), DEBIAN_INCLUDE)
    assert consts["PMIX_TIMEOUT"] == "pmix.timeout"
    assert consts["PMIX_RANK_WILDCARD"] == 2**32 - 2
    assert consts["PMIX_ERR_BAD_PARAM"] == -27
    assert consts["PMIX_PROC_STATE_ERROR"] + 1 == consts["PMIX_PROC_STATE_KILLED_BY_CMD"]
    assert consts["PMIX_GROUP_DECLINE"] == 0
    # everything we committed that 4.2.2 also defines has the same value, but
    # for the few values master changed (our headers follow master)
    changed = {"PMIX_NUMERIC_VERSION", "PMIX_VERSION_MAJOR", "PMIX_VERSION_MINOR", "PMIX_VERSION_RELEASE",
               "PMIX_FABRIC_DEVICE_COORDINATES", "PMIX_JOB_CTRL_CHECKPOINT_TIMEOUT", "PMIX_QUERY_SUPPORTED_QUALIFIERS"}
    diff = {k for k, v in consts.items() if hasattr(C, k) and getattr(C, k) != v} - changed
    assert not diff, sorted(diff)


# -- the C callback trampolines, driven directly ------------------------------
from pmix import _callbacks as CB  # noqa: E402


def _entry(fn, data=None):
    return CB.registry.add(CB.Entry(fn, data, cv.Keep(), "test"))


def test_op_trampoline_calls_once(capfd):
    calls = []
    key = _entry(lambda st, d: calls.append((st, d)), "data")
    CB.OP_CB(C.PMIX_ERR_TIMEOUT, key)
    CB.OP_CB(C.PMIX_ERR_TIMEOUT, key)  # a second completion of the same request
    assert calls == [(C.PMIX_ERR_TIMEOUT, "data")]
    assert "unknown request" in capfd.readouterr().err


def test_exception_in_callback_is_reported_not_raised(capfd):
    def bad(status, cbdata):
        raise RuntimeError("boom from a test callback")

    CB.OP_CB(0, _entry(bad))
    err = capfd.readouterr().err
    assert "RuntimeError: boom from a test callback" in err and "progress thread continues" in err
    calls = []
    CB.OP_CB(0, _entry(lambda st, d: calls.append(st)))
    assert calls == [0]


def test_value_trampoline():
    calls = []
    keep = cv.Keep()
    v = cv.value_ptr({"value": "x", "val_type": C.PMIX_STRING}, keep)
    CB.VALUE_CB(C.PMIX_SUCCESS, v, _entry(lambda st, val, d: calls.append((st, val, d)), 7))
    CB.VALUE_CB(C.PMIX_ERR_NOT_FOUND, None, _entry(lambda st, val, d: calls.append((st, val, d)), 8))
    assert calls == [(0, {"value": "x", "val_type": C.PMIX_STRING}, 7), (C.PMIX_ERR_NOT_FOUND, None, 8)]


def test_info_trampoline_releases_the_library_data():
    released = []
    calls = []
    release = T.pmix_release_cbfunc_t(lambda d: released.append(d))
    keep = cv.Keep()
    ptr, n = cv.info_array([{"key": "a", "value": 1, "val_type": C.PMIX_INT}], keep)
    CB.INFO_CB(0, ptr, n, _entry(lambda st, res, d: calls.append((st, res))), release, 99)
    assert calls == [(0, [{"key": "a", "flags": 0, "value": 1, "val_type": C.PMIX_INT}])]
    assert released == [99]


def test_event_handler_trampoline_always_completes(capfd):
    completions = []

    def lib_cbfunc(status, results, nresults, op, thiscbdata, notification_cbdata):
        got = cv.unload_info_array(results, nresults) if results else []
        completions.append((status, got, notification_cbdata))
        if op:
            op(0, thiscbdata)  # the library lets go of the results

    lib_cb = T.pmix_event_notification_cbfunc_fn_t(lib_cbfunc)
    src = T.pmix_proc_t(b"ns", 3)
    seen = []

    def hdlr(ref, status, source, info, results):
        seen.append((ref, status, source, info))
        return C.PMIX_EVENT_ACTION_COMPLETE, [{"key": "r", "value": True, "val_type": C.PMIX_BOOL}]

    before = len(CB.registry)
    fn = CB.make_event_handler(hdlr, cv.info_array)
    fn(5, -3007, ctypes.pointer(src), None, 0, None, 0, lib_cb, 1234)
    assert seen == [(5, -3007, {"nspace": "ns", "rank": 3}, [])]
    assert completions == [(C.PMIX_EVENT_ACTION_COMPLETE, [{"key": "r", "flags": 0, "value": True,
                                                            "val_type": C.PMIX_BOOL}], 1234)]
    assert len(CB.registry) == before

    def bad(*a):
        raise KeyError("boom in a test handler")

    CB.make_event_handler(bad, cv.info_array)(6, -3007, ctypes.pointer(src), None, 0, None, 0, lib_cb, 5)
    assert completions[-1] == (C.PMIX_EVENT_NO_ACTION_TAKEN, [], 5)
    assert "boom in a test handler" in capfd.readouterr().err


def test_iof_handler_trampoline_copies_the_payload(capfd):
    seen = []
    raw = ctypes.create_string_buffer(b"a\0b\n", 4)
    bo = T.pmix_byte_object_t()
    bo.bytes = ctypes.addressof(raw)
    bo.size = 4
    src = T.pmix_proc_t(b"ns", 2)
    keep = cv.Keep()
    ptr, n = cv.info_array([{"key": C.PMIX_IOF_COMPLETE, "value": True, "val_type": C.PMIX_BOOL}], keep)
    fn = CB.make_iof_handler(lambda *a: seen.append(a))
    fn(3, C.PMIX_FWD_STDOUT_CHANNEL, ctypes.pointer(src), ctypes.pointer(bo), ptr, n)
    fn(3, C.PMIX_FWD_STDERR_CHANNEL, ctypes.pointer(src), None, None, 0)
    assert seen == [
        (3, C.PMIX_FWD_STDOUT_CHANNEL, {"nspace": "ns", "rank": 2}, {"bytes": b"a\0b\n", "size": 4},
         [{"key": C.PMIX_IOF_COMPLETE, "flags": 0, "value": True, "val_type": C.PMIX_BOOL}]),
        (3, C.PMIX_FWD_STDERR_CHANNEL, {"nspace": "ns", "rank": 2}, {"bytes": b"", "size": 0}, []),
    ]

    def bad(*a):
        raise ValueError("boom in a test IOF handler")

    CB.make_iof_handler(bad)(4, C.PMIX_FWD_STDOUT_CHANNEL, ctypes.pointer(src), ctypes.pointer(bo), None, 0)
    assert "boom in a test IOF handler" in capfd.readouterr().err


def test_tool_is_exported_and_a_client():
    ns = {}
    exec("from pmix import *", ns)
    assert ns["PMIxTool"] is pmix.PMIxTool and issubclass(pmix.PMIxTool, pmix.PMIxClient)
    for m in ("init", "finalize", "is_connected", "attach_to_server", "disconnect", "get_servers", "set_server",
              "query", "get", "log", "register_event_handler", "iof_pull", "iof_deregister", "iof_push"):
        assert callable(getattr(pmix.PMIxTool, m)), m
