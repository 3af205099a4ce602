# harness.sh moved to tools/harness.sh (it serves tests-c, tests-mpi and tests-slurm);
# this stub keeps run.sh scripts written before the move working. Source the new path.
# shellcheck source=tools/harness.sh
. "$(dirname "${BASH_SOURCE[0]}")/../tools/harness.sh"
