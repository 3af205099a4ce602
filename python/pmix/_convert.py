"""Conversions between the Python conventions and the C structs.

Python side (OpenPMIx's bindings' conventions):
  proc   {'nspace': str, 'rank': int}
  info   {'key': str, 'value': ..., 'val_type': int, 'flags': int (optional)}
  value  {'value': ..., 'val_type': int}

Memory we hand to the library is owned by Python: every buffer goes into a
``Keep`` list that the caller holds until the library no longer needs it
(the end of a blocking call, or the callback of a non-blocking one). The
library never frees what we pass, so no libc allocation is needed there.
Memory the library hands back is read here and released by the caller.

Errors: a malformed argument raises TypeError/KeyError/ValueError; a key
longer than PMIX_MAX_KEYLEN raises ``StatusError(PMIX_ERR_BAD_PARAM)``, which
the API methods turn into that return code.
"""

import ctypes
from ctypes import POINTER, addressof, cast, sizeof, string_at

from . import _constants as C
from ._types import (
    MAX_KEYLEN,
    MAX_NSLEN,
    pmix_app_t,
    pmix_byte_object_t,
    pmix_coord_t,
    pmix_data_array_t,
    pmix_device_distance_t,
    pmix_device_t,
    pmix_endpoint_t,
    pmix_envar_t,
    pmix_geometry_t,
    pmix_info_t,
    pmix_node_pid_t,
    pmix_pdata_t,
    pmix_proc_info_t,
    pmix_proc_t,
    pmix_query_t,
    pmix_resource_unit_t,
    pmix_value_t,
)


class StatusError(Exception):
    """An argument problem that the API reports as a PMIx status code."""

    def __init__(self, status, message):
        super().__init__(message)
        self.status = status


class Keep(list):
    """Buffers that must stay alive while the library may read them."""


def _t(name):
    return getattr(C, name, None)


# integer-like types: val_type -> (union member, min, max)
_U8 = (0, 0xFF)
_U16 = (0, 0xFFFF)
_U32 = (0, 0xFFFFFFFF)
_U64 = (0, 0xFFFFFFFFFFFFFFFF)
_I8 = (-0x80, 0x7F)
_I16 = (-0x8000, 0x7FFF)
_I32 = (-0x80000000, 0x7FFFFFFF)
_I64 = (-0x8000000000000000, 0x7FFFFFFFFFFFFFFF)

_INT_TYPES = {}
for _name, _member, _rng in [
    ("PMIX_BYTE", "byte", _U8),
    ("PMIX_SIZE", "size", _U64),
    ("PMIX_PID", "pid", _I32),
    ("PMIX_INT", "integer", _I32),
    ("PMIX_INT8", "int8", _I8),
    ("PMIX_INT16", "int16", _I16),
    ("PMIX_INT32", "int32", _I32),
    ("PMIX_INT64", "int64", _I64),
    ("PMIX_UINT", "uint", _U32),
    ("PMIX_UINT8", "uint8", _U8),
    ("PMIX_UINT16", "uint16", _U16),
    ("PMIX_UINT32", "uint32", _U32),
    ("PMIX_UINT64", "uint64", _U64),
    ("PMIX_TIME", "time", _I64),
    ("PMIX_STATUS", "status", _I32),
    ("PMIX_PROC_RANK", "rank", _U32),
    ("PMIX_PERSIST", "uint8", _U8),
    ("PMIX_SCOPE", "uint8", _U8),
    ("PMIX_DATA_RANGE", "uint8", _U8),
    ("PMIX_PROC_STATE", "uint8", _U8),
    ("PMIX_ALLOC_DIRECTIVE", "uint8", _U8),
    ("PMIX_RESBLOCK_DIRECTIVE", "uint8", _U8),
    ("PMIX_ALLOC_INHERIT", "uint8", _U8),
    ("PMIX_JOB_STATE", "uint8", _U8),
    ("PMIX_LINK_STATE", "uint8", _U8),
    ("PMIX_LOCTYPE", "uint16", _U16),
    ("PMIX_IOF_CHANNEL", "uint16", _U16),
    ("PMIX_DATA_TYPE", "uint16", _U16),
    ("PMIX_INFO_DIRECTIVES", "uint32", _U32),
    ("PMIX_DEVTYPE", "uint64", _U64),
    ("PMIX_STOR_MEDIUM", "uint64", _U64),
    ("PMIX_STOR_ACCESS", "uint64", _U64),
    ("PMIX_STOR_PERSIST", "uint64", _U64),
    ("PMIX_STOR_ACCESS_TYPE", "uint16", _U16),
    ("PMIX_POINTER", "ptr", _U64),
]:
    if _t(_name) is not None:
        _INT_TYPES[_t(_name)] = (_member, _rng)

