-- Appended to every workload: one machine-readable line with the figures wire/run.sh and the PostgreSQL scripts tabulate.
done = function(summary, latency, requests)
  local errors = summary.errors.connect + summary.errors.read + summary.errors.write
    + summary.errors.status + summary.errors.timeout
  io.write(string.format("RESULT requests=%d seconds=%.3f p50_us=%d p99_us=%d errors=%d\n",
    summary.requests, summary.duration / 1e6, latency:percentile(50), latency:percentile(99), errors))
end
