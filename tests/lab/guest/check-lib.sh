# shared by the guest check scripts: PASS/FAIL counting and the closing line.
# Source it; call finish at the end (prints "KERNEL: N passed, N failed").
passed=0 failed=0
pass() { echo "PASS: $*"; passed=$((passed + 1)); }
fail() { echo "FAIL: $*"; failed=$((failed + 1)); }
check() { local what=$1; shift; if "$@"; then pass "$what"; else fail "$what"; fi; }
finish() { echo "$LAB_KERNEL: $passed passed, $failed failed"; exit $((failed > 0)); }