# element ctypes for data arrays of integer-like types
_MEMBER_CTYPE = {
    "byte": ctypes.c_uint8,
    "size": ctypes.c_size_t,
    "pid": ctypes.c_int32,
    "integer": ctypes.c_int,
    "int8": ctypes.c_int8,
    "int16": ctypes.c_int16,
    "int32": ctypes.c_int32,
    "int64": ctypes.c_int64,
    "uint": ctypes.c_uint,
    "uint8": ctypes.c_uint8,
    "uint16": ctypes.c_uint16,
    "uint32": ctypes.c_uint32,
    "uint64": ctypes.c_uint64,
    "time": ctypes.c_long,
    "status": ctypes.c_int,
    "rank": ctypes.c_uint32,
    "ptr": ctypes.c_void_p,
}


# --- small pieces --------------------------------------------------------
def _encode(s, what):
    if isinstance(s, str):
        b = s.encode("utf-8")
    elif isinstance(s, (bytes, bytearray)):
        b = bytes(s)
    else:
        raise TypeError("%s must be a str, not %s" % (what, type(s).__name__))
    if b"\0" in b:
        raise ValueError("%s must not contain a NUL character" % what)
    return b


def _decode(b):
    try:
        return b.decode("utf-8")
    except UnicodeDecodeError:
        return b


def cstr(s, keep, what="string"):
    """A NUL-terminated copy of ``s`` (None -> NULL); returns its address."""
    if s is None:
        return None
    buf = ctypes.create_string_buffer(_encode(s, what))
    keep.append(buf)
    return addressof(buf)


def cstr_arg(s, what="string"):
    """``s`` as bytes for a ``char *`` parameter (None -> NULL)."""
    if s is None:
        return None
    return _encode(s, what)


def key_bytes(key, what="key"):
    """A key for a pmix_key_t field; over-length keys are PMIX_ERR_BAD_PARAM."""
    b = _encode(key, what)
    if len(b) > MAX_KEYLEN:
        raise StatusError(
            C.PMIX_ERR_BAD_PARAM, "%s is %d bytes long; PMIX_MAX_KEYLEN is %d" % (what, len(b), MAX_KEYLEN)
        )
    return b


def key_arg(key, what="key", allow_none=False):
    """A key for a ``const char key[]`` parameter, length-checked like a
    pmix_key_t: over-length keys are PMIX_ERR_BAD_PARAM, as the pages say."""
    if key is None:
        if allow_none:
            return None
        raise TypeError("%s must be a str, not None" % what)
    return key_bytes(key, what)


def read_cstr(addr):
    if not addr:
        return None
    return _decode(string_at(addr))


def argv(items, keep, what="list of strings"):
    """A NULL-terminated ``char **`` (None or [] -> NULL)."""
    if items is None:
        return None
    if isinstance(items, (str, bytes)) or not isinstance(items, (list, tuple)):
        raise TypeError("%s must be a list of str" % what)
    if not items:
        return None
    arr = (ctypes.c_void_p * (len(items) + 1))()
    for i, s in enumerate(items):
        arr[i] = cstr(s, keep, what)
    keep.append(arr)
    return addressof(arr)


def _check_int(v, rng, what):
    if not isinstance(v, int):
        raise TypeError("%s must be an int, not %s" % (what, type(v).__name__))
    lo, hi = rng
    if not lo <= v <= hi:
        raise ValueError("%s %d is out of range [%d, %d]" % (what, v, lo, hi))
    return v


def _check_bool(v, what):
    if isinstance(v, bool):
        return v
    if isinstance(v, int) and v in (0, 1):
        return bool(v)
    if isinstance(v, str) and v.lower() in ("true", "t", "false", "f"):
        return v.lower().startswith("t")
    raise TypeError("%s must be a bool, not %r" % (what, v))


def _check_float(v, what):
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise TypeError("%s must be a float, not %s" % (what, type(v).__name__))
    return float(v)


