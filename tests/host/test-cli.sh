#!/bin/bash
# Host checks of the command line itself on a real loop device: what it echoes
# is never a raw escape, JSON carries no raw control character and gives
# numbers as numbers, commands that need root say so first, global options
# work before the command, and a missing bus or daemon is named. Needs root
# (for the loop device and to drop to another user); prints TAP.
#
# usage: test-cli.sh VFAT_SMART_BINARY SCHEMA_DIR
set -uo pipefail
export LC_ALL=C.UTF-8

VS=$1
SCHEMAS=$2
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
# no byte of a C0 control (but newline), DEL or a C1 control (raw or as UTF-8)
noctl() {
  python3 -c "
import sys
t = open(sys.argv[1], 'rb').read().decode('utf-8')
sys.exit(any((ord(c) < 32 and c != '\n') or 0x7f <= ord(c) <= 0x9f for c in t))" "$1"
}

if [ "$(id -u)" != 0 ]; then
  echo "1..0 # SKIP needs root for loop devices and to run as another user (CI runs as root)"
  exit 77
fi

work=$(mktemp -d)
loop=
cleanup() {
  [ -n "$loop" ] && losetup -d "$loop" 2>/dev/null
  for m in "${made_nodes[@]}"; do rm -f "$m"; done
  rm -rf "$work"
}
trap cleanup EXIT

export VFAT_SMART_STATE_DIR=$work/state
export GSETTINGS_SCHEMA_DIR=$SCHEMAS
export GSETTINGS_BACKEND=memory
# no system bus to be found, whatever the host has
export DBUS_SYSTEM_BUS_ADDRESS=unix:path=$work/no-such-bus
as_nobody() { env -u VFAT_SMART_STATE_DIR setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }

truncate -s 64M "$work/img"
echo 'type=c' | sfdisk -q "$work/img" > /dev/null
loop=$(losetup -f --show -P "$work/img")
partition_of "$loop"; part=$REPLY
# an exFAT label with U+009B (CSI) and U+009D (OSC)
mkfs.exfat -L "$(printf 'A\302\233B\302\235C')" "$part" > /dev/null

echo "1..17"

# --- JSON: no raw C1 control, numbers as numbers
"$VS" classify --json "$part" > "$work/json" 2>&1
check_that "classify --json: valid, no raw C1 control from the label" \
  'python3 -c "import json, sys; json.load(open(sys.argv[1], encoding=\"utf-8\"))" "$work/json"'
check_that "... no raw control byte at all, the label escaped as \\u009b" \
  'noctl "$work/json" && grep -qF "\\u009b" "$work/json"'
out=$("$VS" plan --json --class usb-stick "$part")
check_that "plan --json: knob values are JSON numbers" \
  '[ "$(echo "$out" | json "type(d[\"knobs\"][\"strict_limit\"]).__name__, type(d[\"knobs\"][\"max_bytes\"]).__name__")" = "int int" ]'

# --- arguments echoed in messages: never a raw escape
"$VS" classify --class "$(printf '\033]0;X\007')" "$part" > "$work/out" 2>&1; rc=$?
check_that "classify --class ESC]0;X BEL: usage error (2), nothing raw echoed" \
  '[ $rc = 2 ] && noctl "$work/out"'
"$VS" classify "$(printf -- '--\033[2Jbogus')" "$part" > "$work/out" 2>&1; rc=$?
check_that "an unknown option with ESC: usage error (2), nothing raw echoed" \
  '[ $rc = 2 ] && noctl "$work/out"'
"$VS" "$(printf 'cl\033[31massify')" > "$work/out" 2>&1; rc=$?
check_that "an unknown command with ESC: usage error (2), nothing raw echoed" \
  '[ $rc = 2 ] && noctl "$work/out"'
"$VS" status "$(printf '/dev/\033[2Jno-such')" > "$work/out" 2>&1; rc=$?
check_that "status PATH-WITH-ESC: no such device (3), nothing raw echoed" \
  '[ $rc = 3 ] && noctl "$work/out"'
mkdir -p "$VFAT_SMART_STATE_DIR" && chmod 0755 "$VFAT_SMART_STATE_DIR"
"$VS" forget "$(printf '\033[2J.state')" > "$work/out" 2>&1; rc=$?
check_that "forget ESC[2J.state: nothing raw echoed" \
  'noctl "$work/out"'
check_that "... a record that does not exist: exit 8, said so" \
  '[ $rc = 8 ] && ! grep -q "^Forgotten" "$work/out"'
"$VS" forget 7-250.state > "$work/out" 2>&1; rc=$?
check_that "forget of a missing FILE.state: exit 8" \
  '[ $rc = 8 ] && grep -q "nothing is recorded" "$work/out"'

# --- needs root: said first, exit 5, before the state directory is looked at
as_nobody "$VS" restore --all > "$work/out" 2>&1; rc=$?
check_that "restore --all without root: exit 5, needs root" \
  '[ $rc = 5 ] && grep -q "needs root" "$work/out"'
as_nobody "$VS" forget 7-250.state > "$work/out" 2>&1; rc=$?
check_that "forget without root: exit 5, needs root" \
  '[ $rc = 5 ] && grep -q "needs root" "$work/out"'
as_nobody "$VS" probe --cache-dir "$work/no-cache" > "$work/out" 2>&1; rc=$?
check_that "probe without root: exit 5, needs root" \
  '[ $rc = 5 ] && grep -q "needs root" "$work/out"'

# --- global options before the command
out=$("$VS" --json classify "$part" 2>&1); rc=$?
check_that "vfat-smart --json classify DEVICE: works" \
  '[ $rc = 0 ] && [ "$(echo "$out" | json "d[\"device\"]")" = "$part" ]'
"$VS" --help > "$work/out"
check_that "the usage line shows the form that works" \
  'grep -q "Usage: vfat-smart \[--json\] COMMAND" "$work/out"'

# --- no system bus: say what is missing and what to do
timeout 20 "$VS" watch --once > "$work/out" 2>&1; rc=$?
check_that "watch without a system bus: names the bus, not a raw socket error" \
  '[ $rc != 0 ] && [ $rc != 124 ] && grep -q "system bus" "$work/out" && ! grep -q "Could not connect" "$work/out"'
timeout 20 "$VS" agent > "$work/out" 2>&1; rc=$?
check_that "agent without a system bus: names the bus, not a raw socket error" \
  '[ $rc != 0 ] && [ $rc != 124 ] && grep -q "system bus" "$work/out" && ! grep -q "Could not connect" "$work/out"'

[ "$failed" = 0 ]
