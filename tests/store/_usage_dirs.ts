/**
 * Shared by the usage tests (no tests of its own): the fixture data dirs
 * of `fixtures/usage/`, copied to a temp dir (an index is written into a
 * data dir), and an index built over one.
 */

import { join } from "node:path";
import { SessionIndex } from "../../mod.ts";

/** The fixture data dirs. */
export const USAGE_FIXTURES: string =
  new URL("../../fixtures/usage/", import.meta.url).pathname;

/** Every fixture data dir's name. */
export const USAGE_DIRS = [
  "forks",
  "no-cost",
  "malformed",
  "days",
  "legacy",
  "omp-s1",
  "omp-s2",
] as const;

/**
 * Copy a folder, recursively.
 *
 * @param from The folder.
 * @param to Where the copy goes (made).
 */
export async function copyDir(from: string, to: string): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  for await (const e of Deno.readDir(from)) {
    const a = join(from, e.name), b = join(to, e.name);
    if (e.isDirectory) await copyDir(a, b);
    else if (e.isFile) await Deno.copyFile(a, b);
  }
}

/**
 * A copy of a fixture data dir in a new temp dir, removed on dispose.
 *
 * @param name The fixture.
 * @returns The copy's path, disposable.
 */
export async function fixtureCopy(
  name: string,
): Promise<{ dir: string } & AsyncDisposable> {
  const dir = await Deno.makeTempDir({ prefix: `xdev-usage-${name}-` });
  await copyDir(join(USAGE_FIXTURES, name), dir);
  return {
    dir,
    [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }),
  };
}

/**
 * Make and refresh the session index of a data dir.
 *
 * @param dataDir The data dir.
 */
export async function buildIndex(dataDir: string): Promise<void> {
  using index = await SessionIndex.open(dataDir, { onWarning: () => {} });
  await index.refresh();
}