def _dict(d, what, keys):
    if not isinstance(d, dict):
        raise TypeError("%s must be a dict, not %s" % (what, type(d).__name__))
    for k in keys:
        if k not in d:
            raise KeyError("%s is missing %r (has %s)" % (what, k, sorted(d)))
    return d


def _list(items, what):
    if items is None:
        return []
    if isinstance(items, dict):
        return [items]
    if not isinstance(items, (list, tuple)):
        raise TypeError("%s must be a list, not %s" % (what, type(items).__name__))
    return items


# --- procs ---------------------------------------------------------------
def load_proc(dest, proc, what="proc"):
    _dict(proc, what, ("nspace", "rank"))
    ns = _encode(proc["nspace"], what + "['nspace']")
    if len(ns) > MAX_NSLEN:
        raise ValueError("%s['nspace'] is %d bytes long; PMIX_MAX_NSLEN is %d" % (what, len(ns), MAX_NSLEN))
    dest.nspace = ns
    dest.rank = _check_int(proc["rank"], _U32, what + "['rank']")


def proc_ptr(proc, keep, what="proc"):
    """A pointer to one pmix_proc_t (None -> NULL)."""
    if proc is None:
        return None
    p = pmix_proc_t()
    load_proc(p, proc, what)
    keep.append(p)
    return ctypes.pointer(p)


def proc_array(peers, keep, what="procs"):
    """(pointer, count); None or [] -> (NULL, 0)."""
    peers = _list(peers, what)
    if not peers:
        return None, 0
    arr = (pmix_proc_t * len(peers))()
    for i, p in enumerate(peers):
        load_proc(arr[i], p, "%s[%d]" % (what, i))
    keep.append(arr)
    return cast(arr, POINTER(pmix_proc_t)), len(peers)


def unload_proc(p):
    return {"nspace": _decode(bytes(p.nspace)), "rank": int(p.rank)}


# --- values --------------------------------------------------------------
def _val_type(vt, what):
    if isinstance(vt, bool) or not isinstance(vt, int):
        raise TypeError("%s['val_type'] must be an int (a PMIX_* data type), not %r" % (what, vt))
    return vt


def load_value(dest, value, val_type, keep, what="value"):
    """Fill the pmix_value_t ``dest`` with a Python value of type ``val_type``."""
    vt = _val_type(val_type, what)
    dest.type = vt
    d = dest.data
    w = what + "['value']"
    if vt == C.PMIX_UNDEF:
        return
    if vt == C.PMIX_BOOL:
        d.flag = _check_bool(value, w)
    elif vt in _INT_TYPES:
        member, rng = _INT_TYPES[vt]
        setattr(d, member, _check_int(value, rng, w))
    elif vt == C.PMIX_STRING:
        d.string = cstr(value, keep, w)
    elif vt == C.PMIX_FLOAT:
        d.fval = _check_float(value, w)
    elif vt == C.PMIX_DOUBLE:
        d.dval = _check_float(value, w)
    elif vt == C.PMIX_TIMEVAL:
        _dict(value, w, ("sec", "usec"))
        d.tv.tv_sec = _check_int(value["sec"], _I64, w + "['sec']")
        d.tv.tv_usec = _check_int(value["usec"], _I64, w + "['usec']")
    elif vt == C.PMIX_PROC:
        p = pmix_proc_t()
        load_proc(p, value, w)
        keep.append(p)
        d.ptr = addressof(p)
    elif vt == _t("PMIX_PROC_NSPACE"):
        ns = _encode(value, w)
        if len(ns) > MAX_NSLEN:
            raise ValueError("%s is longer than PMIX_MAX_NSLEN" % w)
        buf = ctypes.create_string_buffer(ns, MAX_NSLEN + 1)
        keep.append(buf)
        d.ptr = addressof(buf)
    elif vt in (C.PMIX_BYTE_OBJECT, _t("PMIX_COMPRESSED_STRING"), _t("PMIX_COMPRESSED_BYTE_OBJECT"), _t("PMIX_REGEX")):
        _load_bo(d.bo, value, keep, w)
    elif vt == C.PMIX_ENVAR:
        _dict(value, w, ("envar", "value"))
        d.envar.envar = cstr(value["envar"], keep, w + "['envar']")
        d.envar.value = cstr(value["value"], keep, w + "['value']")
        sep = value.get("separator", ":")
        sep = _encode(sep, w + "['separator']") if sep else b"\0"
        if len(sep) != 1:
            raise ValueError("%s['separator'] must be one character" % w)
        d.envar.separator = sep
    elif vt == C.PMIX_PROC_INFO:
        _dict(value, w, ("proc",))
        pi = pmix_proc_info_t()
        load_proc(pi.proc, value["proc"], w + "['proc']")
        pi.hostname = cstr(value.get("hostname"), keep, w + "['hostname']")
        pi.executable_name = cstr(value.get("executable"), keep, w + "['executable']")
        pi.pid = _check_int(value.get("pid", 0), _I32, w + "['pid']")
        pi.exit_code = _check_int(value.get("exitcode", 0), _I32, w + "['exitcode']")
        pi.state = _check_int(value.get("state", 0), _U8, w + "['state']")
        keep.append(pi)
        d.ptr = addressof(pi)
    elif vt == C.PMIX_COORD:
        d.ptr = addressof(_load_coord(value, keep, w))
    elif vt == C.PMIX_DATA_ARRAY:
        da = pmix_data_array_t()
        _load_darray(da, value, keep, w)
        keep.append(da)
        d.ptr = addressof(da)
    elif vt == _t("PMIX_RESOURCE_UNIT"):
        _dict(value, w, ("type", "count"))
        ru = pmix_resource_unit_t()
        ru.type = _check_int(value["type"], _U64, w + "['type']")
        ru.count = _check_int(value["count"], _U64, w + "['count']")
        keep.append(ru)
        d.ptr = addressof(ru)
    else:
        raise ValueError("%s: val_type %d is not supported by the Python bindings" % (what, vt))


