# tests/host/lib.sh - shared by the host checks (sourced, bash): TAP counting and a
# loop device's partition node. The sourcing script prints "1..$n" and exits with
# [ $failed = 0 ], and removes the nodes in made_nodes in its cleanup.
n=0
failed=0
made_nodes=()
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; }
check() { local what=$1; shift; if "$@"; then ok "$what"; else not_ok "$what"; fi; }

# a partition node even without udevd (see test-loop.sh)
partition_of() {
  local l=$1 p=${1}p1
  for _ in 1 2 3 4 5; do [ -b "$p" ] && break; sleep 0.2; done
  [ -b "$p" ] || partx -a "$l" 2> /dev/null
  for _ in 1 2 3 4 5; do [ -b "$p" ] && break; sleep 0.2; done
  if [ ! -b "$p" ]; then
    IFS=: read -r pmaj pmin < /sys/block/"${l#/dev/}"/"${p#/dev/}"/dev
    mknod "$p" b "$pmaj" "$pmin" && made_nodes+=("$p")
  fi
  echo "$p"
}
