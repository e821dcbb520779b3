import { deepEqual, equal } from "node:assert/strict";
import { join } from "node:path";
import { agentDataDirs, xdevCacheDir } from "../../src/store/_agent_dirs.ts";

const home = "/home/ann";
const dirs = async (env: Record<string, string>) =>
  (await agentDataDirs({ env, home })).map((d) => `${d.agent} ${d.dataDir}`);

Deno.test("agentDataDirs() finds xdev's, omp's and pi's data dirs as each agent does", async (t) => {
  await t.step("the defaults", async () => {
    deepEqual(await dirs({}), [
      "xdev /home/ann/.xdev/agent",
      "omp /home/ann/.omp/agent",
      "pi /home/ann/.pi/agent",
    ]);
  });
  await t.step(
    "PI_CODING_AGENT_DIR moves both omp's and pi's: listed once",
    async () => {
      deepEqual(await dirs({ PI_CODING_AGENT_DIR: "/srv/agent" }), [
        "xdev /home/ann/.xdev/agent",
        "omp /srv/agent",
      ]);
    },
  );
  await t.step("pi expands a leading ~", async () => {
    const found = await dirs({ PI_CODING_AGENT_DIR: "~/pi", OMP_PROFILE: "w" });
    equal(found[2], "pi /home/ann/pi");
  });
  await t.step(
    "an omp profile, OMP_PROFILE before PI_PROFILE; PI_CONFIG_DIR",
    async () => {
      equal(
        (await dirs({ OMP_PROFILE: "work" }))[1],
        "omp /home/ann/.omp/profiles/work/agent",
      );
      equal(
        (await dirs({ PI_PROFILE: "p" }))[1],
        "omp /home/ann/.omp/profiles/p/agent",
      );
      equal(
        (await dirs({ OMP_PROFILE: "", PI_PROFILE: "p" }))[1],
        "omp /home/ann/.omp/agent",
      );
      equal(
        (await dirs({ OMP_PROFILE: "default" }))[1],
        "omp /home/ann/.omp/agent",
      );
      equal(
        (await dirs({ PI_CONFIG_DIR: ".omp2" }))[1],
        "omp /home/ann/.omp2/agent",
      );
    },
  );
  await t.step(
    "an existing $XDG_DATA_HOME/omp holds omp's sessions",
    async () => {
      const xdg = await Deno.makeTempDir();
      try {
        equal(
          (await dirs({ XDG_DATA_HOME: xdg }))[1],
          "omp /home/ann/.omp/agent",
        );
        await Deno.mkdir(join(xdg, "omp"));
        equal(
          (await dirs({ XDG_DATA_HOME: xdg }))[1],
          `omp ${join(xdg, "omp")}`,
        );
      } finally {
        await Deno.remove(xdg, { recursive: true });
      }
    },
  );
});

Deno.test("xdevCacheDir() is $XDG_CACHE_HOME/xdev, else ~/.cache/xdev", () => {
  equal(xdevCacheDir({ env: { XDG_CACHE_HOME: "/c" }, home }), "/c/xdev");
  equal(xdevCacheDir({ env: {}, home }), "/home/ann/.cache/xdev");
});
