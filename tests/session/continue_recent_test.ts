import assert from "node:assert/strict";
import { Session } from "../../src/session/session.ts";
import { sessionDirFor } from "../../src/store/places.ts";
import { sessionBytes, tempDir, user } from "../_session_files.ts";

const FIXTURES = new URL("../../fixtures/omp/", import.meta.url).pathname;

/** A session file in `cwd`'s folder whose last entry is at `time`. */
async function write(
  dataDir: string,
  cwd: string,
  name: string,
  time: string,
  options: { title?: string; mtime?: Date } = {},
): Promise<string> {
  const dir = sessionDirFor(dataDir, cwd);
  await Deno.mkdir(dir, { recursive: true });
  const path = `${dir}/${name}.jsonl`;
  const entry = { ...user("0000000a", null, name), timestamp: time };
  await Deno.writeFile(
    path,
    sessionBytes([entry], {
      header: {
        type: "session",
        version: 3,
        id: crypto.randomUUID(),
        timestamp: "2026-01-01T00:00:00.000Z",
        cwd,
      },
      ...(options.title === undefined ? {} : { title: options.title }),
    }),
  );
  if (options.mtime) await Deno.utime(path, options.mtime, options.mtime);
  return path;
}

Deno.test("Session.continueRecent() opens the folder's session last active, by its last entry, not its mtime", async () => {
  await using dir = await tempDir();
  const cwd = "/work/app";
  const old = new Date("2026-03-01T00:00:00Z");
  const late = await write(dir.path, cwd, "late", "2026-02-02T00:00:00.000Z", {
    mtime: old,
  });
  await write(dir.path, cwd, "early", "2026-02-01T00:00:00.000Z"); // touched now
  await write(dir.path, "/work/other", "other", "2026-02-09T00:00:00.000Z");
  await using s = await Session.continueRecent(cwd, { dataDir: dir.path });
  assert.equal(s.path, late);
  assert.equal(s.onDisk, true);
});

Deno.test("Session.continueRecent() passes over subagents, and creates a session when there is none", async () => {
  await using dir = await tempDir();
  const cwd = "/work/app";
  const slug = sessionDirFor(dir.path, cwd);
  // A child session (title source subagent), and one in omp's place for
  // them: the artifacts folder of a session (here not itself a session).
  const sub = await Session.create({
    cwd,
    dataDir: dir.path,
    title: "Scout",
    titleSource: "subagent",
  });
  await sub.appendMessage({ role: "user", content: "Find callers" });
  await sub.ensureOnDisk();
  await sub.close();
  await Deno.mkdir(`${slug}/parent`);
  await Deno.copyFile(
    `${FIXTURES}s1-subagent.jsonl`,
    `${slug}/parent/0-Scout.jsonl`,
  );
  await using s = await Session.continueRecent(cwd, { dataDir: dir.path });
  assert.equal(s.onDisk, false);
  assert.equal(s.header.cwd, cwd);
  assert.ok(s.path!.startsWith(slug));
  await using none = await Session.continueRecent("/work/empty", {
    dataDir: dir.path,
  });
  assert.equal(none.entries.length, 0);
});
