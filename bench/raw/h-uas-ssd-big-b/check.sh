set -euo pipefail
export VSM_LAB_GUEST_DIR=/run/lab/host/work/wt-bench3/tests/lab/guest
exec python3 -u /run/lab/host/work/wt-bench3/bench/guest/bench.py /run/lab/host/work/wt-bench3/bench/raw/h-uas-ssd-big-b.new/group.json
