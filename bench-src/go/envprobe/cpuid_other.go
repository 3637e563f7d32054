//go:build !amd64

package envprobe

func cpuid(leaf, subleaf uint32) (eax, ebx, ecx, edx uint32) { return 0, 0, 0, 0 }

const haveCPUID = false
