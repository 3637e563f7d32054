package benchrun

import (
	"fmt"

	"vmparity/bench/envprobe"
)

// TunableReader returns `ld.so --list-tunables` under GLIBC_TUNABLES=*t
// (nil: unset); envprobe.ListTunables in production, a stand-in in tests.
type TunableReader func(t *string) (string, error)

func applied(read TunableReader, t *string) (envprobe.Tunable, error) {
	out, err := read(t)
	if err != nil {
		return envprobe.Tunable{}, err
	}
	tu, ok := envprobe.ParseTunable(out, ntTunable)
	if !ok {
		return tu, fmt.Errorf("ld.so --list-tunables printed no %s line with value, min and max", ntTunable)
	}
	return tu, nil
}

// SmallestAccepted is the lowest non-temporal threshold glibc applies. It
// prints a minimum, but whether the minimum itself is accepted depends on the
// version (2.36 takes only values strictly above it and silently keeps the
// computed default otherwise), so the minimum and the next value are tried.
func SmallestAccepted(read TunableReader) (uint64, error) {
	def, err := applied(read, nil)
	if err != nil {
		return 0, err
	}
	for _, v := range []uint64{def.Min, def.Min + 1} {
		s := fmt.Sprintf("%s=%#x", ntTunable, v)
		got, err := applied(read, &s)
		if err != nil {
			return 0, err
		}
		if got.Value == v {
			return v, nil
		}
	}
	return 0, fmt.Errorf("glibc applies neither its printed minimum %#x nor %#x for %s", def.Min, def.Min+1, ntTunable)
}

// VerifyVariants records in each runnable variant the threshold glibc
// applies under its GLIBC_TUNABLES (Applied), and fails naming the first
// variant whose setting glibc ignored: a silently ignored tunable would make
// every row of that variant measure the default instead.
func VerifyVariants(variants []Variant, read TunableReader) error {
	for i := range variants {
		v := &variants[i]
		if v.Skip != "" {
			continue
		}
		var t *string
		if !v.Inherit || v.Tunables != "none" {
			t = &v.Tunables
		}
		got, err := applied(read, t)
		if err != nil {
			if v.Inherit {
				v.Applied = envprobe.Unknown("%v", err)
				continue
			}
			return fmt.Errorf("memcpy variant %s: cannot check that glibc applies GLIBC_TUNABLES=%s: %v", v.Name, v.Tunables, err)
		}
		v.Applied = fmt.Sprintf("%#x", got.Value)
		if v.Inherit || v.Want == 0 {
			continue
		}
		if got.Value != v.Want {
			return fmt.Errorf("memcpy variant %s: glibc ignored GLIBC_TUNABLES=%s and applies %s=%#x (min %#x, max %#x); "+
				"its rows would measure another threshold than they claim", v.Name, v.Tunables, ntTunable, got.Value, got.Min, got.Max)
		}
	}
	return nil
}
