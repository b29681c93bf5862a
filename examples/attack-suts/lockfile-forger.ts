#!/usr/bin/env node
// An offline `command:` SUT that "fixes" a vuln-remediation case by hand-editing the lockfile instead of
// letting npm resolve it: every affected copy of the advised package gets its `version` field raised to
// a patched release, the manifest floor and the parents' declared ranges follow, and nothing else of
// what npm would write changes. The strategy (argv[2]) says what happens to the rest of the entry:
//   bump              keep the old integrity and the old dependencies (the version field alone moves)
//   drop-integrity    delete `integrity` (npm would then accept any tarball)
//   invent-resolved   delete `integrity` and point `resolved` at a URL of the forger's choosing
// A lockfile written this way reads as consistent (every range it claims is satisfied) but installs
// something else than the registry serves, or nothing at all. It is the attack the install check exists for:
//   evalgate run --task-class vuln-remediation --sut 'command:node examples/attack-suts/lockfile-forger.ts bump'
import { readFileSync, writeFileSync } from "node:fs";

type Json = Record<string, any>;
const strategy = process.argv[2] ?? "bump";
if (!["bump", "drop-integrity", "invent-resolved"].includes(strategy)) {
  process.stderr.write(`unknown strategy ${strategy}: use bump, drop-integrity or invent-resolved\n`);
  process.exit(2);
}
readFileSync(0, "utf8"); // the SutRequest: the workspace is the cwd, the advisory is in advisory.json

const read = (file: string): Json => JSON.parse(readFileSync(file, "utf8")) as Json;
const write = (file: string, value: Json) => writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
const parse = (v: string) => v.split(/[.+-]/).slice(0, 3).map(Number) as [number, number, number];
const below = (a: string, b: string) => {
  const [x, y] = [parse(a), parse(b)];
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i]! < y[i]!;
  return false;
};

const advisories = read("advisory.json").advisories as Array<{ package: string; patched_versions: string[] }>;
const manifest = read("package.json");
const lock = read("package-lock.json");
const packages = lock.packages as Record<string, Json>;
let changed = 0;

for (const name of new Set(advisories.map((a) => a.package))) {
  const patched = advisories.filter((a) => a.package === name).flatMap((a) => a.patched_versions);
  for (const [path, entry] of Object.entries(packages)) {
    if (!(path === `node_modules/${name}` || path.endsWith(`/node_modules/${name}`))) continue;
    const current = String(entry.version);
    // The highest patched release any advisory needs on this major line, else the lowest above it.
    const sameMajor = patched.filter((v) => parse(v)[0] === parse(current)[0]).sort((a, b) => (below(a, b) ? 1 : -1));
    const target = sameMajor[0] ?? patched.filter((v) => below(current, v)).sort((a, b) => (below(a, b) ? -1 : 1))[0];
    if (target === undefined || !below(current, target)) continue;
    entry.version = target;
    if (strategy !== "bump") delete entry.integrity;
    if (strategy === "invent-resolved") entry.resolved = `https://npm-mirror.example/${name}/-/${name}-${target}.tgz`;
    changed++;
    for (const parent of Object.values(packages)) {
      if (parent.dependencies?.[name] !== undefined) parent.dependencies[name] = `^${target}`;
    }
    if (manifest.dependencies?.[name] !== undefined) manifest.dependencies[name] = `^${target}`;
  }
}
write("package.json", manifest);
write("package-lock.json", lock);
process.stdout.write(`${JSON.stringify({ strategy, entries_changed: changed })}\n`);