def _load_bo(bo, value, keep, what):
    if isinstance(value, dict):
        _dict(value, what, ("bytes",))
        raw = value["bytes"]
    else:
        raw = value
    if raw is None:
        bo.bytes, bo.size = None, 0
        return
    if isinstance(raw, str):
        raw = raw.encode("utf-8")
    if not isinstance(raw, (bytes, bytearray, memoryview)):
        raise TypeError("%s must be bytes, not %s" % (what, type(raw).__name__))
    raw = bytes(raw)
    buf = ctypes.create_string_buffer(raw, max(len(raw), 1))
    keep.append(buf)
    bo.bytes = addressof(buf)
    bo.size = len(raw)


def _load_coord(value, keep, what):
    _dict(value, what, ("coord",))
    coords = _list(value["coord"], what + "['coord']")
    c = pmix_coord_t()
    c.view = _check_int(value.get("view", 0), _U8, what + "['view']")
    arr = (ctypes.c_uint32 * max(len(coords), 1))()
    for i, x in enumerate(coords):
        arr[i] = _check_int(x, _U32, "%s['coord'][%d]" % (what, i))
    keep.append(arr)
    keep.append(c)
    c.coord = addressof(arr) if coords else None
    c.dims = len(coords)
    return c


def _load_darray(da, value, keep, what):
    _dict(value, what, ("type", "array"))
    et = _val_type(value["type"], what)
    items = _list(value["array"], what + "['array']")
    n = len(items)
    da.type = et
    da.size = n
    if n == 0:
        da.array = None
        return
    w = what + "['array']"
    if et == C.PMIX_INFO:
        arr = (pmix_info_t * n)()
        for i, it in enumerate(items):
            load_info(arr[i], it, keep, "%s[%d]" % (w, i))
    elif et == C.PMIX_VALUE:
        arr = (pmix_value_t * n)()
        for i, it in enumerate(items):
            _dict(it, "%s[%d]" % (w, i), ("value", "val_type"))
            load_value(arr[i], it["value"], it["val_type"], keep, "%s[%d]" % (w, i))
    elif et == C.PMIX_PROC:
        arr = (pmix_proc_t * n)()
        for i, it in enumerate(items):
            load_proc(arr[i], it, "%s[%d]" % (w, i))
    elif et == C.PMIX_STRING:
        arr = (ctypes.c_void_p * n)()
        for i, it in enumerate(items):
            arr[i] = cstr(it, keep, "%s[%d]" % (w, i))
    elif et == C.PMIX_BOOL:
        arr = (ctypes.c_bool * n)()
        for i, it in enumerate(items):
            arr[i] = _check_bool(it, "%s[%d]" % (w, i))
    elif et == C.PMIX_FLOAT or et == C.PMIX_DOUBLE:
        arr = ((ctypes.c_float if et == C.PMIX_FLOAT else ctypes.c_double) * n)()
        for i, it in enumerate(items):
            arr[i] = _check_float(it, "%s[%d]" % (w, i))
    elif et == C.PMIX_BYTE_OBJECT:
        arr = (pmix_byte_object_t * n)()
        for i, it in enumerate(items):
            _load_bo(arr[i], it, keep, "%s[%d]" % (w, i))
    elif et in _INT_TYPES:
        member, rng = _INT_TYPES[et]
        arr = (_MEMBER_CTYPE[member] * n)()
        for i, it in enumerate(items):
            arr[i] = _check_int(it, rng, "%s[%d]" % (w, i))
    else:
        raise ValueError("%s: data arrays of type %d are not supported by the Python bindings" % (what, et))
    keep.append(arr)
    da.array = addressof(arr)


