#!/bin/sh
# bind.sh PROG ARGS...: run PROG pinned to one core, rank r on core r mod (number of
# cores), as `mpirun --bind-to core` does; pmixrun has no binding option of its own.
n=$(nproc)
exec taskset -c $(( ${PMIX_RANK:-0} % n )) "$@"
