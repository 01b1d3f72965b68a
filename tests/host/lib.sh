# tests/host/lib.sh - shared by the host checks (sourced, bash): TAP counting and a
# loop device's partition node. The sourcing script prints "1..N" and exits with
# [ $failed = 0 ], and removes the nodes in made_nodes in its cleanup.
n=0
failed=0
made_nodes=()
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; }
check() { local what=$1; shift; if "$@"; then ok "$what"; else not_ok "$what"; fi; }
# check_that WHAT 'CONDITION': the whole condition (with its && and !) decides
check_that() { local what=$1; shift; if eval "$1"; then ok "$what"; else not_ok "$what"; fi; }
# json 'EXPR': EXPR of the JSON on stdin (d), printed by python
json() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }

# LOOP's first partition node in $REPLY, even without udevd: the kernel's partition
# scan can miss, and without udevd or devtmpfs the node is made from what the kernel
# announced (in made_nodes). Not in a $(...): made_nodes must reach the caller.
partition_of() {
  local l=$1 p=${1}p1
  for _ in 1 2 3 4 5; do [ -b "$p" ] && break; sleep 0.2; done
  [ -b "$p" ] || partx -a "$l" 2> /dev/null
  for _ in 1 2 3 4 5; do [ -b "$p" ] && break; sleep 0.2; done
  if [ ! -b "$p" ]; then
    IFS=: read -r pmaj pmin < /sys/block/"${l#/dev/}"/"${p#/dev/}"/dev
    mknod "$p" b "$pmaj" "$pmin" && made_nodes+=("$p")
  fi
  REPLY=$p
}
