// What every scenario needs: the packed `midashi` tarball installed into a scratch project
// (as a user gets it, with cargo hidden from PATH), cached installs of other packages from
// the registry, a static server and Chromium.
//
// Installs are cached under .cache/scenarios/ (ignored by git), keyed by the exact package
// list, so a second run reuses them; crates' binaries in a cache outside the clone (CRATE_CACHE). A package that cannot be installed fails its test with
// npm's message: no scenario passes by skipping.

import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync, readFileSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { delimiter, join } from "node:path";
import { ROOT, buildIndexBin } from "../browser/helpers.mjs";

export const CACHE = process.env.MIDASHI_SCENARIO_CACHE ?? join(ROOT, ".cache", "scenarios");

/** PATH without any folder that holds cargo or rustc: what a user without Rust has. */
export function pathWithoutRust() {
  return (process.env.PATH ?? "")
    .split(delimiter)
    .filter((d) => d && !existsSync(join(d, "cargo")) && !existsSync(join(d, "rustc")))
    .join(delimiter);
}

/** Runs a command; on failure the error carries its output. */
export function run(cmd, args, { cwd, env = {}, timeout = 15 * 60_000 } = {}) {
  try {
    return execFileSync(cmd, args, {
      cwd,
      // A key given as undefined is left out of the child's environment.
      env: Object.fromEntries(Object.entries({ ...process.env, ...env }).filter(([, v]) => v !== undefined)),
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
      timeout,
      maxBuffer: 64 * 1024 * 1024,
    });
  } catch (e) {
    throw new Error(`${cmd} ${args.join(" ")} (in ${cwd}) failed:\n${e.stdout ?? ""}\n${e.stderr ?? e.message}`);
  }
}

/**
 * A folder under the cache with `packages` installed from the registry (exact versions),
 * reused while the list is unchanged.
 */
export function installed(name, packages) {
  const dir = join(CACHE, name);
  const key = createHash("sha256").update(JSON.stringify(packages)).digest("hex").slice(0, 16);
  const stamp = join(dir, "node_modules", `.midashi-${key}`);
  if (existsSync(stamp)) return dir;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: `scenario-${name}`, private: true, type: "module" }));
  // Three tries: a registry hiccup (a reset connection, a 5xx on one tarball) once cancelled
  // a whole generator's tests on CI although the same install passed a minute later.
  for (let attempt = 1; ; attempt++) {
    try {
      run("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error", ...packages], { cwd: dir });
      break;
    } catch (e) {
      if (attempt === 3) {
        throw new Error(`could not install ${name}'s packages (${packages.join(" ")}) from the registry after 3 tries: ${e.message}`);
      }
      process.stderr.write(`# npm install for ${name} failed (try ${attempt} of 3), retrying: ${e.message.split("\n").slice(-8).join(" | ")}\n`);
      rmSync(join(dir, "node_modules"), { recursive: true, force: true });
      execFileSync("sleep", [String(10 * attempt)]);
    }
  }
  writeFileSync(stamp, "");
  return dir;
}

/**
 * Where crates' binaries are installed: outside the clone (`$XDG_CACHE_HOME/midashi/crates`,
 * or `MIDASHI_CRATE_CACHE`), so that a clean clone on the same machine (CI) finds mdBook
 * compiled by an earlier run instead of compiling it again (~4 CPU-minutes).
 */
export const CRATE_CACHE =
  process.env.MIDASHI_CRATE_CACHE ??
  join(process.env.XDG_CACHE_HOME ?? join(homedir(), ".cache"), "midashi", "crates");

/**
 * A crate's binaries installed from crates.io into the crate cache (`cargo install --locked
 * --debug`), for generators that ship that way (mdBook); the path of the binary `bin`.
 */
