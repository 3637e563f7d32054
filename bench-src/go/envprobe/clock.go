package envprobe

import (
	"encoding/binary"
	"fmt"
	"os"
)

const clocksourceDir = "/sys/devices/system/clocksource/clocksource0"

const atSysinfoEhdr = 33 // AT_SYSINFO_EHDR: address of the vDSO ELF header

// AuxvHasVDSO scans a 64-bit auxiliary vector for a non-zero AT_SYSINFO_EHDR.
func AuxvHasVDSO(auxv []byte) (bool, error) {
	if len(auxv)%16 != 0 {
		return false, fmt.Errorf("auxv length %d is not a multiple of 16", len(auxv))
	}
	for i := 0; i+16 <= len(auxv); i += 16 {
		typ := binary.NativeEndian.Uint64(auxv[i:])
		val := binary.NativeEndian.Uint64(auxv[i+8:])
		if typ == 0 {
			break
		}
		if typ == atSysinfoEhdr {
			return val != 0, nil
		}
	}
	return false, nil
}

// probeVDSO: "yes" when the kernel mapped a vDSO into this process; without
// one every clock_gettime is a real syscall (seed 004).
func probeVDSO() string {
	b, err := os.ReadFile("/proc/self/auxv")
	if err != nil {
		return Unknown("%v", err)
	}
	ok, err := AuxvHasVDSO(b)
	if err != nil {
		return Unknown("/proc/self/auxv: %v", err)
	}
	return yesNo(ok)
}
