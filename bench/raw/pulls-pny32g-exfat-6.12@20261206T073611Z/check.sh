set -euo pipefail
export VSM_LAB_GUEST_DIR=/run/lab/host/tmp/bench-clone/tests/lab/guest
exec python3 -u /run/lab/host/tmp/bench-clone/bench/guest/bench.py /run/lab/host/tmp/bench-clone/bench/raw/pulls-pny32g-exfat-6.12@20261206T073611Z.new/group.json
