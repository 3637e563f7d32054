package envprobe

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"
)

// contractKeys is the list in docs/formats.md "envprobe keys", in order.
var contractKeys = strings.Fields(`host kernel kernel-cmdline machine machine-evidence cpu cpu-vendor cpu-flags ht topoext hypervisor
hypervisor-signature constant-tsc nonstop-tsc vmx svm kvm-clock-stable-bit domain-cpu-mode threads-per-core cores-per-socket sockets
cpus-online cpus-visible l1d-cache l2-cache l3-cache getconf-l1d-cache getconf-l2-cache
getconf-l3-cache glibc glibc-diagnostics-source nt-threshold rep-movsb-threshold
rep-stosb-threshold shared-cache-size glibc-tunables clocksource clocksources-available vdso pmu
pmu-reason target-kind target-kind-evidence cgroup cpu-quota cpuset seccomp spec-store-bypass governor
turbo thp`)

// TestProbeKeysAndFormat runs the real probe: every contract key exactly
// once, benchfmt-valid config lines, and JSON with the same content.
func TestProbeKeysAndFormat(t *testing.T) {
	fields := Probe()
	got := map[string]string{}
	for _, f := range fields {
		if _, dup := got[f.Key]; dup {
			t.Fatalf("key %s twice", f.Key)
		}
		got[f.Key] = f.Value
	}
	for _, k := range contractKeys {
		if _, ok := got[k]; !ok {
			t.Errorf("contract key %s missing", k)
		}
	}
	if len(got) != len(contractKeys) {
		t.Errorf("%d keys, contract has %d", len(got), len(contractKeys))
	}
	var lines bytes.Buffer
	if err := WriteLines(&lines, fields); err != nil {
		t.Fatal(err)
	}
	cfg := regexp.MustCompile(`^[a-z][a-z0-9-]*: \S.*$`)
	for _, l := range strings.Split(strings.TrimSuffix(lines.String(), "\n"), "\n") {
		if !cfg.MatchString(l) {
			t.Errorf("not a config line: %q", l)
		}
	}
	var js bytes.Buffer
	if err := WriteJSON(&js, fields); err != nil {
		t.Fatal(err)
	}
	var obj map[string]string
	if err := json.Unmarshal(js.Bytes(), &obj); err != nil {
		t.Fatalf("JSON: %v\n%s", err, js.String())
	}
	for k, v := range got {
		if obj[k] != v {
			t.Errorf("JSON %s = %q, lines say %q", k, obj[k], v)
		}
	}
	for _, k := range []string{"ht", "topoext", "hypervisor", "vmx", "svm", "vdso", "pmu"} {
		if v := got[k]; v != "yes" && v != "no" && !strings.HasPrefix(v, "unknown (") {
			t.Errorf("%s = %q, want yes/no/unknown (…)", k, v)
		}
	}
}

func TestTargetKind(t *testing.T) {
	for _, tc := range []struct {
		name     string
		e        KindEvidence
		kind     string
		evidence string
	}{
		{"metal", KindEvidence{HaveCPUID: true}, "metal", "hypervisor bit clear"},
		{"kvm", KindEvidence{HaveCPUID: true, HypervisorBit: true, HypervisorSig: "KVMKVMKVM"}, "kvm-guest", "KVMKVMKVM"},
		{"tcg", KindEvidence{HaveCPUID: true, HypervisorBit: true, HypervisorSig: "TCGTCGTCGTCG"}, "tcg-guest", "TCGTCGTCGTCG"},
		{"qemu without bit", KindEvidence{HaveCPUID: true, DMI: "sys_vendor=QEMU product_name=Standard PC (Q35 + ICH9, 2009)"}, "tcg-guest", "emulation"},
		{"container in kvm", KindEvidence{HaveCPUID: true, HypervisorBit: true, HypervisorSig: "KVMKVMKVM", Container: []string{"/.dockerenv exists"}}, "container", "/.dockerenv exists; host: cpuid hypervisor bit set"},
		{"qemu tcg without signature", KindEvidence{HaveCPUID: true, HypervisorBit: true, HypervisorSig: "unknown (no printable signature)", DMI: "sys_vendor=QEMU"}, "tcg-guest", "without the KVM signature"},
		{"other hypervisor", KindEvidence{HaveCPUID: true, HypervisorBit: true, HypervisorSig: "VMwareVMware"}, "unknown (", "VMwareVMware"},
		{"override", KindEvidence{HaveCPUID: true, Override: "tcg-guest"}, "tcg-guest", "VMPARITY_TARGET_KIND=tcg-guest overrides detection (detected metal"},
		{"bad override", KindEvidence{HaveCPUID: true, Override: "vm"}, "unknown (VMPARITY_TARGET_KIND=\"vm\"", "hypervisor bit clear"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k, ev := TargetKind(tc.e)
			if !strings.HasPrefix(k, tc.kind) || !strings.Contains(ev, tc.evidence) {
				t.Fatalf("got %q / %q, want %q / …%q…", k, ev, tc.kind, tc.evidence)
			}
		})
	}
}

