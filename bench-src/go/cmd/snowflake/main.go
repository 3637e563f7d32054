// Command snowflake prints one repetition of the snowflake benchmarks in the
// Go benchmark format: `snowflake --profile smoke|quick|full`.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"runtime"

	"vmparity/bench/snowflake"
)

func main() {
	fs := flag.NewFlagSet("snowflake", flag.ContinueOnError)
	profile := fs.String("profile", "", "smoke | quick | full")
	if err := fs.Parse(os.Args[1:]); err != nil {
		os.Exit(2)
	}
	if *profile == "" || fs.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: snowflake --profile smoke|quick|full")
		os.Exit(2)
	}
	w := bufio.NewWriter(os.Stdout)
	// runtime.NumCPU is the affinity mask at start: the CPUs visible to us,
	// which is exactly what the seed shows can differ from the CPU quota.
	err := snowflake.Run(w, *profile, runtime.NumCPU())
	w.Flush()
	if err != nil {
		fmt.Fprintln(os.Stderr, "snowflake:", err)
		os.Exit(1)
	}
}
