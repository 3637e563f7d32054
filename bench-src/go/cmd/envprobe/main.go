// Command envprobe prints the environment fingerprint: config lines by
// default, one JSON object with --json. Keys: docs/formats.md. With
// --hygiene it prints instead what the lab records before each round: the
// load average and the processes busy over --window.
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"vmparity/bench/envprobe"
)

func main() {
	fs := flag.NewFlagSet("envprobe", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print one JSON object instead of config lines")
	hygiene := fs.Bool("hygiene", false, "print the load average and the busy processes instead of the fingerprint")
	machine := fs.Bool("machine", false, "print only this machine's identity (the lab passes it to the targets it runs as VMPARITY_MACHINE)")
	window := fs.Duration("window", 500*time.Millisecond, "with --hygiene: how long to sample CPU use")
	threshold := fs.Float64("threshold", 10, "with --hygiene: percent of one CPU above which a process counts as busy")
	if err := fs.Parse(os.Args[1:]); err != nil {
		os.Exit(2)
	}
	if fs.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: envprobe [--json] [--machine] [--hygiene [--window D] [--threshold PCT]]")
		os.Exit(2)
	}
	if *window <= 0 || *threshold < 0 {
		fmt.Fprintln(os.Stderr, "envprobe: --window must be positive and --threshold 0 or more")
		os.Exit(2)
	}
	if *machine {
		id, evidence := envprobe.ProbeMachine()
		if strings.HasPrefix(id, "unknown") {
			fmt.Fprintln(os.Stderr, "envprobe: no machine identity:", id, evidence)
			os.Exit(1)
		}
		fmt.Println(id)
		return
	}
	write := envprobe.WriteLines
	if *asJSON {
		write = envprobe.WriteJSON
	}
	fields := func() []envprobe.Field { return envprobe.Probe() }
	if *hygiene {
		fields = func() []envprobe.Field { return envprobe.HygieneFields(*window, *threshold) }
	}
	if err := write(os.Stdout, fields()); err != nil {
		fmt.Fprintln(os.Stderr, "envprobe:", err)
		os.Exit(1)
	}
}
