"""Python bindings for PMIx over libpmix.so.2 (ctypes; no compiler needed).

    from pmix import *
    foo = PMIxClient()
    rc, myproc = foo.init()
    rc, value = foo.get({'nspace': myproc['nspace'], 'rank': PMIX_RANK_WILDCARD},
                        PMIX_JOB_SIZE, [])

Every PMIX_* constant of the C headers (attributes, status codes, data types,
scopes, ranks, ...) is a module-level name, generated from the headers by
gen_constants.py. See client.py for the conventions.
"""

from . import _constants
from ._constants import *  # noqa: F401,F403
from ._lib import LibraryNotFound, load as load_library
from .client import PMIxClient
from .server import PMIxServer
from .tool import PMIxTool

__version__ = "0.1.0"

__all__ = sorted(n for n in dir(_constants) if n.startswith("PMIX_")) + [
    "PMIxClient",
    "PMIxServer",
    "PMIxTool",
    "LibraryNotFound",
    "load_library",
]
