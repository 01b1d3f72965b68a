# tests/lab/lib/common.sh - shared by the host-side lab scripts (sourced, bash).
# Paths, logging and the cache layout; nothing here starts a process.

LAB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
LAB_CACHE=${VSM_LAB_CACHE:-$LAB_DIR/cache}
LAB_PROG=${LAB_PROG:-${0##*/}}
export LC_ALL=C

lab_log() { printf '[%s %s] %s\n' "$LAB_PROG" "$(date +%H:%M:%S)" "$*" >&2; }
lab_die() { lab_log "error: $*"; exit "${LAB_DIE_STATUS:-1}"; }
lab_need_root() { [ "$(id -u)" = 0 ] || lab_die "run me as root (QEMU, apt-get and the guest helpers need it)"; }

# usage text = the comment block at the top of the calling script (after the #! line)
lab_usage() {
  sed -n '2,/^[^#]/{/^[^#]/d;s/^# \{0,1\}//;p}' "$0"
}

# seconds since epoch with fraction, and a difference with one decimal
lab_now() { date +%s.%N; }
lab_elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

# The kernel series the lab knows, and where lab-setup left each one:
#   $LAB_CACHE/kernel-<series> -> kernel-<KVER>  (symlink written by lab-setup)
#   $LAB_CACHE/kernel-<KVER>/boot/vmlinuz-<KVER>, lib/modules/<KVER>/
#   $LAB_CACHE/initramfs-<KVER>.cpio.gz
LAB_SERIES="6.1 6.12 7.2"        # what lab-setup prepares by default (--kernel all)
LAB_SID_SERIES="7.2"             # of those, taken from sid (lab-setup: prepare_sid_kernel)
# a release candidate from experimental, prepared only on request (lab-setup --kernel 7.3)
# and bootable then (guest-run --kernel 7.3); not in LAB_SERIES, so "all" and the CI
# smoke's kernels stay as they are
LAB_EXPERIMENTAL_SERIES="7.3"
lab_valid_series() {
  case " $LAB_SERIES $LAB_EXPERIMENTAL_SERIES " in *" ${1:-none} "*) return 0 ;; *) return 1 ;; esac
}
# the Debian suite a series comes from: sid, experimental, or "" (the host's apt)
lab_series_suite() {
  case " $LAB_SID_SERIES " in *" $1 "*) echo sid; return ;; esac
  case " $LAB_EXPERIMENTAL_SERIES " in *" $1 "*) echo experimental; return ;; esac
  echo ""
}
lab_kernel_dir() {     # SERIES -> absolute kernel dir (fails when lab-setup has not run)
  local d
  d=$(readlink -f "$LAB_CACHE/kernel-$1" 2>/dev/null) || return 1
  [ -f "$d/.ok" ] || return 1
  printf '%s\n' "$d"
}
lab_kernel_version() { local d; d=$(lab_kernel_dir "$1") || return 1; printf '%s\n' "${d##*/kernel-}"; }
# the release the lab boots now for the series of release REL (6.12.117+deb12-amd64 ->
# what lab-setup left for 6.12, following Debian's archive); REL itself when there is none
lab_kernel_for_release() { lab_kernel_version "$(cut -d. -f1,2 <<< "$1")" 2> /dev/null || printf '%s\n' "$1"; }

# the nbd-stick filter built from this checkout's source (lab-setup builds it there)
lab_stick_filter() {
  local h
  h=$(cat "$LAB_DIR/nbd-stick/stick-filter.c" "$LAB_DIR/nbd-stick/Makefile" | sha1sum | cut -c1-12)
  printf '%s/bin/stick-%s/nbdkit-stick-filter.so\n' "$LAB_CACHE" "$h"
}

# the nbd-stick profiles: tests/lab/nbd-stick/profiles/NAME.conf
lab_profile_file() { printf '%s/nbd-stick/profiles/%s.conf\n' "$LAB_DIR" "$1"; }

# Build this checkout's vfat-smart and install it into a destdir for guest-run --destdir.
# Prints the destdir. Uses tests/install-deps of the checkout, a build dir build-lab/
# (prefix /usr, so udev rules land where udevd reads them) and tests/lab/out/destdir
# (the guest reads it through its whole-host view, /run/lab/host, wherever it lives).
lab_build_destdir() {
  local top build dest
  top=$(cd "$LAB_DIR/../.." && pwd)
  mkdir -p "$LAB_DIR/out"
  # VSM_LAB_BUILD: a build directory of this checkout to install as it is
  # (tests/run-tests passes its own, configured with --prefix=/usr)
  build=${VSM_LAB_BUILD:-$top/build-lab}
  dest=$LAB_DIR/out/destdir
  [ -f "$top/meson.build" ] || lab_die "no meson.build in $top: vfat-smart is not in this checkout yet"
  if [ -x "$top/tests/install-deps" ]; then "$top/tests/install-deps" >&2 || lab_die "tests/install-deps failed"; fi
  if [ ! -f "$build/build.ninja" ]; then
    meson setup "$build" "$top" --prefix=/usr > "$LAB_DIR/out/meson-setup.log" 2>&1 || {
      tail -n 20 "$LAB_DIR/out/meson-setup.log" >&2; lab_die "meson setup failed"; }
  fi
  local prefix
  prefix=$(meson introspect --buildoptions "$build" |
    python3 -c 'import json, sys; print([o["value"] for o in json.load(sys.stdin) if o["name"] == "prefix"][0])')
  [ "$prefix" = /usr ] || lab_die "$build has the prefix $prefix, not /usr (udevd would not find the rules)"
  ninja -C "$build" > "$LAB_DIR/out/ninja.log" 2>&1 || { tail -n 30 "$LAB_DIR/out/ninja.log" >&2; lab_die "the build failed"; }
  rm -rf "$dest"
  meson install -C "$build" --destdir "$dest" --quiet > /dev/null 2>&1 ||
    lab_die "meson install --destdir failed"
  printf '%s\n' "$dest"
}