def value_ptr(value, keep, what="value"):
    """A pointer to a pmix_value_t built from a {'value','val_type'} dict."""
    _dict(value, what, ("value", "val_type"))
    v = pmix_value_t()
    load_value(v, value["value"], value["val_type"], keep, what)
    keep.append(v)
    return ctypes.pointer(v)


def unload_value(v):
    """A pmix_value_t (the struct, not a pointer) -> {'value', 'val_type'}."""
    vt = int(v.type)
    return {"value": _unload_data(vt, v.data), "val_type": vt}


def _opt_ptr(addr, ctype):
    if not addr:
        return None
    return ctype.from_address(addr)


def _unload_bo(bo):
    if not bo.bytes or not bo.size:
        return {"bytes": b"", "size": 0}
    return {"bytes": string_at(bo.bytes, bo.size), "size": int(bo.size)}


def _unload_coord(c):
    if c is None:
        return None
    coords = []
    if c.coord and c.dims:
        arr = (ctypes.c_uint32 * c.dims).from_address(c.coord)
        coords = list(arr)
    return {"view": int(c.view), "coord": coords, "dims": int(c.dims)}


def _unload_data(vt, d):
    if vt == C.PMIX_UNDEF:
        return None
    if vt == C.PMIX_BOOL:
        return bool(d.flag)
    if vt in _INT_TYPES:
        member = _INT_TYPES[vt][0]
        x = getattr(d, member)
        return 0 if x is None else int(x)
    if vt == C.PMIX_STRING:
        return read_cstr(d.string)
    if vt == C.PMIX_FLOAT:
        return float(d.fval)
    if vt == C.PMIX_DOUBLE:
        return float(d.dval)
    if vt == C.PMIX_TIMEVAL:
        return {"sec": int(d.tv.tv_sec), "usec": int(d.tv.tv_usec)}
    if vt == C.PMIX_PROC:
        p = _opt_ptr(d.ptr, pmix_proc_t)
        return None if p is None else unload_proc(p)
    if vt == _t("PMIX_PROC_NSPACE"):
        return read_cstr(d.ptr)
    if vt in (C.PMIX_BYTE_OBJECT, _t("PMIX_COMPRESSED_BYTE_OBJECT")):
        return _unload_bo(d.bo)
    if vt in (_t("PMIX_COMPRESSED_STRING"), _t("PMIX_REGEX")):
        return _unload_bo(d.bo)["bytes"]
    if vt == C.PMIX_ENVAR:
        sep = d.envar.separator
        return {
            "envar": read_cstr(d.envar.envar),
            "value": read_cstr(d.envar.value),
            "separator": sep.decode("latin-1") if sep != b"\0" else "",
        }
    if vt == C.PMIX_PROC_INFO:
        pi = _opt_ptr(d.ptr, pmix_proc_info_t)
        if pi is None:
            return None
        return {
            "proc": unload_proc(pi.proc),
            "hostname": read_cstr(pi.hostname),
            "executable": read_cstr(pi.executable_name),
            "pid": int(pi.pid),
            "exitcode": int(pi.exit_code),
            "state": int(pi.state),
        }
    if vt == C.PMIX_DATA_ARRAY:
        da = _opt_ptr(d.ptr, pmix_data_array_t)
        return None if da is None else unload_darray(da)
    if vt == C.PMIX_COORD:
        return _unload_coord(_opt_ptr(d.ptr, pmix_coord_t))
    if vt == _t("PMIX_GEOMETRY"):
        g = _opt_ptr(d.ptr, pmix_geometry_t)
        if g is None:
            return None
        coords = []
        if g.coordinates and g.ncoords:
            arr = (pmix_coord_t * g.ncoords).from_address(g.coordinates)
            coords = [_unload_coord(c) for c in arr]
        return {"fabric": int(g.fabric), "uuid": read_cstr(g.uuid), "osname": read_cstr(g.osname), "coordinates": coords}
    if vt == _t("PMIX_DEVICE"):
        dv = _opt_ptr(d.ptr, pmix_device_t)
        return None if dv is None else {"uuid": read_cstr(dv.uuid), "osname": read_cstr(dv.osname), "type": int(dv.type)}
    if vt == _t("PMIX_DEVICE_DIST"):
        dd = _opt_ptr(d.ptr, pmix_device_distance_t)
        if dd is None:
            return None
        return {
            "uuid": read_cstr(dd.uuid),
            "osname": read_cstr(dd.osname),
            "type": int(dd.type),
            "mindist": int(dd.mindist),
            "maxdist": int(dd.maxdist),
        }
    if vt == _t("PMIX_ENDPOINT"):
        ep = _opt_ptr(d.ptr, pmix_endpoint_t)
        if ep is None:
            return None
        return {"uuid": read_cstr(ep.uuid), "osname": read_cstr(ep.osname), "endpt": _unload_bo(ep.endpt)}
    if vt == _t("PMIX_RESOURCE_UNIT"):
        ru = _opt_ptr(d.ptr, pmix_resource_unit_t)
        return None if ru is None else {"type": int(ru.type), "count": int(ru.count)}
    if vt == _t("PMIX_NODE_PID"):
        np_ = _opt_ptr(d.ptr, pmix_node_pid_t)
        if np_ is None:
            return None
        return {"hostname": read_cstr(np_.hostname), "nodeid": int(np_.nodeid), "pid": int(np_.pid)}
    # opaque (topology, cpuset, buffers, ...): the type is reported, the payload is not
    return None


