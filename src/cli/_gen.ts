/**
 * `cli gen`: a synthetic session transcript of a given size.
 *
 * @module
 */

import { fs, isNotFound } from "../_fs.ts";
import {
  generateFile,
  type GenerateResult,
  parseSize,
} from "../gen/generate.ts";
import {
  attempt,
  type Call,
  type Command,
  defineCommand,
  failure,
  writeJson,
} from "./_command.ts";
import { formatBytes } from "./_format.ts";
import { progressBar } from "./_progress.ts";
import { userPath } from "./_user_path.ts";

const ABOUT =
  `Write a synthetic, deterministic session transcript shaped like a long omp
session (turns, tool calls, compactions, resets), for benchmarks and for
trying the other commands on a big file. A progress bar is drawn on a
terminal.
`;

/** `cli gen`. */
export const command: Command = defineCommand({
  name: "gen",
  summary: "Write a synthetic transcript of a given size.",
  about: ABOUT,
  flags: {
    size: {
      value: "SIZE",
      required: true,
      help: "target size: 100M, 1.5G, 512K (binary units), or bytes",
    },
    out: { value: "F", required: true, help: "the file to write (mode 0600)" },
    seed: {
      value: "N",
      help: "PRNG seed (default 1): the same options give the same bytes",
    },
    "no-checkpoints": {
      help: "write no settings checkpoints (what omp writes)",
    },
    "branch-back": {
      help: "end with a branch back to before the last compaction",
    },
    force: { help: "overwrite F if it exists" },
    json: { help: "print the summary as an object" },
  },
  run: async (call, io) => {
    const out = userPath(call.value("out")!); // the user's folder, not the task's
    const size = _size(call);
    const seed = _seed(call);
    if (!call.has("force") && await _exists(out)) {
      throw new Error(
        `Cannot generate "${out}": the file exists (--force overwrites it)`,
      );
    }
    const progress = progressBar(io, { total: size, unit: "bytes" });
    const result: GenerateResult = await attempt(
      `generate "${out}"`,
      () =>
        generateFile(out, {
          size,
          seed,
          checkpoints: !call.has("no-checkpoints"),
          branchBackAtEnd: call.has("branch-back"),
          onProgress: (written) => progress.update(Math.min(written, size)),
        }),
    );
    progress.finish(size);
    if (call.has("json")) {
      writeJson(io, { path: out, ...result });
      return 0;
    }
    io.stdout(
      [
        `wrote ${out}`,
        `bytes        ${result.bytes} (${formatBytes(result.bytes)})`,
        `entries      ${result.entries}`,
        `compactions  ${result.compactions}`,
        `resets       ${result.resets}`,
        `leaf         ${result.leafId}`,
      ].join("\n") + "\n",
    );
    return 0;
  },
});

type _GenCall = Call<"size" | "seed">;

function _size(call: _GenCall): number {
  try {
    return parseSize(call.value("size")!);
  } catch (err) {
    throw call.usageError(`--size: ${(err as Error).message}`);
  }
}

function _seed(call: _GenCall): number {
  const text = call.value("seed");
  if (text === undefined) return 1;
  const seed = Number(text);
  if (!/^-?\d+$/.test(text.trim()) || !Number.isSafeInteger(seed)) {
    throw call.usageError(`--seed must be an integer, not "${text}"`);
  }
  return seed;
}

/** Whether anything is at `path` (a link too, even a dangling one). */
async function _exists(path: string): Promise<boolean> {
  try {
    await fs().lstat(path);
    return true;
  } catch (err) {
    if (isNotFound(err)) return false;
    throw failure(`generate "${path}"`, err);
  }
}
