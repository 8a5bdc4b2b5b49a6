// A versioned docs site through the JS API: the index names its versions (newest first), an
// unfiltered query shows a section once with its other versions, `version` filters, and the
// answers are the CLI's.

import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { buildIndex, cliSearch, compareWithCli, importMidashi, tempDir } from "../support/indexes.mjs";

function versionedSite() {
  const root = tempDir("midashi-versions-");
  for (const [v, extra] of [["5.1", "Windows PowerShell only."], ["7.4", ""], ["7.10", "New: `-Depth`."]]) {
    const dir = path.join(root, v, "Module");
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, "Get-Widget.md"), `# Get-Widget\n\nGets widgets from the store. ${extra}\n\n## Parameters\n\n### -Name\n\nThe widget name to look up.\n`);
  }
  return root;
}

describe("versioned sites", () => {
  let Midashi;
  let dir;
  let idx;
  before(async () => {
    ({ Midashi } = await importMidashi());
    dir = buildIndex(versionedSite());
    idx = await Midashi.load(dir);
  });
  after(() => idx?.close());

  test("the index names its versions, newest first (7.10 after 7.4)", () => {
    assert.deepEqual(idx.indexes[0].versions, ["7.10", "7.4", "5.1"]);
  });

  test("a section found in three versions is one result naming the other two", async () => {
    const r = await idx.search("widget name", { prefix: false, supersede: false });
    const top = r.results[0];
    assert.equal(top.version, "7.10");
    assert.deepEqual(top.other_versions.map((v) => v.version), ["7.4", "5.1"]);
    assert.ok(top.other_versions[0].url.includes("/7.4/"));
    const families = r.results.map((h) => JSON.stringify(h.heading_path));
    assert.equal(new Set(families).size, families.length, "a section shown twice");
    // The same answer as the CLI, field by field.
    const cli = await cliSearch(dir, "widget name", 10);
    assert.deepEqual(compareWithCli(r, cli.value), []);
  });

  test("version filters to one version, collapseVersions: false lists every copy", async () => {
    const one = await idx.search("widget name", { prefix: false, version: "7.4", supersede: false });
    assert.ok(one.results.length > 0);
    for (const h of one.results) {
      assert.equal(h.version, "7.4");
      assert.deepEqual(h.other_versions, []);
    }
    const all = await idx.search("widget name", { prefix: false, collapseVersions: false, supersede: false });
    const collapsed = await idx.search("widget name", { prefix: false, supersede: false });
    assert.equal(all.total, collapsed.total * 3);
  });
});