def unload_darray(da):
    et = int(da.type)
    n = int(da.size)
    out = {"type": et, "array": []}
    if not da.array or n == 0:
        return out
    a = da.array
    if et == C.PMIX_INFO:
        out["array"] = unload_info_array(a, n)
    elif et == C.PMIX_VALUE:
        arr = (pmix_value_t * n).from_address(a)
        out["array"] = [unload_value(v) for v in arr]
    elif et == C.PMIX_PROC:
        arr = (pmix_proc_t * n).from_address(a)
        out["array"] = [unload_proc(p) for p in arr]
    elif et == C.PMIX_STRING:
        arr = (ctypes.c_void_p * n).from_address(a)
        out["array"] = [read_cstr(p) for p in arr]
    elif et == C.PMIX_BOOL:
        out["array"] = [bool(x) for x in (ctypes.c_bool * n).from_address(a)]
    elif et == C.PMIX_FLOAT:
        out["array"] = [float(x) for x in (ctypes.c_float * n).from_address(a)]
    elif et == C.PMIX_DOUBLE:
        out["array"] = [float(x) for x in (ctypes.c_double * n).from_address(a)]
    elif et == C.PMIX_BYTE_OBJECT:
        out["array"] = [_unload_bo(b) for b in (pmix_byte_object_t * n).from_address(a)]
    elif et == C.PMIX_PROC_INFO:
        arr = (pmix_proc_info_t * n).from_address(a)
        out["array"] = [_unload_data(et, _PtrData(addressof(x))) for x in arr]
    elif et == C.PMIX_ENVAR:
        arr = (pmix_envar_t * n).from_address(a)
        out["array"] = [_unload_data(et, _EnvarData(x)) for x in arr]
    elif et == C.PMIX_COORD:
        out["array"] = [_unload_coord(c) for c in (pmix_coord_t * n).from_address(a)]
    elif et in _INT_TYPES:
        ct = _MEMBER_CTYPE[_INT_TYPES[et][0]]
        out["array"] = [0 if x is None else int(x) for x in (ct * n).from_address(a)]
    else:
        out["array"] = None
    return out


