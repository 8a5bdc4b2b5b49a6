// Search by meaning from npm, with no Rust, no Python and no download at build time: the packed
// `midashi` tarball installs the English model package its optional dependency names
// (@midashi/model-minilm), a Japanese site installs @midashi/model-e5 beside it, and
// `npx midashi <site>` distils the site's static table from the model it finds and ships it.
// Without a model package the build is keyword-only and says which package to install.

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import { pathWithoutRust, userProject, writeTree } from "./harness.mjs";

const page = (lang, title, sections) =>
  `<!doctype html><html lang="${lang}"><head><title>${title}</title></head><body><main>` +
  `<h1 id="top">${title}</h1>` +
  sections.map(([id, h, p]) => `<h2 id="${id}">${h}</h2><p>${p}</p>`).join("") +
  "</main></body></html>";

const ENGLISH = {
  "index.html": page("en", "Orbit", [["about", "About Orbit", "Orbit schedules jobs on a cluster of machines."]]),
  "deploy/index.html": page("en", "Deploying Orbit", [
    ["hosting", "Static hosting", "Upload the generated folder to any web server or CDN; no server code runs."],
    ["domains", "Custom domains", "Point a CNAME record at the host and wait for the certificate to be issued."],
  ]),
  "config/index.html": page("en", "Configuration", [
    ["file", "The configuration file", "Settings live in orbit.toml at the project root."],
    ["env", "Environment variables", "Every setting can be overridden by an ORBIT_ variable."],
  ]),
};

const JAPANESE = {
  "index.html": page("ja", "オービット", [["about", "オービットとは", "オービットは複数のマシンでジョブを実行します。"]]),
  "deploy/index.html": page("ja", "デプロイ", [
    ["hosting", "静的ホスティング", "生成されたフォルダーを任意のウェブサーバーにアップロードします。"],
    ["domains", "独自ドメイン", "CNAME レコードをホストに向け、証明書の発行を待ちます。"],
  ]),
  "config/index.html": page("ja", "設定", [
    ["file", "設定ファイル", "設定はプロジェクトのルートにある orbit.toml に書きます。"],
    ["env", "環境変数", "すべての設定は ORBIT_ で始まる変数で上書きできます。"],
  ]),
};

/** `npx midashi …` in `project` with no Rust on PATH and no model outside the project. */
function npx(project, args) {
  const r = spawnSync(join(project, "node_modules", ".bin", "midashi"), args, {
    cwd: project,
    encoding: "utf8",
    env: {
      ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("MIDASHI_"))),
      PATH: pathWithoutRust(),
      // The user's cache may hold models (scripts/fetch-model.sh's copies): not this project's.
      MIDASHI_CACHE_DIR: join(project, ".midashi-cache"),
    },
  });
  assert.equal(r.status, 0, `npx midashi ${args.join(" ")}:\n${r.stdout}\n${r.stderr}`);
  return { out: r.stdout, err: r.stderr };
}

function buildSite(project, files) {
  const site = join(project, "site");
  rmSync(site, { recursive: true, force: true });
  writeTree(site, files);
  const report = npx(project, ["site"]);
  return { site, report, files: readdirSync(join(site, "search")) };
}

const ask = (project, site, query) => JSON.parse(npx(project, ["search", join(site, "search"), query, "--json"]).out);

describe("semantic search from the npm packages", () => {
  test("npm i midashi builds English docs with the site's static table, from the model package", () => {
    const project = userProject("midashi-scenario-en", undefined, { under: tmpdir() });
    assert.ok(existsSync(join(project, "node_modules", "@midashi", "model-minilm", "all-MiniLM-L6-v2", "model.bin")));
    const { site, report, files } = buildSite(project, ENGLISH);
    assert.match(report.out, /table +\d+ pieces × \d+ dims/, report.out);
    assert.ok(files.some((f) => /^table\.[0-9a-f]{16}\.bin$/.test(f)), files.join());
    assert.ok(!files.some((f) => f.startsWith("model.")), `the table replaces the encoder: ${files.join()}`);
    const r = ask(project, site, "how do I put the site on the web");
    assert.equal(r.mode, "hybrid", JSON.stringify(r).slice(0, 400));
    assert.match(r.results[0].url, /deploy/, JSON.stringify(r.results[0]));
  });

  test("a Japanese site says which model package covers it, and builds with it once installed", () => {
    const english = userProject("midashi-scenario-en", undefined, { under: tmpdir() });
    const before = buildSite(english, JAPANESE);
    assert.match(before.report.err, /npm i -D @midashi\/model-e5/, before.report.err);
    assert.ok(!before.files.some((f) => f.startsWith("table.")), before.files.join());

    const project = userProject("midashi-scenario-ja", ["midashi", "@midashi/model-minilm", "@midashi/model-e5"], {
      under: tmpdir(),
    });
    const { site, report, files } = buildSite(project, JAPANESE);
    assert.match(report.err, /multilingual-e5-small/, report.err);
    assert.ok(files.some((f) => f.startsWith("table.")), files.join());
    const r = ask(project, site, "サイトを公開するには");
    assert.equal(r.mode, "hybrid", JSON.stringify(r).slice(0, 400));
  });

  test("without a model package the build is keyword-only and names the package", () => {
    // The tarball alone: npm looks the optional model up in the registry, does not find it
    // (this version is not published there) and installs without it.
    const project = userProject("midashi-scenario-bare", ["midashi"], { under: tmpdir() });
    assert.ok(!existsSync(join(project, "node_modules", "@midashi", "model-minilm")));
    const { report, files } = buildSite(project, ENGLISH);
    assert.match(report.err, /keyword-only index \(npm i -D @midashi\/model-minilm/, report.err);
    assert.ok(!files.some((f) => f.startsWith("table.") || f.startsWith("vectors.")), files.join());
  });
});

// The projects are made outside the checkout, as a user's are: Node looks for packages in
// every parent folder, and the checkout's node_modules links the model packages' workspaces.
process.on("exit", () => {
  for (const name of ["en", "ja", "bare"]) rmSync(join(tmpdir(), `midashi-scenario-${name}`), { recursive: true, force: true });
});
