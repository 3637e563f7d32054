package envprobe

// cpuid executes the CPUID instruction (cpuid_amd64.s). Go has no intrinsic
// for it and the static binary must not need cgo.
func cpuid(leaf, subleaf uint32) (eax, ebx, ecx, edx uint32)

const haveCPUID = true
