// A usage pass's helper that claims every piece it can, then dies without
// posting any (usage_helpers_test.ts).
import { PieceClaims } from "../../src/fs/_threads.ts";
import type { HelperStart } from "../../src/store/usage/_helpers.ts";

const scope = globalThis as unknown as {
  onmessage: ((e: MessageEvent<HelperStart>) => void) | null;
};
scope.onmessage = (e) => {
  const claims = new PieceClaims(e.data.paths.length, e.data.claims);
  while (claims.back() !== -1) {
    // claimed, never read
  }
  throw new Error("this helper dies holding the files it claimed");
};
