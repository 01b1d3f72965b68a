# guest side, sourced by solid-check.sh and solid-bench.sh: which Solid library
# solid-hardware5 runs with, and whether vfat-smart's udev rule is in force.
#   LAB_SOLID_LIB      a directory with a libKF5Solid.so.5 (desktop/solid/build's output;
#                      the host's file system is the guest's lower layer, same paths)
#   LAB_SOLID_NO_RULE  1: mask vfat-smart's udev rule (an empty file of its name in
#                      /etc/udev/rules.d, as its header says) before the stick is plugged
# solid_ld: the env arguments for solid-hardware5
solid_ld=()
[ -n "${LAB_SOLID_LIB:-}" ] && solid_ld=(LD_LIBRARY_PATH="$LAB_SOLID_LIB")
solid_prepare() {   # OUTFILE: says which library and rule, in OUTFILE too
  local out=${1:-/dev/null} lib
  if [ "${LAB_SOLID_NO_RULE:-}" = 1 ]; then
    : > /etc/udev/rules.d/61-vfat-smart.rules
    udevadm control --reload
  fi
  lib=$(env "${solid_ld[@]}" ldd /usr/bin/solid-hardware5 | awk '/libKF5Solid/ { print $3 }')
  {
    echo "   solid library: $(readlink -f "$lib") (${LAB_SOLID_LIB:+LD_LIBRARY_PATH=$LAB_SOLID_LIB; }client /usr/bin/solid-hardware5 $(dpkg-query -W -f '${Version}' libkf5solid-bin 2> /dev/null))"
    if strings -n 5 "$(readlink -f "$lib")" | grep -qx flush; then
      echo "   the library passes flush for vfat (its string \"flush\" is there)"
    else
      echo "   the library has no \"flush\" string (patched: udisks' defaults apply)"
    fi
    echo "   vfat-smart's udev rule: $([ -s /etc/udev/rules.d/61-vfat-smart.rules ] || [ ! -e /etc/udev/rules.d/61-vfat-smart.rules ] && echo in force || echo masked)"
    echo "   udisks: $(dpkg-query -W -f '${Version}' udisks2 2> /dev/null)"
  } | tee -a "$out"
}