class _PtrData:
    """Stand-in for a value union holding a pointer (used for arrays of structs)."""

    def __init__(self, addr):
        self.ptr = addr


class _EnvarData:
    def __init__(self, envar):
        self.envar = envar


# --- infos ---------------------------------------------------------------
def load_info(dest, info, keep, what="info"):
    _dict(info, what, ("key", "value", "val_type"))
    dest.key = key_bytes(info["key"], what + "['key']")
    flags = info.get("flags", 0)
    dest.flags = _check_int(0 if flags is None else flags, _U32, what + "['flags']")
    load_value(dest.value, info["value"], info["val_type"], keep, what)


def info_array(dicts, keep, what="info"):
    """(pointer, count) for a list of info dicts; None or [] -> (NULL, 0)."""
    dicts = _list(dicts, what)
    if not dicts:
        return None, 0
    arr = (pmix_info_t * len(dicts))()
    for i, d in enumerate(dicts):
        load_info(arr[i], d, keep, "%s[%d]" % (what, i))
    keep.append(arr)
    return cast(arr, POINTER(pmix_info_t)), len(dicts)


def unload_info(inf):
    v = unload_value(inf.value)
    return {"key": _decode(bytes(inf.key)), "flags": int(inf.flags), "value": v["value"], "val_type": v["val_type"]}


def unload_info_array(addr, n):
    """Read ``n`` pmix_info_t at address (or pointer) ``addr``."""
    if not addr or not n:
        return []
    if not isinstance(addr, int):
        addr = cast(addr, ctypes.c_void_p).value
        if not addr:
            return []
    arr = (pmix_info_t * n).from_address(addr)
    return [unload_info(x) for x in arr]


# --- pdata, apps, queries -------------------------------------------------
def pdata_array(data, keep, what="pdata"):
    data = _list(data, what)
    if not data:
        return None, 0
    arr = (pmix_pdata_t * len(data))()
    for i, d in enumerate(data):
        w = "%s[%d]" % (what, i)
        if isinstance(d, (str, bytes)):
            key = d
        else:
            _dict(d, w, ("key",))
            key = d["key"]
            if d.get("proc") is not None:
                load_proc(arr[i].proc, d["proc"], w + "['proc']")
        arr[i].key = key_bytes(key, w + "['key']")
    keep.append(arr)
    return arr, len(data)


def unload_pdata(pd):
    v = unload_value(pd.value)
    return {"proc": unload_proc(pd.proc), "key": _decode(bytes(pd.key)), "value": v["value"], "val_type": v["val_type"]}


def keys_argv(keys, keep, what="keys"):
    """Keys for lookup_nb/unpublish: a NULL-terminated array; over-length -> BAD_PARAM."""
    if keys is None:
        return None
    if isinstance(keys, (str, bytes)) or not isinstance(keys, (list, tuple)):
        raise TypeError("%s must be a list of str" % what)
    for i, k in enumerate(keys):
        key_bytes(k, "%s[%d]" % (what, i))
    return argv(keys, keep, what)


def app_array(apps, keep, what="apps"):
    apps = _list(apps, what)
    if not apps:
        return None, 0
    arr = (pmix_app_t * len(apps))()
    for i, a in enumerate(apps):
        w = "%s[%d]" % (what, i)
        _dict(a, w, ("cmd",))
        arr[i].cmd = cstr(a["cmd"], keep, w + "['cmd']")
        args = a.get("argv")
        if not args:
            args = [a["cmd"]]
        arr[i].argv = argv(args, keep, w + "['argv']")
        arr[i].env = argv(a.get("env"), keep, w + "['env']")
        arr[i].cwd = cstr(a.get("cwd"), keep, w + "['cwd']")
        arr[i].maxprocs = _check_int(a.get("maxprocs", 1), _I32, w + "['maxprocs']")
        ip, n = info_array(a.get("info"), keep, w + "['info']")
        arr[i].info = cast(ip, ctypes.c_void_p).value if ip else None
        arr[i].ninfo = n
    keep.append(arr)
    return cast(arr, POINTER(pmix_app_t)), len(apps)


