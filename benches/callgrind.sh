#!/usr/bin/env bash
# Instruction counts of every row of benches/examples/callgrind.rs under callgrind, one
# "row count" line each (see that file for what the rows are).
#
#   callgrind.sh [BINARY [BEFORE]]
#
# BINARY defaults to the release build of the example. With BEFORE, a file this script
# wrote for another commit, each line also gets the count there and the ratio now/before.
# Counts are deterministic (to a few hundred instructions), so two commits compare row
# by row on a busy machine where timings would not.
set -euo pipefail
bin=${1:-target/release/examples/callgrind}
before=${2:-}
for row in $("$bin"); do
  count=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null \
    --toggle-collect='*callgrind::measured*' "$bin" "$row" 2>&1 |
    sed -n 's/.*Collected : \([0-9]*\).*/\1/p')
  if [ -n "$before" ]; then
    awk -v row="$row" -v now="$count" \
      '$1 == row { printf "%s %s %s %.4f\n", row, $2, now, now / $2; found = 1 }
       END { if (!found) printf "%s - %s -\n", row, now }' "$before"
  else
    printf '%s %s\n' "$row" "$count"
  fi
done
