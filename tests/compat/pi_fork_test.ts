/**
 * How a pi user continues a session: fork it (a version 3 file), then
 * resume the fork, here and in real omp 18.3.4 (the peer oracle, installed
 * in `.cache/omp` by `deno task interop`). Skipped where it is absent.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import {
  CONTEXT_JSON_FIELDS,
  contextToJson,
} from "../../src/context/context_json.ts";
import { forkSession } from "../../src/store/fork.ts";
import { Session } from "../../src/session/session.ts";
import { HAS_OMP, oracle, SKIPPED } from "../_omp.ts";
import { tempDir } from "../_session_files.ts";

const PI = new URL("../../fixtures/pi/", import.meta.url).pathname;

Deno.test({
  name:
    `forkSession() of pi's version 1 session: omp rebuilds our context of the fork, resumes and renames it${SKIPPED}`,
  ignore: !HAS_OMP,
  fn: async (t) => {
    await using dir = await tempDir();
    const src = join(dir.path, "pi.jsonl");
    await Deno.copyFile(join(PI, "large-session-v1.jsonl"), src);
    const fork = await forkSession(src);

    await t.step("omp's context of the fork is ours, every field", async () => {
      const omp = await oracle(["context", fork.path]);
      assert.equal(omp.code, 0, JSON.stringify(omp.json));
      await using s = await Session.open(fork.path);
      const ours = JSON.parse(JSON.stringify(
        await contextToJson(s.buildContext(), s.title, s.titleSource),
      ));
      for (const field of CONTEXT_JSON_FIELDS) {
        assert.deepEqual(ours[field], omp.json[field], field);
      }
      assert.equal((omp.json.header as { version: number }).version, 3);
      // And omp's context of the source, ids aside (omp mints random ones).
      const source = JSON.parse(
        await Deno.readTextFile(join(PI, "large-session-v1.context.json")),
      );
      assert.deepEqual(omp.json.messages, source.messages);
      assert.deepEqual(omp.json.llm, source.llm);
    });
    await t.step("omp appends to the fork, and we read its entry", async () => {
      const copy = join(dir.path, "resumed.jsonl");
      const rt = await oracle([
        "roundtrip",
        fork.path,
        "--text",
        "Carry on ✓",
        "--copy-to",
        copy,
      ]);
      assert.equal(rt.code, 0, JSON.stringify(rt.json));
      assert.equal(rt.json.appendOnly, true, "omp appended, not rewrote");
      await using s = await Session.open(copy);
      assert.deepEqual(s.issues, []);
      const last = s.buildContext().messages.at(-1) as {
        content: { text: string }[];
      };
      assert.equal(last.content[0]!.text, "Carry on ✓");
    });
    await t.step("omp renames the fork in place", async () => {
      const copy = join(dir.path, "renamed.jsonl");
      const tt = await oracle([
        "title",
        fork.path,
        "Port the selectors",
        "--copy-to",
        copy,
      ]);
      assert.equal(tt.code, 0, JSON.stringify(tt.json));
      await using s = await Session.open(copy);
      assert.equal(s.title, "Port the selectors");
    });
  },
});
