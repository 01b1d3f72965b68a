#!/bin/bash
# test-patch-mail.sh - kernel/0001-*.patch is the mail it claims to be.
#
# Usage: tests/kernel/test-patch-mail.sh [SOURCE-ROOT]   (TAP on stdout)
# The patch is v2 of Bryanna Marihugh's RFC: her authorship, [PATCH v2], no Signed-off-by
# (the sender adds it, kernel/README.md), the changes since v1 and the review's answers
# below the ---, and its base either as a base-commit: line or as a stated base whose
# sha256 is that of the mainline text kernel/testdata keeps (kernel/check-apply applies the
# patch to it). The figures its notes quote must be in kernel/RESULTS.md as they are quoted.
set -uo pipefail
ROOT=${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
PATCH=$(ls "$ROOT"/kernel/0001-*.patch)
RESULTS=$ROOT/kernel/RESULTS.md
n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; }
check() { if eval "$2"; then ok "$1"; else not_ok "$1"; fi; }
echo "TAP version 13"

head_=$(awk '/^$/ { exit } { print }' "$PATCH")
msg=$(awk 'p && /^---$/ { exit } p { print } /^$/ { p = 1 }' "$PATCH")
notes=$(awk '/^diff --git / { exit } p { print } /^---$/ { p = 1 }' "$PATCH")
check "one patch file" '[ "$(printf "%s\n" "$PATCH" | wc -l)" = 1 ]'
check "From: Bryanna Marihugh, the RFC's author" \
  'grep -qx "From: Bryanna Marihugh <bryannamarihugh@manhattantech.edu>" <<< "$head_"'
check "Subject: [PATCH v2] and the RFC's title" \
  'grep -q "^Subject: \[PATCH v2\] fat: use write_inode_now() on flush to avoid racing the" <<< "$head_"'
check "no Signed-off-by (the sender adds it)" '! grep -qi "^Signed-off-by:" "$PATCH"'
check "the changes since v1 below the ---" 'grep -q "^Changes in v2:" <<< "$notes"'
check "the reviewers credited" 'grep -q "OGAWA Hirofumi" <<< "$notes" && grep -q "Matheus Alves de Almeida" <<< "$notes"'
check "a Link: to the RFC thread" 'grep -q "^Link: https://lore.kernel.org/" <<< "$msg"'
check "commit message lines within 75 columns (Link: aside)" \
  '[ -z "$(grep -v "^Link: " <<< "$msg" | awk "length > 75")" ]'

# the base: a base-commit: line, or "Base: vX" with the sha256 of a kept mainline text
if grep -q "^base-commit: [0-9a-f]\{40\}$" "$PATCH"; then
  ok "base-commit: line"
else
  base=$(sed -n 's/^Base: \(v[0-9][^ .]*\(\.[0-9a-z-]*\)*\)\..*/\1/p' <<< "$notes" | head -n 1)
  sum=$(tr '\n' ' ' <<< "$notes" | grep -o '[0-9a-f]\{64\}' | head -n 1)
  f=$ROOT/kernel/testdata/inode.c-mainline-$base
  check "stated base ($base) is a mainline text kept in kernel/testdata" '[ -n "$base" ] && [ -f "$f" ]'
  check "the stated sha256 is that text's and its provenance's" \
    '[ -n "$sum" ] && [ "$(sha256sum < "$f" | cut -d" " -f1)" = "$sum" ] && grep -q "^file-sha256: $sum$" "$f.provenance"'
fi

# the review's figures, as the notes quote them, are in RESULTS.md
missing=
for fig in "24.8 %" "20.2 %" "18.4 %" "+4.0 %" "-18.5 %" "-1.9 %" "22.5 (22.0-24.6)" "21.6 (20.6-22.8)" \
  "25.1 (21.9-28.0)" "30.8 (29.5-31.7)" "200.1 (182.1-209.1)" "| 25.7 (" "| 25.2 (" "| 10.2 (" "| 29.3 (" \
  "208.1 (0.1-224.0)" "30.9 (0.0-36.6)" "162.6-256.0" "| 27.4 (" "| 24.6 (" "| 30.7 (" "14.3 (14.0-14.7)" \
  "| 16.1 (16.1-17.7)" "| 21.0 (20.3-21.6)" "| 16.9 (16.1-18.8)" "| 20.5 (19.4-21.5)"; do
  grep -qF -- "$fig" "$RESULTS" || missing="$missing [$fig]"
done
check "the figures the notes quote are in RESULTS.md${missing:+ (missing:$missing)}" '[ -z "$missing" ]'
for fig in "24.8 %" "20.2 %" "18.4 %" "+4.0 %" "-18.5 %" "25.1 s against the control's 30.8 s" "200.1 (182-209)" \
  "30.9" "162.6-256.0" "21.0   21.1   16.1    20.5   20.2   16.9"; do
  grep -qF -- "$fig" <<< "$notes" || missing="$missing [$fig]"
done
for fig in "16.1 s" "21.0 s" "16.9 s against 20.5 s"; do
  grep -qF -- "$fig" <<< "$msg" || missing="$missing [$fig]"
done
check "the notes quote them${missing:+ (missing:$missing)}" '[ -z "$missing" ]'
check "the notes say the drives are simulated and the stick model uncalibrated" \
  'grep -q "not from real hardware" <<< "$notes" && grep -q "not calibrated" <<< "$notes"'
check "kernel/guest-two-writers.sh is valid bash" 'bash -n "$ROOT/kernel/guest-two-writers.sh"'
echo "1..$n"
[ $failed = 0 ]
