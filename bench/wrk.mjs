// What make bench reads from wrk's report (run with --latency).

/**
 * Requests per second, p99 latency in ms, requests completed, and non-2xx/3xx answers.
 * @param {string} out wrk's report
 */
export function parseWrk(out) {
  const [, value = "0", unit = "ms"] = /99%\s+([\d.]+)(us|ms|s)/.exec(out) ?? [];
  return {
    rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? 0),
    p99Ms: Number(value) * ({ us: 0.001, ms: 1, s: 1000 }[unit] ?? 1),
    requests: Number(/(\d+) requests in/.exec(out)?.[1] ?? 0),
    refused: Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0),
  };
}
