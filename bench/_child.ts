/**
 * A benchmark's child process: run it fresh, take the JSON line it printed
 * last, or say why there is none.
 *
 * @module
 */

/**
 * Run `exe args…` to its end and parse its last line of stdout.
 *
 * @returns The parsed value, or the reason there is none: the exit code
 * and the last line of stderr (a crash, an out-of-memory kill).
 */
export async function childJson<T>(
  exe: string,
  args: string[],
): Promise<{ json: T } | { error: string }> {
  const out = await new Deno.Command(exe, {
    args,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout).trim();
  try {
    return { json: JSON.parse(text.split("\n").at(-1) ?? "") };
  } catch {
    const err = new TextDecoder().decode(out.stderr).trim().split("\n").at(-1);
    return { error: `exit ${out.code}: ${err ?? "no output"}` };
  }
}
