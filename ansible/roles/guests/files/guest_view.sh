#!/bin/sh
# Print, as one JSON object, what this guest sees of its CPU topology and
# clock: the keys of variants.yml `expect` (envprobe's keys, '_' for '-'),
# read where envprobe reads them (sysfs), with envprobe's spelling of the
# values. POSIX sh: it runs before anything is deployed.
topo=/sys/devices/system/cpu/cpu0/topology
count_list() {  # "0-1,4" -> 3
  awk -F, '{n = 0; for (i = 1; i <= NF; i++) { split($i, r, "-"); n += (r[2] == "" ? 1 : r[2] - r[1] + 1) } print n}' "$1"
}
flag() { if grep -qw "$1" /proc/cpuinfo; then echo yes; else echo no; fi; }
if grep -q '\[vdso\]' /proc/self/maps; then vdso=yes; else vdso=no; fi
threads=$(count_list "$topo/thread_siblings_list")
per_package=$(count_list "$topo/core_siblings_list")
online=$(getconf _NPROCESSORS_ONLN)
sockets=$(cat /sys/devices/system/cpu/cpu*/topology/physical_package_id | sort -u | wc -l)
printf '{"threads_per_core": "%s", "cores_per_socket": "%s", "sockets": "%s", ' \
  "$threads" "$((per_package / threads))" "$sockets"
printf '"cpus_online": "%s", "topoext": "%s", "ht": "%s", "hypervisor": "%s", ' \
  "$online" "$(flag topoext)" "$(flag ht)" "$(flag hypervisor)"
printf '"clocksource": "%s", "vdso": "%s"}\n' \
  "$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)" "$vdso"
