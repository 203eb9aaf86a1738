// Prints the command, arguments and environment an MCP Bundle's host runs
// for the unpacked bundle in argv[2] with the user's settings in argv[3] (a
// JSON object), resolved by the official @anthropic-ai/mcpb library's own
// getMcpConfigForManifest, as Claude Desktop resolves it. Copied next to the
// installed package by scripts/release/bundles, so that the import resolves.
import { readFileSync } from "node:fs";
import { join, sep } from "node:path";
import { getMcpConfigForManifest } from "@anthropic-ai/mcpb";

const [dir, settings] = process.argv.slice(2);
const manifest = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8"));
const config = await getMcpConfigForManifest({
  manifest,
  extensionPath: dir,
  systemDirs: { HOME: "/nonexistent", DESKTOP: "/nonexistent", DOCUMENTS: "/nonexistent", DOWNLOADS: "/nonexistent" },
  userConfig: JSON.parse(settings),
  pathSeparator: sep,
});
if (!config) {
  console.error(`resolve-config: the host would not start ${manifest.name} with ${settings} (a required setting is missing)`);
  process.exit(1);
}
process.stdout.write(JSON.stringify(config) + "\n");
