import assert from "node:assert/strict";
import { join } from "node:path";
import { uuidv7 } from "../../src/format/uuid.ts";
import { resolveDataDir } from "../../src/store/data_dir.ts";
import {
  canonicalCwdSlug,
  cwdSlug,
  parseSessionFileName,
  sessionDirFor,
  sessionFileName,
  sessionsDir,
} from "../../src/store/places.ts";

const HOME = "/home/ann";
const TMP = "/tmp";
const SLUG_OPTIONS = { home: HOME, tmpDir: TMP };
const UUID_V7 =
  /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** A temp home for config tests; removed after `fn`. */
async function withHome(
  config: string | undefined,
  fn: (home: string) => Promise<void>,
): Promise<void> {
  const home = await Deno.makeTempDir({ prefix: "xdev-places-" });
  try {
    if (config !== undefined) {
      await Deno.mkdir(join(home, ".xdev"));
      await Deno.writeTextFile(join(home, ".xdev", "config.jsonc"), config);
    }
    await fn(home);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
}

/** The 48-bit millisecond timestamp at the front of a UUIDv7. */
function uuidMs(id: string): number {
  return parseInt(id.replaceAll("-", "").slice(0, 12), 16);
}

Deno.test("cwdSlug() follows omp's rule for HOME, the temp dir and elsewhere", async (t) => {
  await t.step(
    "omp's verified example: ~/src/lumen-api is -src-lumen-api",
    () => {
      assert.equal(
        cwdSlug(`${HOME}/src/lumen-api`, SLUG_OPTIONS),
        "-src-lumen-api",
      );
    },
  );
  await t.step("HOME itself is -", () => {
    assert.equal(cwdSlug(HOME, SLUG_OPTIONS), "-");
    assert.equal(cwdSlug(`${HOME}/`, SLUG_OPTIONS), "-");
  });
  await t.step("the temp dir itself is -tmp, below it -tmp-<relative>", () => {
    assert.equal(cwdSlug(TMP, SLUG_OPTIONS), "-tmp");
    assert.equal(cwdSlug("/tmp/a/b", SLUG_OPTIONS), "-tmp-a-b");
  });
  await t.step("elsewhere is --<absolute path>--", () => {
    assert.equal(cwdSlug("/srv/app", SLUG_OPTIONS), "--srv-app--");
    assert.equal(cwdSlug("/", SLUG_OPTIONS), "----");
  });
  await t.step("a sibling that shares HOME's prefix is not under HOME", () => {
    assert.equal(cwdSlug("/home/anna/x", SLUG_OPTIONS), "--home-anna-x--");
  });
  await t.step("HOME is checked before the temp dir", () => {
    assert.equal(cwdSlug("/tmp/h/p", { home: "/tmp/h", tmpDir: TMP }), "-p");
  });
  await t.step("the path is normalized first", () => {
    assert.equal(cwdSlug(`${HOME}//src/./x/../app/`, SLUG_OPTIONS), "-src-app");
    assert.equal(
      cwdSlug("//srv/app", SLUG_OPTIONS),
      "--srv-app--",
      "// is POSIX, not UNC",
    );
  });
  await t.step(": and \\ in names become -", () => {
    assert.equal(cwdSlug(`${HOME}/a:b\\c`, SLUG_OPTIONS), "-a-b-c");
    assert.equal(cwdSlug("/srv/x:y", SLUG_OPTIONS), "--srv-x-y--");
  });
  await t.step(
    "like omp, a folder named ..x right under HOME counts as outside",
    () => {
      assert.equal(cwdSlug(`${HOME}/..x`, SLUG_OPTIONS), "--home-ann-..x--");
    },
  );
  await t.step("Windows paths use Windows rules on any host", () => {
    assert.equal(cwdSlug("C:\\x", SLUG_OPTIONS), "--C--x--");
    const win = { home: "C:\\Users\\ann", tmpDir: "C:\\Temp" };
    assert.equal(cwdSlug("C:\\Users\\ann\\src\\app", win), "-src-app");
    assert.equal(
      cwdSlug("c:\\users\\ANN", win),
      "-",
      "drive paths compare without case",
    );
    assert.equal(cwdSlug("C:\\Temp\\t1", win), "-tmp-t1");
    assert.equal(cwdSlug("D:\\work", win), "--D--work--");
    assert.equal(cwdSlug("\\\\server\\share\\x", win), "---server-share-x--");
  });
  await t.step("a relative path is refused", () => {
    assert.throws(() => cwdSlug("src/app", SLUG_OPTIONS), TypeError);
    assert.throws(() => cwdSlug("", SLUG_OPTIONS), TypeError);
  });
  await t.step("a slug never holds a separator and never is . or ..", () => {
    for (const cwd of [HOME, `${HOME}/a/b`, "/tmp/..", "/a/../..", "/.."]) {
      const slug = cwdSlug(cwd, SLUG_OPTIONS);
      assert.ok(!/[/\\]/.test(slug) && slug !== "." && slug !== "..", slug);
    }
  });
});

Deno.test("canonicalCwdSlug() resolves symbolic links in cwd, HOME and the temp dir", async () => {
  const root = await Deno.realPath(
    await Deno.makeTempDir({ prefix: "xdev-slug-" }),
  );
  try {
    await Deno.mkdir(join(root, "home", "src", "app"), { recursive: true });
    await Deno.symlink(join(root, "home"), join(root, "home-link"));
    const home = join(root, "home-link");
    const options = { home, tmpDir: "/nonexistent-tmp" };
    assert.equal(
      await canonicalCwdSlug(join(home, "src", "app"), options),
      "-src-app",
    );
    assert.equal(
      await canonicalCwdSlug(join(root, "home", "src"), options),
      "-src",
    );
    const missing = join(home, "missing");
    assert.equal(
      await canonicalCwdSlug(missing, options),
      `--${missing.slice(1).replaceAll("/", "-")}--`,
      "like omp, a cwd that does not exist is taken as given, so a linked HOME does not contain it",
    );
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("sessionsDir() and sessionDirFor() build <dataDir>/sessions/<slug>", () => {
  assert.equal(sessionsDir("/data"), "/data/sessions");
  assert.equal(
    sessionDirFor("/data", `${HOME}/src/lumen-api`, SLUG_OPTIONS),
    "/data/sessions/-src-lumen-api",
  );
  assert.equal(
    sessionDirFor("/data", "/srv/app", SLUG_OPTIONS),
    "/data/sessions/--srv-app--",
  );
});

Deno.test("resolveDataDir() takes XDEV_DATA_DIR, then the config, then ~/.xdev/agent", async (t) => {
  await t.step("the default is ~/.xdev/agent", async () => {
    await withHome(undefined, async (home) => {
      assert.equal(
        await resolveDataDir({ env: {}, home }),
        join(home, ".xdev", "agent"),
      );
    });
  });
  await t.step("dataDir in the config beats the default", async () => {
    await withHome(`{"dataDir": "/srv/cfg"}`, async (home) => {
      assert.equal(await resolveDataDir({ env: {}, home }), "/srv/cfg");
    });
  });
  await t.step("XDEV_DATA_DIR beats the config", async () => {
    await withHome(`{"dataDir": "/srv/cfg"}`, async (home) => {
      const env = { XDEV_DATA_DIR: "/srv/env" };
      assert.equal(await resolveDataDir({ env, home }), "/srv/env");
    });
  });
  await t.step("an empty XDEV_DATA_DIR counts as unset", async () => {
    await withHome(`{"dataDir": "/srv/cfg"}`, async (home) => {
      assert.equal(
        await resolveDataDir({ env: { XDEV_DATA_DIR: "" }, home }),
        "/srv/cfg",
      );
    });
  });
  await t.step("comments and trailing commas are allowed", async () => {
    const config = `// where xdev keeps sessions
{
  /* block */ "dataDir": "/srv/commented", // trailing
  "other": [1, 2,],
}
`;
    await withHome(config, async (home) => {
      assert.equal(await resolveDataDir({ env: {}, home }), "/srv/commented");
    });
  });
  await t.step(
    "~/ is expanded; a relative dataDir is resolved against ~/.xdev",
    async () => {
      await withHome(`{"dataDir": "~/elsewhere"}`, async (home) => {
        assert.equal(
          await resolveDataDir({ env: {}, home }),
          join(home, "elsewhere"),
        );
      });
      await withHome(`{"dataDir": "mine"}`, async (home) => {
        assert.equal(
          await resolveDataDir({ env: {}, home }),
          join(home, ".xdev", "mine"),
        );
      });
      await withHome(undefined, async (home) => {
        const env = { XDEV_DATA_DIR: "~/from-env" };
        assert.equal(
          await resolveDataDir({ env, home }),
          join(home, "from-env"),
        );
      });
    },
  );
  await t.step(
    "HOME comes from the injected env when no home is given",
    async () => {
      await withHome(undefined, async (home) => {
        assert.equal(
          await resolveDataDir({ env: { HOME: home } }),
          join(home, ".xdev", "agent"),
        );
      });
    },
  );
  await t.step(
    "an empty config or one without dataDir sets nothing",
    async () => {
      for (
        const config of ["", "  // nothing yet\n", "{}", `{"theme": "dark"}`]
      ) {
        await withHome(config, async (home) => {
          assert.equal(
            await resolveDataDir({ env: {}, home }),
            join(home, ".xdev", "agent"),
          );
        });
      }
    },
  );
});

Deno.test("resolveDataDir() names the config file when it cannot use it", async (t) => {
  await t.step(
    "malformed JSON is a SyntaxError with the file and the position",
    async () => {
      await withHome(`{\n  "dataDir": ,\n}`, async (home) => {
        const file = join(home, ".xdev", "config.jsonc");
        await assert.rejects(
          resolveDataDir({ env: {}, home }),
          (err: unknown) => {
            assert.ok(err instanceof SyntaxError);
            assert.equal(
              err.message,
              `Cannot read config "${file}": ValueExpected at line 2, column 14`,
            );
            return true;
          },
        );
      });
    },
  );
  await t.step(
    "a config that is not an object, or a dataDir that is not a string, is a TypeError",
    async () => {
      for (
        const config of [`["/x"]`, `"x"`, `{"dataDir": 3}`, `{"dataDir": ""}`]
      ) {
        await withHome(config, async (home) => {
          await assert.rejects(
            resolveDataDir({ env: {}, home }),
            (err: unknown) => {
              assert.ok(err instanceof TypeError);
              assert.ok(
                err.message.includes(join(home, ".xdev", "config.jsonc")),
                err.message,
              );
              return true;
            },
          );
        });
      }
    },
  );
  await t.step(
    "a config that cannot be read (a folder) is an error naming it",
    async () => {
      await withHome(undefined, async (home) => {
        await Deno.mkdir(join(home, ".xdev", "config.jsonc"), {
          recursive: true,
        });
        await assert.rejects(
          resolveDataDir({ env: {}, home }),
          /Cannot read config ".*config\.jsonc"/,
        );
      });
    },
  );
});

Deno.test("sessionFileName() and parseSessionFileName() round-trip omp's names", async (t) => {
  const id = "01a0e775-0100-7eee-9510-1c122060007d";
  await t.step("omp's fixture name", () => {
    const name = `2026-09-28T10-00-00-000Z_${id}.jsonl`;
    assert.equal(sessionFileName("2026-09-28T10:00:00.000Z", id), name);
    assert.deepEqual(parseSessionFileName(name), {
      timestamp: "2026-09-28T10:00:00.000Z",
      id,
    });
  });
  await t.step("timestamps without or with other fractions round-trip", () => {
    for (
      const ts of [
        "2026-09-11T00:00:00Z",
        "2026-09-11T00:00:00.1Z",
        "2026-09-11T00:00:00.123456789Z",
      ]
    ) {
      assert.deepEqual(parseSessionFileName(sessionFileName(ts, id)), {
        timestamp: ts,
        id,
      });
    }
  });
  await t.step("fresh ids round-trip", () => {
    const fresh = uuidv7();
    const ts = new Date().toISOString();
    assert.deepEqual(parseSessionFileName(sessionFileName(ts, fresh)), {
      timestamp: ts,
      id: fresh,
    });
  });
  await t.step(
    "sessionFileName() refuses a timestamp or id of another shape",
    () => {
      for (
        const ts of [
          "2026-09-28 10:00:00Z",
          "2026-09-28T10:00:00+02:00",
          "../x",
          "",
        ]
      ) {
        assert.throws(() => sessionFileName(ts, id), TypeError, ts);
      }
      for (
        const bad of [
          "../../etc/passwd",
          `${id}/x`,
          `${id}\0`,
          "",
          id.replaceAll("-", ""),
        ]
      ) {
        assert.throws(
          () => sessionFileName("2026-09-28T10:00:00.000Z", bad),
          TypeError,
          bad,
        );
      }
    },
  );
  await t.step(
    "parseSessionFileName() refuses hostile and foreign names",
    () => {
      const good = `2026-09-28T10-00-00-000Z_${id}.jsonl`;
      for (
        const name of [
          "",
          "..",
          "../x.jsonl",
          `../${good}`,
          `a/${good}`,
          `2026-09-28T10-00-00-000Z_../../${id}.jsonl`,
          `2026-09-28T10-00-00-000Z_${id}.jsonl/..`,
          `2026-09-28T10-00-00-000Z_${id}.jsonl\0`,
          `2026-09-28T10-00-00-000Z_${id}.JSONL`,
          `2026-09-28T10-00-00-000Z_${id}.jsonl.tmp`,
          `.2026-09-28T10-00-00-000Z_${id}.jsonl.123.tmp`,
          `2026-09-28T10:00:00.000Z_${id}.jsonl`,
          `2026-09-28T10-00-00-000Z_${id}`,
          `2026-09-28T10-00-00-000Z-${id}.jsonl`,
          `2026-09-28T10-00-00-000Z_x${id}.jsonl`,
          `2026-09-28T10-00-00-000Z_${id}\\x.jsonl`,
        ]
      ) {
        assert.equal(
          parseSessionFileName(name),
          undefined,
          JSON.stringify(name),
        );
      }
    },
  );
});

Deno.test("uuidv7() makes RFC 9562 version 7 ids", async (t) => {
  await t.step("the shape, version and variant", () => {
    for (let i = 0; i < 100; i++) {
      const id = uuidv7();
      assert.match(id, UUID_V7);
      const bytes = Uint8Array.fromHex(id.replaceAll("-", ""));
      assert.equal((bytes[6] as number) >> 4, 7, "version 7");
      assert.equal((bytes[8] as number) >> 6, 0b10, "variant 10");
    }
  });
  await t.step("the timestamp decodes back", () => {
    for (const now of [0, 1, 1_790_589_600_000, 2 ** 48 - 1]) {
      const id = uuidv7(now);
      assert.match(id, UUID_V7);
      assert.equal(uuidMs(id), now);
    }
    const before = Date.now();
    const id = uuidv7();
    const after = Date.now();
    assert.ok(
      uuidMs(id) >= before && uuidMs(id) <= after + 1,
      "the clock's millisecond",
    );
  });
  await t.step("now outside 0…2^48-1 or not an integer is a RangeError", () => {
    for (const now of [-1, 2 ** 48, 1.5, Number.NaN, Infinity]) {
      assert.throws(() => uuidv7(now), RangeError, String(now));
    }
  });
  await t.step(
    "10,000 ids are unique and sorted in the order they were made",
    () => {
      const ids = Array.from({ length: 10_000 }, () => uuidv7());
      assert.equal(new Set(ids).size, ids.length);
      for (let i = 1; i < ids.length; i++) {
        assert.ok(
          (ids[i - 1] as string) < (ids[i] as string),
          `${ids[i - 1]} < ${ids[i]}`,
        );
      }
      const first = uuidMs(ids[0] as string);
      assert.ok(uuidMs(ids.at(-1) as string) >= first);
    },
  );
  await t.step("an explicit now does not break the order of later ids", () => {
    const a = uuidv7();
    uuidv7(0);
    const b = uuidv7();
    assert.ok(a < b);
  });
});
