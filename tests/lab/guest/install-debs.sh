# guest side, put in front of the check script by `guest-run --deb FILE`: installs the
# .debs guest-run copied to /run/lab/debs the way an admin does (apt-get install
# ./FILE.deb, dependencies from the root's own dpkg database: the guest has no network,
# so a missing one fails the install), into the
# running guest: udevd, dbus-daemon, polkitd and udisksd are up, so the maintainer
# scripts meet what they meet on a live machine. Then the check script runs.
LAB_DEBS=$(ls /run/lab/debs/*.deb)
export LAB_DEBS
# man-db's trigger would rebuild the index of every manual page, read over 9p under
# TCG (minutes); it is the one trigger left out (/var/lib/man-db/auto-update, man-db's
# own switch)
rm -f /var/lib/man-db/auto-update
# (not --no-download: with it apt 2.6 skips fetching the local file and fails with
# "Internal Error, Pathname to install is not absolute")
_lab_t0=$(date +%s.%N)
# shellcheck disable=SC2086  # one word per file
if DEBIAN_FRONTEND=noninteractive apt-get install -y -o Dpkg::Use-Pty=0 \
  $LAB_DEBS > "$LAB_OUT/apt-install.log" 2>&1; then
  echo "   apt-get install $(echo $LAB_DEBS | xargs -n 1 basename | tr '\n' ' ')($(awk -v a="$_lab_t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s)"
else
  echo "FAIL: apt-get install $LAB_DEBS"
  tail -n 30 "$LAB_OUT/apt-install.log" | sed 's/^/   apt | /'
  echo "${LAB_KERNEL:-guest}: 0 passed, 1 failed"
  exit 1
fi
unset _lab_t0
