import assert from "node:assert/strict";
import { test } from "node:test";

import { fromMeta } from "../dist/index.js";
import { metaOf } from "../dist/context.js";

/** The request _meta Trailblaze sends a Trailblaze-aware tool. */
const ours = {
  trailblazeInvocationId: "inv-1",
  trailblaze: {
    baseUrl: "http://127.0.0.1:9/rpc",
    sessionId: "sess-1",
    invocationId: "inv-1",
    token: "secret",
    device: { id: "chromium", platform: "WEB", driver: "playwright-native", width: 1280, height: 720 },
    memory: { user: "ada" },
    target: { id: "shop", displayName: "The Shop", appIds: ["com.shop", "com.shop.beta"] },
  },
};

test("reads Trailblaze's envelope", () => {
  const ctx = fromMeta(ours);
  assert.equal(ctx.sessionId, "sess-1");
  assert.equal(ctx.invocationId, "inv-1");
  assert.equal(ctx.baseUrl, "http://127.0.0.1:9/rpc");
  assert.equal(ctx.token, "secret");
  assert.deepEqual(ctx.device, {
    platform: "web",
    widthPixels: 1280,
    heightPixels: 720,
    driverType: "playwright-native",
    instanceId: "chromium",
  });
  assert.equal(ctx.memory.get("user"), "ada");
  assert.equal(ctx.target.displayName, "The Shop");
  assert.equal(typeof ctx.logger.info, "function");
});

test("reads upstream's names for the device and the invocation", () => {
  const ctx = fromMeta({
    trailblaze: {
      sessionId: "s",
      invocationId: "i",
      device: { platform: "android", widthPixels: 1080, heightPixels: 2400, driverType: "android-ondevice-accessibility" },
    },
  });
  assert.deepEqual(ctx.device, {
    platform: "android",
    widthPixels: 1080,
    heightPixels: 2400,
    driverType: "android-ondevice-accessibility",
  });
  assert.equal(ctx.target, undefined);
  assert.deepEqual(ctx.memory.keys(), []);
});

test("no context outside a session, or from an envelope without its ids or device", () => {
  assert.equal(fromMeta(undefined), undefined);
  assert.equal(fromMeta({ progressToken: 1 }), undefined);
  assert.equal(fromMeta({ trailblaze: { sessionId: "s", invocationId: "i" } }), undefined);
  assert.equal(fromMeta({ trailblaze: { sessionId: "s", device: ours.trailblaze.device } }), undefined);
  const unknownPlatform = { ...ours.trailblaze, device: { ...ours.trailblaze.device, platform: "TV" } };
  assert.equal(fromMeta({ trailblaze: unknownPlatform }), undefined);
});

test("the memory of seed 003's _trailblazeContext stands in when the envelope has none", () => {
  const { memory: _none, ...envelope } = ours.trailblaze;
  assert.equal(fromMeta({ trailblaze: envelope }, undefined, { user: "grace" }).memory.get("user"), "grace");
});

test("resolveAppId: the chosen app, else the first declared, else the caller's default", () => {
  const target = (extra) => fromMeta({ trailblaze: { ...ours.trailblaze, target: { id: "t", ...extra } } }).target;
  assert.equal(target({ appIds: ["a", "b"], appId: "b" }).resolveAppId({ defaultAppId: "c" }), "b");
  assert.equal(target({ appIds: ["a", "b"] }).resolveAppId(), "a");
  const { resolveAppId, resolveBaseUrl } = target({ appIds: [] });
  assert.equal(resolveAppId({ defaultAppId: "c" }), "c");
  assert.equal(resolveAppId(), undefined);
  assert.equal(resolveBaseUrl({ defaultBaseUrl: "https://x" }), "https://x");
  assert.equal(target({ baseUrls: ["https://a"] }).resolveBaseUrl(), "https://a");
  assert.equal(fromMeta({ trailblaze: { ...ours.trailblaze, target: { appIds: [] } } }).target, undefined);
});

test("metaOf finds _meta in a handler's extra, a request, or takes _meta itself", () => {
  assert.equal(metaOf({ _meta: ours, signal: {} }), ours);
  assert.equal(metaOf({ request: { params: { _meta: ours } } }), ours);
  assert.equal(metaOf({ params: { name: "x", _meta: ours } }), ours);
  assert.equal(metaOf(ours), ours);
  assert.equal(metaOf(null), undefined);
});
