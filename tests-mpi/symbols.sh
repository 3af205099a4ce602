#!/usr/bin/env bash
# symbols.sh LIB [PLUGIN] - does LIB define every PMIx_* function that Open MPI's PMIx plugin
# imports? The plugin is dlopened lazily, so a missing function only fails when it is first
# called, and with LD_BIND_NOW=1 the whole plugin is dropped silently; hence all must exist.
# Prints one "missing NAME" line per absent symbol and exits 1 if there is any.
set -uo pipefail
lib=${1:?usage: symbols.sh LIB [PLUGIN]}
plugin=${2:-/usr/lib/x86_64-linux-gnu/openmpi/lib/openmpi3/mca_pmix_ext3x.so}
for f in "$lib" "$plugin"; do
  [ -r "$f" ] || { echo "symbols.sh: cannot read $f"; exit 2; }
done
# nm -D prints "ADDR TYPE NAME[@VERSION]"; keep the name, drop any version suffix.
want=$(nm -D --undefined-only "$plugin" | awk '{print $NF}' | sed 's/@.*//' | grep '^PMIx_' | sort -u)
have=$(nm -D --defined-only "$lib" | awk '$2 ~ /^[TWi]$/ {print $NF}' | sed 's/@.*//' | sort -u)
[ -n "$want" ] || { echo "symbols.sh: $plugin imports no PMIx_* symbol?"; exit 2; }
missing=$(comm -23 <(echo "$want") <(echo "$have"))
nwant=$(echo "$want" | wc -l)
if [ -n "$missing" ]; then
  echo "$missing" | sed 's/^/missing /'
  echo "$lib lacks $(echo "$missing" | wc -l) of the $nwant PMIx_* functions $(basename "$plugin") imports"
  exit 1
fi
echo "all $nwant PMIx_* functions imported by $(basename "$plugin") are defined"
