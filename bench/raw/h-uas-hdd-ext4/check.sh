set -euo pipefail
export VSM_LAB_GUEST_DIR=/run/lab/host/work/wt-lab7/tests/lab/guest
exec python3 -u /run/lab/host/work/wt-lab7/bench/guest/bench.py /run/lab/host/work/wt-lab7/bench/raw/h-uas-hdd-ext4.new/group.json
