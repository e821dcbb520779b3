/**
 * Peak resident set size, on any of the three runtimes (no `Deno`, no
 * `using`: `bench/runtimes.ts` loads it under Node 22 and Bun too).
 *
 * @module
 */

import { readFileSync } from "node:fs";

/** Peak resident set size of this process (the kernel's VmHWM), in MB. */
export function peakRssMB(): number | undefined {
  try {
    const status = readFileSync("/proc/self/status", "utf8");
    const m = /VmHWM:\s+(\d+) kB/.exec(status);
    return m ? Math.round(Number(m[1]) / 1024 * 10) / 10 : undefined;
  } catch {
    return undefined;
  }
}
