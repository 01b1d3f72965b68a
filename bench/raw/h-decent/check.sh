set -euo pipefail
export VSM_LAB_GUEST_DIR=/run/lab/host/work/bench8/tests/lab/guest
exec python3 -u /run/lab/host/work/bench8/bench/guest/bench.py /run/lab/host/work/bench8/bench/raw/h-decent.new/group.json
