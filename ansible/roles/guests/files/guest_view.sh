#!/bin/sh
# Print, as one JSON object, what this guest sees of its CPU topology and
# clock: the keys of variants.yml `expect` (envprobe's keys, '_' for '-'),
# with envprobe's spelling of the values. POSIX sh: runs before any deploy.
lscpu_field() { LC_ALL=C lscpu | sed -n "s/^$1:[[:space:]]*//p" | head -n1; }
flag() { if grep -qw "$1" /proc/cpuinfo; then echo yes; else echo no; fi; }
if grep -q '\[vdso\]' /proc/self/maps; then vdso=yes; else vdso=no; fi
printf '{"threads_per_core": "%s", "cores_per_socket": "%s", "sockets": "%s", ' \
  "$(lscpu_field 'Thread(s) per core')" "$(lscpu_field 'Core(s) per socket')" "$(lscpu_field 'Socket(s)')"
printf '"cpus_online": "%s", "topoext": "%s", "ht": "%s", "hypervisor": "%s", ' \
  "$(getconf _NPROCESSORS_ONLN)" "$(flag topoext)" "$(flag ht)" "$(flag hypervisor)"
printf '"clocksource": "%s", "vdso": "%s"}\n' \
  "$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)" "$vdso"
