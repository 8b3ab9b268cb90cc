// Loaded with --import into the benchmarked CLI process: reports its peak memory as it exits.
process.on("exit", () => {
  process.stderr.write(`\n__retrace_bench_max_rss_kib ${process.resourceUsage().maxRSS}\n`);
});