func TestCgroupParsing(t *testing.T) {
	mi := `30 25 0:26 / /sys/fs/cgroup ro,nosuid - tmpfs tmpfs ro,mode=755
31 30 0:27 / /sys/fs/cgroup/unified rw,nosuid - cgroup2 cgroup2 rw
35 30 0:31 /docker/ab12 /sys/fs/cgroup/cpu,cpuacct rw - cgroup cgroup rw,cpu,cpuacct
36 30 0:32 / /sys/fs/cgroup/cpuset rw - cgroup cgroup rw,cpuset
`
	ms := ParseMountinfo(mi)
	if len(ms) != 3 || CgroupVersion(ms) != "hybrid" {
		t.Fatalf("mounts %+v version %s", ms, CgroupVersion(ms))
	}
	cg := ParseProcCgroup("4:cpu,cpuacct:/docker/ab12\n3:cpuset:/docker/ab12\n0::/docker/ab12\n")
	if dir, _, ok := controllerDir(ms, cg, "cpu"); !ok || dir != "/sys/fs/cgroup/cpu,cpuacct" {
		t.Fatalf("cpu dir %q (the container's cgroup is the mount root)", dir)
	}
	if dir, _, ok := controllerDir(ms, cg, "cpuset"); !ok || dir != "/sys/fs/cgroup/cpuset/docker/ab12" {
		t.Fatalf("cpuset dir %q", dir)
	}
	if v := CgroupVersion(ParseMountinfo("31 30 0:27 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n")); v != "v2" {
		t.Fatalf("v2 detected as %s", v)
	}
	for in, want := range map[string]string{"max 100000": "none", "150000 100000": "1.5", "400000 100000": "4"} {
		c, lim, err := ParseCPUMax(in)
		if err != nil || FormatQuota(c, lim) != want {
			t.Errorf("cpu.max %q → %v %v %v, want %s", in, c, lim, err, want)
		}
	}
	if _, _, err := ParseCPUMax("garbage"); err == nil {
		t.Error("bad cpu.max accepted")
	}
	if c, lim, err := ParseCFS("-1", "100000"); err != nil || lim || FormatQuota(c, lim) != "none" {
		t.Error("cfs -1 should be none")
	}
	if c, lim, err := ParseCFS("200000", "100000"); err != nil || !lim || c != 2 {
		t.Errorf("cfs 2 CPUs → %v %v %v", c, lim, err)
	}
}

func TestParsersForSmallFields(t *testing.T) {
	if l, err := parseCPUList("0-3,8,10-11"); err != nil || len(l) != 7 || l[4] != 8 {
		t.Fatalf("parseCPUList → %v %v", l, err)
	}
	if _, err := parseCPUList("3-1"); err == nil {
		t.Fatal("reversed range accepted")
	}
	for in, want := range map[string]int64{"32K": 32768, "1024K": 1 << 20, "32M": 32 << 20, "512": 512} {
		if n, err := parseCacheSize(in); err != nil || n != want {
			t.Errorf("parseCacheSize(%q) = %d %v", in, n, err)
		}
	}
	auxv := make([]byte, 48)
	binary.NativeEndian.PutUint64(auxv[0:], 6) // AT_PAGESZ
	binary.NativeEndian.PutUint64(auxv[8:], 4096)
	binary.NativeEndian.PutUint64(auxv[16:], atSysinfoEhdr)
	binary.NativeEndian.PutUint64(auxv[24:], 0x7fff0000)
	if ok, err := AuxvHasVDSO(auxv); !ok || err != nil {
		t.Fatalf("vDSO not found: %v", err)
	}
	binary.NativeEndian.PutUint64(auxv[16:], 0) // AT_NULL before it
	if ok, _ := AuxvHasVDSO(auxv); ok {
		t.Fatal("vDSO found after AT_NULL")
	}
	if _, err := AuxvHasVDSO(auxv[:20]); err == nil {
		t.Fatal("truncated auxv accepted")
	}
}

func TestParseCPUStat(t *testing.T) {
	v1, ok := ParseCPUStat("nr_periods 120\nnr_throttled 37\nthrottled_time 2500000000\n")
	if !ok || v1 != (Throttle{120, 37, 2500000000}) {
		t.Fatalf("v1: %+v %v", v1, ok)
	}
	v2, ok := ParseCPUStat("usage_usec 9\nuser_usec 5\nsystem_usec 4\nnr_periods 10\nnr_throttled 2\nthrottled_usec 1500\n")
	if !ok || v2 != (Throttle{10, 2, 1500000}) {
		t.Fatalf("v2: %+v %v", v2, ok)
	}
	if _, ok := ParseCPUStat("usage_usec 9\n"); ok {
		t.Fatal("a cpu.stat without bandwidth counters must not parse")
	}
}

func TestParseStatCPU(t *testing.T) {
	cmd, ticks, ok := ParseStatCPU("4242 (my (odd) cmd) R 1 4242 4242 0 -1 4194304 100 0 0 0 250 50 0 0 20 0 1 0")
	if !ok || cmd != "my (odd) cmd" || ticks != 300 {
		t.Fatalf("got %q %d %v", cmd, ticks, ok)
	}
}

