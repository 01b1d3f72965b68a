set -euo pipefail
export VSM_LAB_GUEST_DIR=/run/lab/host/work/main/tests/lab/guest
exec python3 -u /run/lab/host/work/main/bench/guest/bench.py /run/lab/host/work/main/bench/raw/pulls-pny32g-7.2-files.new/group.json
