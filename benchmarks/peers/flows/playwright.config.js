// Playwright Test set up as trailblaze's web driver launches (benchmarks/pytest_peers.py sets
// the environment): the same Chromium by path, its flags, the viewport and timeout, the sample app
// the benchmark serves; every test may run on any worker, as every trail may under --workers.
const { defineConfig } = require("@playwright/test");

module.exports = defineConfig({
  testDir: __dirname,
  testMatch: "flows.spec.js",
  fullyParallel: true,
  reporter: "dot",
  outputDir: process.env.TB_PEER_OUTPUT,
  use: {
    baseURL: process.env.TB_PEER_BASE_URL,
    viewport: { width: 1280, height: 720 },
    actionTimeout: 10_000,
    navigationTimeout: 10_000,
    launchOptions: {
      executablePath: process.env.TB_PEER_CHROMIUM,
      args: process.env.TB_PEER_CHROMIUM_ARGS.split("\n"),
    },
  },
});
