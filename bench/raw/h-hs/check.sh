set -euo pipefail
export VSM_LAB_GUEST_DIR=/run/lab/host/work/bench9/tests/lab/guest
exec python3 -u /run/lab/host/work/bench9/bench/guest/bench.py /run/lab/host/work/bench9/bench/raw/h-hs.new/group.json
