# SPDX-License-Identifier: MIT
# Sourced by the bench drivers: the machine a run was measured on, as KEY<TAB>VALUE
# lines, so that every figure can say where it comes from (docs/overhead.md).
# Needs: $uringscope, $root.

# describe_machine DATA_FILE: DATA_FILE names the disk the read workloads use.
describe_machine() {
  local dev
  echo "date	$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "nproc	$(nproc)"
  echo "kernel	$(uname -r)"
  echo "cpu	$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
  echo "memory	$(awk '/MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo)"
  echo "virt	$(lscpu 2>/dev/null | sed -nE 's/^Hypervisor vendor: *//p' | head -1) guest$(grep -q firecracker /proc/cmdline 2>/dev/null && echo " (Firecracker)"), container: $(systemd-detect-virt -c 2>/dev/null || echo none)"
  echo "clocksource	$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
  dev=$(df --output=source "$(dirname "$1")" | tail -1)
  echo "disk	$dev ($(basename "$(readlink -f "/sys/class/block/$(basename "$dev")/device/driver" 2>/dev/null)" 2>/dev/null || echo unknown driver))"
  if command -v perf >/dev/null; then
    echo "hw_counters	$(perf stat -e instructions true 2>&1 | grep -q 'not supported' && echo "no (perf stat -e instructions: not supported)" || echo yes)"
  fi
  echo "uringscope	$("$uringscope" --version | head -1), commit $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)$(git -C "$root" diff --quiet HEAD 2>/dev/null || echo " + local changes")"
}
