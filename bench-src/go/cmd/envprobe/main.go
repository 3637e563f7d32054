// Command envprobe prints the environment fingerprint: config lines by
// default, one JSON object with --json. Keys: docs/formats.md.
package main

import (
	"flag"
	"fmt"
	"os"

	"vmparity/bench/envprobe"
)

func main() {
	fs := flag.NewFlagSet("envprobe", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print one JSON object instead of config lines")
	if err := fs.Parse(os.Args[1:]); err != nil {
		os.Exit(2)
	}
	if fs.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: envprobe [--json]")
		os.Exit(2)
	}
	write := envprobe.WriteLines
	if *asJSON {
		write = envprobe.WriteJSON
	}
	if err := write(os.Stdout, envprobe.Probe()); err != nil {
		fmt.Fprintln(os.Stderr, "envprobe:", err)
		os.Exit(1)
	}
}
