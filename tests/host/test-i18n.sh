#!/bin/bash
# Host checks of languages on a real loop device: reasons recorded by an
# apply in German read in English in C and the other way round, the record
# keeps its reasons in English for older readers, JSON gives them in
# English, enum words stay English, and German labels leave every value of
# plan, classify and status in one column. The build's German catalogue
# stands in for the installed one (bound over LOCALEDIR in a mount namespace
# of its own). Needs root; prints TAP.
#
# usage: test-i18n.sh VFAT_SMART_BINARY SCHEMA_DIR MO_DIR LOCALEDIR
set -uo pipefail
export LC_ALL=C.UTF-8
unset LANGUAGE

VS=$1
SCHEMAS=$2
MO_DIR=$3
LOCALEDIR=$4
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
# every "Label:   value" line (and every continuation of one) has its value
# in one column, counted in characters
aligned() {
  python3 -c "
import re, sys
cols = set()
for line in open(sys.argv[1], encoding='utf-8'):
    line = line.rstrip('\n')
    m = re.match(r'^( *[^ :\-][^:]*:)( +)(\S.*)$', line)
    if m:
        cols.add(len(m.group(1)) + len(m.group(2)))
    elif re.match(r'^ {8,}\S', line):
        cols.add(len(line) - len(line.lstrip(' ')))
sys.exit(len(cols) != 1)" "$1"
}

if [ "$(id -u)" != 0 ]; then
  echo "1..0 # SKIP needs root for loop devices, BDI knobs and a mount namespace (CI runs as root)"
  exit 77
fi
if [ ! -f "$MO_DIR/de/LC_MESSAGES/vfat-smart.mo" ] || ! unshare -m true 2>/dev/null; then
  echo "1..0 # SKIP no German catalogue built, or no mount namespace"
  exit 77
fi
# a build with another prefix (/usr/local) may have no LOCALEDIR yet: make it for
# the bind mount, and take away what was made
made_dir=
if [ ! -d "$LOCALEDIR" ]; then
  made_dir=$LOCALEDIR
  while [ ! -d "$(dirname "$made_dir")" ]; do made_dir=$(dirname "$made_dir"); done
  mkdir -p "$LOCALEDIR"
fi

work=$(mktemp -d)
loop=
cleanup() {
  [ -n "$loop" ] && "$VS" restore --all >/dev/null 2>&1
  [ -n "$loop" ] && losetup -d "$loop" 2>/dev/null
  for m in "${made_nodes[@]}"; do rm -f "$m"; done
  rm -rf "$work"
  [ -z "$made_dir" ] || rm -r "$made_dir"
}
trap cleanup EXIT

export VFAT_SMART_STATE_DIR=$work/state
export GSETTINGS_SCHEMA_DIR=$SCHEMAS
export GSETTINGS_BACKEND=memory
# no system bus to be found, whatever the host has
export DBUS_SYSTEM_BUS_ADDRESS=unix:path=$work/no-such-bus
mkdir -p "$work/locale/de/LC_MESSAGES"
cp "$MO_DIR/de/LC_MESSAGES/vfat-smart.mo" "$work/locale/de/LC_MESSAGES/"
# the command in German, with the build's catalogue where it looks for it
de() {
  unshare -m sh -c 'mount --bind "$1" "$2" && shift 2 && LANGUAGE=de exec "$@"' \
    de "$work/locale" "$LOCALEDIR" "$VS" "$@"
}

truncate -s 64M "$work/img"
echo 'type=c' | sfdisk -q "$work/img" >/dev/null
loop=$(losetup -f --show -P "$work/img")
partition_of "$loop"; part=$REPLY
mkfs.vfat -n I18N "$part" >/dev/null

echo "1..12"

# --- German columns
de plan --class usb-stick "$part" > "$work/plan" 2>&1
check_that "plan in German: German labels" 'grep -q "^Warum:" "$work/plan"'
check_that "... every value in one column" 'aligned "$work/plan"'
check_that "... enum words stay English (class, flush mode)" \
  'grep -Eq "^Klasse: +usb-stick$" "$work/plan" && grep -Eq "^Flush-Modus: +dirty-cap$" "$work/plan"'
de classify "$part" > "$work/classify" 2>&1
check_that "classify in German: every value in one column" 'aligned "$work/classify"'

# --- recorded in German, read in C
de apply --class usb-stick "$part" > /dev/null 2>&1
"$VS" status "$part" > "$work/status-c" 2>&1
check_that "apply in German, status in C: the reasons in English" \
  'grep -q "^    - usb-stick: cheap sticks stall" "$work/status-c" && grep -q "^    - dirty cap " "$work/status-c" && ! grep -q "Obergrenze" "$work/status-c"'
check_that "... the record's reasons (for older readers) in English" \
  'grep -q "^reasons=usb-stick: cheap sticks stall" "$VFAT_SMART_STATE_DIR"/*.state'
de status --json "$part" > "$work/json" 2>&1
check_that "status --json in German: reasons in English, with their ids" \
  '[ "$(json "d[\"devices\"][0][\"reasons\"][0][:22], d[\"devices\"][0][\"reason_ids\"][0][\"id\"]" < "$work/json")" = "usb-stick: cheap stick %s: %s" ]'
de status "$part" > "$work/status-de" 2>&1
check_that "status in German: the reasons in German" \
  'grep -q "^    - Obergrenze " "$work/status-de"'
check_that "... every value in one column" 'aligned "$work/status-de"'
check_that "... enum words stay English" \
  'grep -Eq "^  Klasse: +usb-stick, " "$work/status-de" && grep -Eq "^  Flush-Modus: +dirty-cap " "$work/status-de"'

# --- recorded in C, read in German
"$VS" restore --all > /dev/null 2>&1
"$VS" apply --class usb-stick "$part" > /dev/null 2>&1
de status "$part" > "$work/status-de" 2>&1
check_that "apply in C, status in German: the reasons in German" \
  'grep -q "^    - Obergrenze " "$work/status-de" && ! grep -q "^    - dirty cap " "$work/status-de"'
"$VS" status "$part" > "$work/status-c" 2>&1
check_that "... and in English in C" 'grep -q "^    - dirty cap " "$work/status-c"'


[ "$failed" = 0 ]
