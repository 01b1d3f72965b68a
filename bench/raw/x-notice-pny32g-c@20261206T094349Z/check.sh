set -euo pipefail
export VSM_LAB_GUEST_DIR=/run/lab/host/tmp/bench-clone/tests/lab/guest
exec python3 -u /run/lab/host/tmp/bench-clone/bench/guest/bench.py /run/lab/host/tmp/bench-clone/bench/raw/x-notice-pny32g-c@20261206T094349Z.new/group.json
