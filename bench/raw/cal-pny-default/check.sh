set -euo pipefail
export VSM_LAB_GUEST_DIR=/run/lab/host/work/wt/bench/tests/lab/guest
exec python3 -u /run/lab/host/work/wt/bench/bench/guest/bench.py /run/lab/host/work/wt/bench/bench/raw/cal-pny-default.new/group.json
