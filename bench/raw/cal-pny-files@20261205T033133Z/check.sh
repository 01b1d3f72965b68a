set -euo pipefail
export VSM_LAB_GUEST_DIR=/run/lab/host/work/wt/calib/tests/lab/guest
exec python3 -u /run/lab/host/work/wt/calib/bench/guest/bench.py /run/lab/host/work/wt/calib/bench/raw/cal-pny-files@20261205T033133Z.new/group.json
