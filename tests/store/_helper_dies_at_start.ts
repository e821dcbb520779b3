// A usage helper that fails as it starts (usage_helpers_test.ts).
throw new Error("this helper dies at its start");
