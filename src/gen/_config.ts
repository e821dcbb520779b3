/**
 * The options of `generate.ts`, checked and with their defaults filled in.
 *
 * @module
 */

import type { GenerateOptions } from "./_options.ts";

/** Default distance between compactions. */
const DEFAULT_COMPACTION_EVERY = 5 * 1024 * 1024;
/** Default distance of the last compaction from the end: a ~4 MB final window. */
const DEFAULT_LAST_COMPACTION_BEFORE_END = 3.5 * 1024 * 1024;
/** Default places of the `reset_boundary` entries, as fractions of the file. */
const DEFAULT_RESETS_AT: readonly number[] = [0.3, 0.7];

/** {@linkcode GenerateOptions}, checked, with the defaults filled in. */
export interface _Config {
  size: number;
  seed: number;
  compactionEvery: number;
  resetsAt: number[];
  lastCompactionBeforeEnd: number;
  onProgress: ((written: number, total: number) => void) | undefined;
  branchBackAtEnd: boolean;
  checkpoints: boolean;
}

/** Checks `options` and fills in the defaults. */
export function _config(options: GenerateOptions): _Config {
  if (options === null || typeof options !== "object") {
    throw new TypeError(
      "Cannot generate a transcript: options is not an object",
    );
  }
  const number = (name: string, value: unknown, min: number): number => {
    if (typeof value !== "number") {
      throw new TypeError(
        `Cannot generate a transcript: ${name} is not a number`,
      );
    }
    if (!Number.isFinite(value) || value < min) {
      throw new RangeError(
        `Cannot generate a transcript: ${name} is ${value}, not a finite number ≥ ${min}`,
      );
    }
    return value;
  };
  const resetsAt = options.resetsAt ?? DEFAULT_RESETS_AT;
  if (!Array.isArray(resetsAt)) {
    throw new TypeError(
      "Cannot generate a transcript: resetsAt is not an array",
    );
  }
  for (const f of resetsAt) {
    if (number("a resetsAt fraction", f, 0) > 1) {
      throw new RangeError(
        `Cannot generate a transcript: resetsAt holds ${f}, outside 0–1`,
      );
    }
  }
  const compactionEvery = number(
    "compactionEvery",
    options.compactionEvery ?? DEFAULT_COMPACTION_EVERY,
    0,
  );
  if (compactionEvery === 0) {
    throw new RangeError("Cannot generate a transcript: compactionEvery is 0");
  }
  if (
    options.onProgress !== undefined && typeof options.onProgress !== "function"
  ) {
    throw new TypeError(
      "Cannot generate a transcript: onProgress is not a function",
    );
  }
  return {
    size: number("size", options.size, 0),
    seed: number("seed", options.seed ?? 1, -Infinity),
    compactionEvery,
    resetsAt: [...resetsAt].sort((a, b) => a - b),
    lastCompactionBeforeEnd: number(
      "lastCompactionBeforeEnd",
      options.lastCompactionBeforeEnd ?? DEFAULT_LAST_COMPACTION_BEFORE_END,
      0,
    ),
    onProgress: options.onProgress,
    branchBackAtEnd: options.branchBackAtEnd === true,
    checkpoints: options.checkpoints !== false,
  };
}
