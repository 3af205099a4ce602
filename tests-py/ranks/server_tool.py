"""A Python tool of hosts/pyhost.py (a PMIxServer in Python): it attaches to the
host by its pid, gets its identity from the host's toolconnected callable and
asks the host's query callable a question.

    python3 server_tool.py <host pid>
"""

import faulthandler
import sys

import common
from common import check, check_rc
from pmix import *  # noqa: F401,F403
from pmix import PMIxTool


def main():
    faulthandler.dump_traceback_later(common.WATCHDOG, exit=True)
    common._tag = "[tool]"
    tool = PMIxTool()
    rc, me = tool.init([{"key": PMIX_SERVER_PIDINFO, "value": int(sys.argv[1]), "val_type": PMIX_PID}])
    check_rc(tool, rc, PMIX_SUCCESS, "tool init attached to the Python host")
    check(me == {"nspace": "pyhost-tools", "rank": 7}, "the identity the host's toolconnected gave (%r)" % (me,))
    if rc == PMIX_SUCCESS:
        rc, res = tool.query([{"keys": ["pyhost.question"], "qualifiers": []}])
        flat = [i for r in res for i in (r["value"]["array"] if r["key"] == PMIX_QUERY_RESULTS else [r])]
        check(rc == PMIX_SUCCESS and [i["value"] for i in flat if i["key"] == "pyhost.question"]
              == ["the host's answer to pyhost.question"], "the host's query callable answered (%d, %r)" % (rc, res))
        check_rc(tool, tool.finalize(), PMIX_SUCCESS, "tool finalize")
    sys.stdout.flush()
    return common.finish()


if __name__ == "__main__":
    sys.exit(main())