export function cargoInstalled(crate, version, { bin = crate, args = [] } = {}) {
  const root = join(CRATE_CACHE, [`${crate}-${version}`, "debug", ...args.map((a) => a.replace(/^-+/, ""))].join("-"));
  const exe = join(root, "bin", bin);
  if (existsSync(exe)) return exe;
  try {
    // Not the workspace's target folder (CARGO_TARGET_DIR in scripts/test.sh): cargo would
    // wait on its lock while the Rust tests hold it (prefetch.mjs runs beside them).
    // A debug build: a scenario's book is a few pages, and an optimised mdBook is twice the
    // compiling on a CPU-bound run.
    // No tight limit: prefetch.mjs runs this at nice 19 beside the Rust build, where mdBook
    // took over the 30 minutes it once had (killed mid-build, it was compiled again in the
    // foreground); CI's own limit is 90.
    run("cargo", ["install", crate, "--version", version, "--locked", "--debug", "--root", root, ...args], {
      timeout: 90 * 60_000,
      env: { CARGO_TARGET_DIR: undefined },
    });
  } catch (e) {
    throw new Error(`could not install ${crate} ${version} from crates.io: ${e.message}`);
  }
  return exe;
}

const packed = new Map();
/**
 * The tarball `npm pack --workspace <workspace>` writes (once per run): `midashi`, or a model
 * package (`@midashi/model-minilm`, `@midashi/model-e5`).
 */
export function packedTarball(workspace = "midashi") {
  if (packed.has(workspace)) return packed.get(workspace);
  // The packages' prepacks (scripts/prepack.mjs, scripts/prepack-model.mjs) build what the
  // tarball lacks; scripts/test.sh puts the build-index it has just tested there first, and
  // the model packages are written with that same build-index.
  const out = join(CACHE, "pack", workspace.replace(/[@/]/g, "_"));
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  run("npm", ["pack", "--workspace", workspace, "--pack-destination", out, "--loglevel=error"], {
    cwd: ROOT,
    env: workspace === "midashi" ? {} : { MIDASHI_PACK_BINARY: process.env.MIDASHI_PACK_BINARY ?? buildIndexBin() },
  });
  const tgz = readdirSync(out).find((f) => f.endsWith(".tgz"));
  if (!tgz) throw new Error(`npm pack --workspace ${workspace} wrote no tarball`);
  packed.set(workspace, join(out, tgz));
  return packed.get(workspace);
}

/**
 * A scratch project with packed tarballs installed (`npm install -D <tgz>…`), as a user's docs
 * project gets them; reinstalled when a tarball changes. By default what `npm i -D midashi`
 * installs: the package and the English model its optional dependency names. `under` is the
 * folder it goes in: outside the checkout for a project that must not find the checkout's own
 * node_modules (Node looks for packages in every parent folder).
 */
export function userProject(name = "user", workspaces = ["midashi", "@midashi/model-minilm"], { under = CACHE } = {}) {
  const tgzs = workspaces.map((w) => packedTarball(w));
  const dir = join(under, name);
  const hash = createHash("sha256");
  for (const tgz of tgzs) hash.update(readFileSync(tgz));
  const stamp = join(dir, "node_modules", `.midashi-${hash.digest("hex").slice(0, 16)}`);
  if (!existsSync(stamp)) {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "package.json"), JSON.stringify({ name: `scenario-${name}`, private: true, type: "module" }));
    run("npm", ["install", "-D", "--no-audit", "--no-fund", "--loglevel=error", ...tgzs], { cwd: dir, env: { PATH: pathWithoutRust() } });
    writeFileSync(stamp, "");
  }
  return dir;
}

/** `npx midashi …` in `project`, with no Rust toolchain on PATH. */
export function npxMidashi(project, args, { cwd = project } = {}) {
  return run(join(project, "node_modules", ".bin", "midashi"), args, { cwd, env: { PATH: pathWithoutRust() } });
}

/** Writes files (path → text) under `dir`, making folders. */
export function writeTree(dir, files) {
  for (const [path, text] of Object.entries(files)) {
    const full = join(dir, path);
    mkdirSync(join(full, ".."), { recursive: true });
    writeFileSync(full, text);
  }
}

/** The scenario site's pages (tests/scenarios/site), path → Markdown. */
export function sitePages() {
  const root = join(ROOT, "tests", "scenarios", "site");
  const out = {};
  const walk = (dir, rel) => {
    for (const name of readdirSync(dir)) {
      const full = join(dir, name);
      const r = rel ? `${rel}/${name}` : name;
      if (statSync(full).isDirectory()) walk(full, r);
      else out[r] = readFileSync(full, "utf8");
    }
  };
  walk(root, "");
  return out;
}