def query_array(queries, keep, what="queries"):
    queries = _list(queries, what)
    if not queries:
        return None, 0
    arr = (pmix_query_t * len(queries))()
    for i, q in enumerate(queries):
        w = "%s[%d]" % (what, i)
        _dict(q, w, ("keys",))
        arr[i].keys = argv(q["keys"], keep, w + "['keys']")
        ip, n = info_array(q.get("qualifiers"), keep, w + "['qualifiers']")
        arr[i].qualifiers = cast(ip, ctypes.c_void_p).value if ip else None
        arr[i].nqual = n
    keep.append(arr)
    return cast(arr, POINTER(pmix_query_t)), len(queries)


def units_array(units, keep, what="units"):
    units = _list(units, what)
    if not units:
        return None, 0
    arr = (pmix_resource_unit_t * len(units))()
    for i, u in enumerate(units):
        w = "%s[%d]" % (what, i)
        _dict(u, w, ("type", "count"))
        arr[i].type = _check_int(u["type"], _U64, w + "['type']")
        arr[i].count = _check_int(u["count"], _U64, w + "['count']")
    keep.append(arr)
    return cast(arr, POINTER(pmix_resource_unit_t)), len(units)


# --- what a server upcall receives (read-only views of the library's data) --
def unload_proc_at(addr):
    """The pmix_proc_t at ``addr`` as a dict (NULL -> None)."""
    if not addr:
        return None
    return unload_proc(pmix_proc_t.from_address(addr))


def unload_proc_array(addr, n):
    """``n`` pmix_proc_t at ``addr`` as a list of dicts (NULL -> [])."""
    if not addr or not n:
        return []
    return [unload_proc(p) for p in (pmix_proc_t * n).from_address(addr)]


def unload_argv(addr):
    """A NULL-terminated ``char **`` as a list of str (NULL -> [])."""
    out = []
    if not addr:
        return out
    i = 0
    while True:
        p = ctypes.c_void_p.from_address(addr + i * sizeof(ctypes.c_void_p)).value
        if not p:
            return out
        out.append(read_cstr(p))
        i += 1


def unload_bo_at(addr):
    """The pmix_byte_object_t at ``addr`` as {'bytes', 'size'} (NULL -> None)."""
    if not addr:
        return None
    return _unload_bo(pmix_byte_object_t.from_address(addr))


def unload_app_array(addr, n):
    """``n`` pmix_app_t as {'cmd', 'argv', 'env', 'cwd', 'maxprocs', 'info'} dicts."""
    if not addr or not n:
        return []
    out = []
    for a in (pmix_app_t * n).from_address(addr):
        out.append({
            "cmd": read_cstr(a.cmd),
            "argv": unload_argv(a.argv),
            "env": unload_argv(a.env),
            "cwd": read_cstr(a.cwd),
            "maxprocs": int(a.maxprocs),
            "info": unload_info_array(a.info, a.ninfo),
        })
    return out


def unload_query_array(addr, n):
    """``n`` pmix_query_t as {'keys': [str], 'qualifiers': [info dicts]}."""
    if not addr or not n:
        return []
    return [{"keys": unload_argv(q.keys), "qualifiers": unload_info_array(q.qualifiers, q.nqual)}
            for q in (pmix_query_t * n).from_address(addr)]


def unload_units(addr, n):
    """``n`` pmix_resource_unit_t as {'type', 'count'} dicts."""
    if not addr or not n:
        return []
    return [{"type": int(u.type), "count": int(u.count)} for u in (pmix_resource_unit_t * n).from_address(addr)]


def pdata_results(data, keep, what="pdata"):
    """(array, count) of pmix_pdata_t filled from {'proc', 'key', 'value',
    'val_type'} dicts: the answer of a lookup upcall."""
    data = _list(data, what)
    if not data:
        return None, 0
    arr = (pmix_pdata_t * len(data))()
    for i, d in enumerate(data):
        w = "%s[%d]" % (what, i)
        _dict(d, w, ("key", "value", "val_type"))
        if d.get("proc") is not None:
            load_proc(arr[i].proc, d["proc"], w + "['proc']")
        arr[i].key = key_bytes(d["key"], w + "['key']")
        load_value(arr[i].value, d["value"], d["val_type"], keep, w)
    keep.append(arr)
    return arr, len(data)


def byte_object(value, keep, what="credential"):
    bo = pmix_byte_object_t()
    _load_bo(bo, value, keep, what)
    keep.append(bo)
    return bo


__all__ = [n for n in dir() if not n.startswith("_")] + ["sizeof"]
