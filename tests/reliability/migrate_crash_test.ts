/**
 * kill -9 during the first append to a version 1 file (its migration to
 * version 3 in place, `src/session/_migrate_file.ts`): whatever the moment,
 * the file is the old one byte for byte, or the whole migrated one. A temp
 * file may be left beside it (nothing reads it).
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { Session } from "../../mod.ts";
import { tempDir } from "../_session_files.ts";

const PI = new URL("../../fixtures/pi/large-session-v1.jsonl", import.meta.url);
const WORKER = new URL("../_append_worker.ts", import.meta.url).pathname;
/** Copies of pi's body: a file of some MB, so a kill can land mid-copy. */
const COPIES = 12;
const KILLS = 10;

/** pi's version 1 session with its body repeated: a large legacy file. */
async function largeV1(): Promise<Uint8Array> {
  const text = await Deno.readTextFile(PI);
  const at = text.indexOf("\n") + 1;
  return new TextEncoder().encode(
    text.slice(0, at) + text.slice(at).repeat(COPIES),
  );
}

/** Run the append worker on `path`; kill it after `ms` (never when negative). */
async function append(path: string, ms: number): Promise<number> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", WORKER, path, "1", "1", "1"],
    stdout: "null",
    stderr: "null",
  }).spawn();
  const timer = ms < 0 ? undefined : setTimeout(() => {
    try {
      child.kill("SIGKILL");
    } catch {
      // it had exited already
    }
  }, ms);
  const status = await child.status;
  clearTimeout(timer);
  return status.code;
}

Deno.test({
  name:
    "Session.appendMessage() killed (-9) mid-migration of a version 1 file leaves it old or whole",
  ignore: Deno.build.os === "windows",
  fn: async () => {
    await using dir = await tempDir();
    const bytes = await largeV1();
    const path = join(dir.path, "v1.jsonl");
    let entries: number;
    {
      await Deno.writeFile(path, bytes);
      await using s = await Session.open(path);
      entries = s.entries.length;
    }
    // Two runs to the end: how long a whole append takes here, with the
    // migration and (the same file, migrated now) without it. The kills
    // are spread from a little before the migration to a little after.
    const timed = async () => {
      const t0 = performance.now();
      assert.equal(await append(path, -1), 0);
      return performance.now() - t0;
    };
    const whole = await timed();
    const plain = await timed();
    const from = plain * 0.7;
    const span = whole * 1.1 - from;
    const outcomes = { old: 0, migrated: 0, appended: 0 };
    for (let k = 0; k < KILLS; k++) {
      await Deno.writeFile(path, bytes);
      await append(path, from + (span * (k + 0.5)) / KILLS);
      const now = await Deno.readFile(path);
      if (now.length === bytes.length && now.every((b, i) => b === bytes[i])) {
        outcomes.old++;
        continue;
      }
      await using s = await Session.open(path, { window: false });
      assert.deepEqual(s.issues, [], `kill ${k}: a whole file`);
      assert.equal(s.header.version, 3, `kill ${k}`);
      const extra = s.entries.length - entries;
      assert.ok(extra === 0 || extra === 1, `kill ${k}: ${extra} new entries`);
      if (extra === 0) outcomes.migrated++;
      else outcomes.appended++;
    }
    console.log(
      `migrate crash: ${bytes.length} bytes, a whole run ${
        Math.round(whole)
      } ms (${
        Math.round(plain)
      } without the migration), after ${KILLS} kills: ${
        JSON.stringify(outcomes)
      }`,
    );
  },
});
