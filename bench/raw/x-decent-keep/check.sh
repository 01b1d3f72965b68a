set -euo pipefail
export VSM_LAB_GUEST_DIR=/run/lab/host/work/bench9b/tests/lab/guest
exec python3 -u /run/lab/host/work/bench9b/bench/guest/bench.py /run/lab/host/work/bench9b/bench/raw/x-decent-keep.new/group.json