func TestBusyFindsASpinningProcess(t *testing.T) {
	spin := exec.Command("sh", "-c", "while :; do :; done")
	if err := spin.Start(); err != nil {
		t.Skipf("no sh: %v", err)
	}
	defer func() { spin.Process.Kill(); spin.Wait() }()
	time.Sleep(50 * time.Millisecond)
	var found bool
	for _, p := range Busy(300*time.Millisecond, 20) {
		if p.PID == os.Getpid() {
			t.Fatalf("Busy reported its own process: %+v", p)
		}
		found = found || (p.PID == spin.Process.Pid && p.Command == "sh")
	}
	if !found {
		t.Fatalf("the spinning sh[%d] was not reported as busy", spin.Process.Pid)
	}
}

func TestParseSeccomp(t *testing.T) {
	for in, want := range map[string]string{
		"Name:\tx\nSeccomp:\t0\nSeccomp_filters:\t0\n": "disabled",
		"Seccomp:\t2\nSeccomp_filters:\t1\n":           "filter (1 filters)",
		"Seccomp:\t1\n":                                "strict",
	} {
		if got := ParseSeccomp(in); got != want {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
	if got := ParseSeccomp("Name:\tx\n"); !strings.HasPrefix(got, "unknown") {
		t.Errorf("no Seccomp line: %q", got)
	}
}

func TestParseSpecStoreBypass(t *testing.T) {
	for in, want := range map[string]string{
		"Seccomp:\t0\nSpeculation_Store_Bypass:\tthread vulnerable\nSpeculationIndirectBranch:\tconditional enabled\n": "thread vulnerable",
		"Speculation_Store_Bypass:\tthread force mitigated\n":                                                          "thread force mitigated",
		"Speculation_Store_Bypass:\tnot vulnerable\n":                                                                  "not vulnerable",
	} {
		if got := ParseSpecStoreBypass(in); got != want {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
	for _, in := range []string{"Name:\tx\nSeccomp:\t0\n", "Speculation_Store_Bypass:\t\n"} {
		if got := ParseSpecStoreBypass(in); !strings.HasPrefix(got, "unknown") {
			t.Errorf("%q: %q, want unknown (…)", in, got)
		}
	}
}

// TestMachineIdentity: metal hashes its own sources; a container or guest
// given the host's identity by the lab records exactly that, so all targets
// of one physical machine name the same machine whatever their hostnames.
func TestMachineIdentity(t *testing.T) {
	files := map[string]string{"/etc/machine-id": "3d1219c7c4c5404aaa1f6d2a48adfda4"}
	read := func(p string) (string, error) {
		if v, ok := files[p]; ok {
			return v, nil
		}
		return "", os.ErrPermission
	}
	metal, evidence := Machine("", read, "AMD EPYC", "0x1000065")
	if !regexp.MustCompile(`^[0-9a-f]{16}$`).MatchString(metal) {
		t.Fatalf("metal identity %q", metal)
	}
	if !strings.Contains(evidence, "unreadable: product-uuid") || !strings.Contains(evidence, "microcode 0x1000065") {
		t.Errorf("evidence %q", evidence)
	}
	if again, _ := Machine("", read, "AMD EPYC", "0x1000070"); again != metal {
		t.Errorf("a microcode update changed the identity: %s vs %s", again, metal)
	}
	if other, _ := Machine("", read, "Intel Xeon", ""); other == metal {
		t.Errorf("another CPU model, same identity %s", other)
	}
	// a VM started again on another host: the same machine-id and model name, another CPU under them
	xeon := cpuInfo{model: "Intel(R) Xeon(R) Processor", family: "6", number: "207", stepping: "2"}
	before, _ := Machine("", read, hardwareOf(xeon, "503316480"), "0x1")
	after, ev := Machine("", read, hardwareOf(xeon, "314572800"), "0x1")
	if before == after {
		t.Errorf("another L3 under the same machine-id and model name, same identity %s", after)
	}
	if !strings.Contains(ev, "family 6 model 207 stepping 2; l3 314572800") {
		t.Errorf("evidence %q does not say what the hardware was", ev)
	}
	if again, _ := Machine("", read, hardwareOf(xeon, "314572800"), "0x1"); again != after {
		t.Errorf("the same hardware, another identity: %s vs %s", again, after)
	}
	for _, target := range []string{"container", "guest"} {
		got, ev := Machine(metal, func(string) (string, error) { return "image-machine-id", nil }, "QEMU Virtual CPU", "")
		if got != metal || !strings.Contains(ev, MachineEnv) {
			t.Errorf("%s: %q (%s), want the host's %q", target, got, ev, metal)
		}
	}
	if bad, _ := Machine("two words", read, "AMD EPYC", ""); !strings.HasPrefix(bad, "unknown (") {
		t.Errorf("a value with a space was taken: %q", bad)
	}
	if none, _ := Machine("", func(string) (string, error) { return "", os.ErrNotExist }, "AMD EPYC", ""); !strings.HasPrefix(none, "unknown (") {
		t.Errorf("no source, identity %q", none)
	}
}
