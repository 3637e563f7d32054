// Command benchrun runs the benchmark suite on this target and writes one
// results file; see docs/formats.md ("Command-line interfaces").
package main

import (
	"os"

	"vmparity/bench/benchrun"
)

func main() {
	os.Exit(benchrun.Main(os.Args[1:], os.Stdout, os.Stderr))
}
