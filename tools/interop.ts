/**
 * Interop with real omp: write the demo sessions, then ask omp (the peer
 * oracle) to rebuild, resume, rename and list each, and compare omp's
 * context with ours field by field.
 *
 *     deno task interop
 *
 * Skips with a message where `../shared/peers/omp` is absent. Exit 1 on any
 * mismatch or refusal.
 *
 * @module
 */

import { isDeepStrictEqual } from "node:util";
import {
  CONTEXT_JSON_FIELDS,
  contextToJson,
} from "../src/context/context_json.ts";
import { writeDemo } from "../src/cli/_demo.ts";
import { listSessions } from "../src/store/list.ts";
import { Session } from "../src/session/session.ts";
import { askOmp, ompOracle } from "./omp_oracle.ts";

interface Check {
  file: string;
  check: string;
  ok: boolean;
  detail?: string;
}

async function main(): Promise<number> {
  const oracle = await ompOracle("interop");
  if (oracle === undefined) {
    console.log("interop: skipped (the omp oracle is absent)");
    return 0;
  }
  const dataDir = await Deno.makeTempDir({ prefix: "xdev-interop-" });
  const checks: Check[] = [];
  try {
    const { files } = await writeDemo(dataDir);
    for (const [name, file] of Object.entries(files)) {
      // context: omp's rebuild against ours, field by field
      const omp = await askOmp(oracle, [
        "context",
        file,
        "--data-dir",
        dataDir,
      ]);
      await using s = await Session.open(file, { dataDir, checkpoints: false });
      const ours = JSON.parse(
        JSON.stringify(
          await contextToJson(s.buildContext(), s.title, s.titleSource),
        ),
      );
      if (omp.code !== 0 || omp.json === undefined) {
        checks.push({
          file: name,
          check: "context",
          ok: false,
          detail: JSON.stringify(omp.json?.error ?? omp.stderr.slice(-200)),
        });
      } else {
        const differ = CONTEXT_JSON_FIELDS.filter((f) =>
          !isDeepStrictEqual(ours[f], omp.json![f])
        );
        checks.push({
          file: name,
          check: "context",
          ok: differ.length === 0,
          detail: differ.length === 0
            ? `${ours.messages.length} messages, ${CONTEXT_JSON_FIELDS.length} fields equal`
            : `differ: ${differ.join(", ")}`,
        });
      }
      // roundtrip: omp resumes a copy and appends one message
      const copy = `${dataDir}/copies/${name}.jsonl`;
      const rt = await askOmp(oracle, [
        "roundtrip",
        file,
        "--copy-to",
        copy,
        "--data-dir",
        dataDir,
      ]);
      checks.push({
        file: name,
        check: "roundtrip",
        ok: rt.code === 0 && rt.json?.ok === true &&
          rt.json?.appendOnly === true,
        detail: rt.json
          ? `appendOnly ${rt.json.appendOnly}, ${rt.json.contextMessageCount} messages`
          : rt.stderr.slice(-200),
      });
      // our open of omp's appended copy
      await using back = await Session.open(copy, { dataDir });
      const last = back.buildContext().messages.at(-1) as
        | { role: string }
        | undefined;
      checks.push({
        file: name,
        check: "reopen omp's append",
        ok: last?.role === "user" && back.issues.length === 0,
      });
      // title: omp renames a copy in place
      const titled = `${dataDir}/copies/${name}.titled.jsonl`;
      const tt = await askOmp(oracle, [
        "title",
        file,
        "Renamed by omp ✓",
        "--copy-to",
        titled,
        "--data-dir",
        dataDir,
      ]);
      await using renamed = await Session.open(titled, { dataDir });
      checks.push({
        file: name,
        check: "title",
        ok: tt.code === 0 && tt.json?.line1Bytes === 256 &&
          renamed.title === "Renamed by omp ✓",
        detail: tt.json
          ? `line 1 ${tt.json.line1Bytes} bytes; we read "${renamed.title}"`
          : tt.stderr.slice(-200),
      });
    }
    // list: omp's listing against ours
    const ompList = await askOmp(oracle, ["list", dataDir]);
    const ours = (await listSessions(dataDir)).map((s) => s.id).sort();
    const theirs = ((ompList.json?.sessions ?? []) as { id: string }[]).map((
      s,
    ) => s.id).sort();
    checks.push({
      file: "(data dir)",
      check: "list",
      ok: isDeepStrictEqual(ours, theirs),
      detail: `${ours.length} sessions, omp ${theirs.length}`,
    });
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
  for (const c of checks) {
    console.log(
      `${c.ok ? "ok  " : "FAIL"} ${c.file.padEnd(10)} ${c.check.padEnd(20)} ${
        c.detail ?? ""
      }`,
    );
  }
  const failed = checks.filter((c) => !c.ok).length;
  console.log(`${checks.length - failed} passed, ${failed} failed`);
  return failed === 0 ? 0 : 1;
}

if (import.meta.main) Deno.exitCode = await main();
