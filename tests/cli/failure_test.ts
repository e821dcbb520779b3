import { equal } from "node:assert/strict";
import { join } from "node:path";
import { attempt, checkFolder, failure } from "../../src/cli/_failure.ts";
import { openSession } from "../../src/cli/_open_session.ts";
import { tempDir } from "../_session_files.ts";

Deno.test("failure() words an error as Cannot <action>: <state>", () => {
  const cases: [Error, string][] = [
    [new Deno.errors.NotFound("x"), "no such file or directory"],
    [new Deno.errors.IsADirectory("x"), "it is a folder"],
    [new Deno.errors.NotADirectory("x"), "not a folder"],
    [new Deno.errors.AlreadyExists("x"), "it already exists"],
    [new Deno.errors.PermissionDenied("x"), "permission denied"],
    [new Error("odd"), "odd"],
  ];
  for (const [err, state] of cases) {
    const f = failure('open "a"', err);
    equal(f.message, `Cannot open "a": ${state}`);
    equal(f.cause, err);
  }
  const worded = new Error('Cannot fork "a": "b" already exists');
  equal(failure('fork "a"', worded), worded);
});

Deno.test("attempt() passes a result through and words a failure", async () => {
  equal(await attempt("x", () => Promise.resolve(7)), 7);
  const err = await attempt(
    'read "b"',
    () => Promise.reject(new Deno.errors.NotFound("os error 2")),
  ).catch((e) => e);
  equal(err.message, 'Cannot read "b": no such file or directory');
});

Deno.test("openSession() fails naming the file: missing, a folder", async () => {
  await using dir = await tempDir();
  const missing = join(dir.path, "nope.jsonl");
  const err = async (p: string) => (await openSession(p).catch((e) => e));
  equal(
    (await err(missing)).message,
    `Cannot open "${missing}": no such file or directory`,
  );
  equal(
    (await err(dir.path)).message,
    `Cannot open "${dir.path}": it is a folder`,
  );
});

Deno.test("checkFolder() accepts a folder or nothing, and refuses a file", async () => {
  await using dir = await tempDir();
  await checkFolder(dir.path, "use");
  await checkFolder(join(dir.path, "absent"), "use");
  const file = join(dir.path, "f");
  await Deno.writeTextFile(file, "");
  const err = await checkFolder(file, "open the data dir").catch((e) => e);
  equal(err.message, `Cannot open the data dir "${file}": not a folder`);
});
