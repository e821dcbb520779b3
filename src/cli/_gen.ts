/**
 * `cli gen`: a synthetic session transcript of a given size.
 *
 * @module
 */

import {
  generateFile,
  type GenerateResult,
  parseSize,
} from "../gen/_generate.ts";
import { formatBytes, progressBar } from "./_format.ts";
import {
  cliFailure,
  type CliIo,
  CliUsageError,
  flagValue,
  noPositionals,
  parseArgs,
} from "./_io.ts";

const _HELP =
  `Usage: cli gen --size SIZE --out F [--seed N] [--no-checkpoints] [--branch-back] [--force] [--json]

Write a synthetic, deterministic session transcript shaped like a long omp
session (turns, tool calls, compactions, resets), for benchmarks and for
trying the other commands on a big file. A progress bar is drawn on a
terminal.

Options:
  --size SIZE        target size: 100M, 1.5G, 512K (binary units), or bytes
  --out F            the file to write (mode 0600)
  --seed N           PRNG seed (default 1): the same options give the same bytes
  --no-checkpoints   write no settings checkpoints (what omp writes)
  --branch-back      end with a branch back to before the last compaction
  --force            overwrite F if it exists
  --json             print the summary as an object
`;

/**
 * Run `gen`.
 *
 * @param args The command's arguments.
 * @param io Where output goes.
 * @returns The exit code.
 */
export async function runGen(args: string[], io: CliIo): Promise<number> {
  const parsed = parseArgs(args, {
    size: true,
    out: true,
    seed: true,
    "no-checkpoints": false,
    "branch-back": false,
    force: false,
    json: false,
    help: false,
  });
  if (parsed.flags.has("help")) {
    io.stdout(_HELP);
    return 0;
  }
  noPositionals(parsed, "gen");
  const sizeText = flagValue(parsed, "size");
  const out = flagValue(parsed, "out");
  if (sizeText === undefined) throw new CliUsageError("gen: missing --size");
  if (out === undefined) throw new CliUsageError("gen: missing --out");
  let size: number;
  try {
    size = parseSize(sizeText);
  } catch (err) {
    throw new CliUsageError(`gen: --size: ${(err as Error).message}`);
  }
  const seed = _seed(flagValue(parsed, "seed"));
  if (!parsed.flags.has("force") && await _exists(out)) {
    throw new Error(
      `Cannot generate "${out}": the file exists (--force overwrites it)`,
    );
  }
  const progress = progressBar(io, { total: size, unit: "bytes" });
  let result: GenerateResult;
  try {
    result = await generateFile(out, {
      size,
      seed,
      checkpoints: !parsed.flags.has("no-checkpoints"),
      branchBackAtEnd: parsed.flags.has("branch-back"),
      onProgress: (written) => progress.update(Math.min(written, size)),
    });
  } catch (err) {
    throw cliFailure(`Cannot generate "${out}"`, err);
  }
  progress.finish(size);
  const summary = { path: out, ...result };
  if (parsed.flags.has("json")) {
    io.stdout(`${JSON.stringify(summary, null, 2)}\n`);
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
}

function _seed(text: string | undefined): number {
  if (text === undefined) return 1;
  const seed = Number(text);
  if (!/^-?\d+$/.test(text.trim()) || !Number.isSafeInteger(seed)) {
    throw new CliUsageError(`gen: --seed must be an integer, not "${text}"`);
  }
  return seed;
}

async function _exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return false;
    throw cliFailure(`Cannot generate "${path}"`, err);
  }
}
