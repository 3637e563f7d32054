package envprobe

import (
	"errors"
	"os"
	"strings"
	"testing"
)

func readTestdata(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestParseDiagnostics(t *testing.T) {
	for _, tc := range []struct {
		file string
		ok   bool
		want Thresholds
	}{
		{"list-diagnostics-2.36.txt", true, Thresholds{"0xc000000", "0x840", "0x800", "0x10000000"}},
		{"list-diagnostics-2.39.txt", true, Thresholds{"0x300000", "0x2000", "0x800", "0x1000000"}},
		{"list-diagnostics-2.28.txt", false, Thresholds{}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			got, ok := ParseDiagnostics(readTestdata(t, tc.file))
			if ok != tc.ok {
				t.Fatalf("ok = %v, want %v (%+v)", ok, tc.ok, got)
			}
			if !ok {
				for _, v := range []string{got.NonTemporal, got.RepMovsb, got.RepStosb, got.SharedCache} {
					if !strings.HasPrefix(v, "unknown (") {
						t.Fatalf("field %q should be unknown", v)
					}
				}
				return
			}
			if got != tc.want {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestParseTunables(t *testing.T) {
	got, ok := ParseTunables(readTestdata(t, "list-tunables-2.36.txt"))
	want := Thresholds{"0xc000000", "0x840", "0x800", "0x10000000"}
	if !ok || got != want {
		t.Fatalf("got %+v ok=%v, want %+v", got, ok, want)
	}
	if _, ok := ParseTunables(readTestdata(t, "list-tunables-2.28.txt")); ok {
		t.Fatal("2.28 error text parsed as tunables")
	}
}

// fakeLoader answers like a loader of the given glibc, from testdata.
func fakeLoader(t *testing.T, files map[string]string, calls *[]string) LoaderRunner {
	return func(opt string) (string, error) {
		*calls = append(*calls, opt)
		if f, ok := files[opt]; ok {
			return readTestdata(t, f), nil
		}
		return readTestdata(t, "list-diagnostics-2.28.txt"), errors.New("exit status 127")
	}
}

func TestSelectThresholdsByVersion(t *testing.T) {
	t.Run("2.39 uses --list-diagnostics", func(t *testing.T) {
		var calls []string
		src, th := SelectThresholds(2, 39, true, fakeLoader(t, map[string]string{"--list-diagnostics": "list-diagnostics-2.39.txt"}, &calls))
		if src != "ld.so --list-diagnostics" || th.NonTemporal != "0x300000" || len(calls) != 1 {
			t.Fatalf("src %q th %+v calls %v", src, th, calls)
		}
	})
	t.Run("2.33 uses --list-tunables only", func(t *testing.T) {
		var calls []string
		src, th := SelectThresholds(2, 33, true, fakeLoader(t, map[string]string{"--list-tunables": "list-tunables-2.36.txt"}, &calls))
		if src != "ld.so --list-tunables" || th.NonTemporal != "0xc000000" || strings.Join(calls, ",") != "--list-tunables" {
			t.Fatalf("src %q th %+v calls %v", src, th, calls)
		}
	})
	t.Run("2.28 is unknown without running anything", func(t *testing.T) {
		var calls []string
		src, th := SelectThresholds(2, 28, true, fakeLoader(t, nil, &calls))
		if len(calls) != 0 || !strings.HasPrefix(src, "unknown (") || !strings.Contains(th.NonTemporal, "predates --list-tunables") {
			t.Fatalf("src %q th %+v calls %v", src, th, calls)
		}
	})
	t.Run("unknown version tries both and says why", func(t *testing.T) {
		var calls []string
		src, th := SelectThresholds(0, 0, false, fakeLoader(t, nil, &calls))
		if strings.Join(calls, ",") != "--list-diagnostics,--list-tunables" || !strings.Contains(src, "exit status 127") || !strings.HasPrefix(th.RepMovsb, "unknown (") {
			t.Fatalf("src %q th %+v calls %v", src, th, calls)
		}
	})
}

func TestParseGlibcVersion(t *testing.T) {
	for in, want := range map[string][2]int{
		"glibc 2.36\n": {2, 36},
		"ld.so (Debian GLIBC 2.36-9+deb12u4) stable release version 2.36.\nCopyright": {2, 36},
		"ld.so (GNU libc) stable release version 2.28.":                               {2, 28},
	} {
		ma, mi, ok := ParseGlibcVersion(in)
		if !ok || ma != want[0] || mi != want[1] {
			t.Errorf("%q → %d.%d %v, want %v", in, ma, mi, ok, want)
		}
	}
	if _, _, ok := ParseGlibcVersion("musl libc (x86_64)"); ok {
		t.Error("musl banner parsed as glibc")
	}
}
