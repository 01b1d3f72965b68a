set -euo pipefail
export VSM_LAB_GUEST_DIR=/run/lab/host/work/wt-bench2/tests/lab/guest
exec python3 -u /run/lab/host/work/wt-bench2/bench/guest/bench.py /run/lab/host/work/wt-bench2/bench/raw/h-cheap-daemon-small.new/group.json
