// Drives `lectern mcp` with the protocol's reference client (the
// TypeScript SDK, installed by test_mcp.sh into a temporary directory and
// found through NODE_PATH's directory in the import below), for one
// context: initialize (both revisions), tools/list, each tool,
// resources/list (paged), resources/templates/list, resources/read, a bad
// argument, an unknown tool, a cancelled call. Every check that fails
// prints "FAIL: ..."; the exit status is the count of failures.
//
//   node mcp_client.mjs LECTERN CONTEXT PROJECT PAGES [--write]
//
// PAGES: how many pages PROJECT's latest version has (resources are
// listed 100 at a time, so more than 100 are paged).
import { pathToFileURL } from "node:url";
import path from "node:path";

const sdk = (p) => pathToFileURL(path.join(process.env.MCP_SDK, p)).href;
const { Client } = await import(sdk("dist/esm/client/index.js"));
const { StdioClientTransport } = await import(sdk("dist/esm/client/stdio.js"));

const [lectern, context, project, pagesText, write] = process.argv.slice(2);
const pages = Number(pagesText);
let failures = 0;
const check = (ok, what) => {
  if (!ok) {
    failures++;
    console.log("FAIL: " + what);
  }
};
const text = (r) => (r.content || []).map((c) => c.text || "").join("");

async function connect(protocol) {
  const args = ["--context", context, "mcp"];
  if (write) args.push("--allow-write");
  const transport = new StdioClientTransport({
    command: lectern,
    args,
    env: process.env,
    stderr: "inherit",
  });
  const client = new Client({ name: "lectern-test", version: "1.0.0" });
  if (protocol) {
    // The previous revision, as an older client asks for it.
    const orig = transport.send.bind(transport);
    transport.send = (msg) => {
      if (msg.method === "initialize") msg.params.protocolVersion = protocol;
      return orig(msg);
    };
  }
  await client.connect(transport);
  return client;
}

// initialize with the previous revision: agreed on, and tools listed.
{
  const old = await connect("2025-06-18");
  check(old.getServerVersion()?.name === "lectern", "serverInfo.name");
  check((await old.listTools()).tools.length >= 5, "tools/list on 2025-06-18");
  await old.close();
}

const client = await connect();
check(client.getServerCapabilities()?.tools, "the tools capability");
check(client.getServerCapabilities()?.resources, "the resources capability");

// tools/list: names, descriptions, schemas.
const tools = (await client.listTools()).tools;
const names = tools.map((t) => t.name).sort();
const want = ["get_build", "list_projects", "list_versions", "read_page", "search_docs"]
  .concat(write ? ["trigger_build"] : []).sort();
check(JSON.stringify(names) === JSON.stringify(want), "tools " + names.join(","));
for (const t of tools)
  check(t.description.length > 40 && t.inputSchema.type === "object",
        "description and schema of " + t.name);

// list_projects and list_versions.
let r = await client.callTool({ name: "list_projects", arguments: {} });
check(!r.isError && r.structuredContent.projects.some((p) => p.slug === project),
      "list_projects names " + project + ": " + text(r));
r = await client.callTool({ name: "list_versions", arguments: { project } });
const latest = r.structuredContent?.versions.find((v) => v.slug === "latest");
check(!r.isError && latest && latest.built && latest.default,
      "list_versions: latest built and default: " + text(r));

// search_docs: the section, first, with a ref read_page takes.
r = await client.callTool({ name: "search_docs",
                            arguments: { query: "frobnicator", project, limit: 5 } });
const hit = r.structuredContent?.results?.[0];
check(!r.isError && hit && hit.section_title === "Setup" && hit.ref.section === "setup",
      "search_docs: the Setup section first: " + text(r));
check(hit && /\*\*frobnicator\*\*/i.test(hit.snippet), "the match marked in the snippet");

// read_page: the section, as Markdown with its anchor, table and code.
r = await client.callTool({ name: "read_page", arguments: hit ? hit.ref : { project, path: "x" } });
const md = r.structuredContent?.markdown || "";
check(!r.isError && md.startsWith("## Setup {#setup}"), "read_page's section: " + md.slice(0, 80));
check(md.includes("| a | b |") && md.includes("```python"), "a table and a code block survive");

// A long page in parts, cut at lines, joined back whole.
let whole = "", cursor, parts = 0;
do {
  r = await client.callTool({ name: "read_page",
                              arguments: { project, path: "long.html", max_chars: 1000,
                                           ...(cursor ? { cursor } : {}) } });
  whole += r.structuredContent?.markdown || "";
  cursor = r.structuredContent?.next_cursor;
  parts++;
} while (cursor && parts < 50);
check(parts > 2 && whole.includes("Line 199 of the long page."),
      `a long page in ${parts} parts, whole again`);

// get_build: the newest build, passed, with its warnings.
r = await client.callTool({ name: "get_build", arguments: { project } });
check(!r.isError && r.structuredContent.success === true && r.structuredContent.build > 0,
      "get_build: " + text(r));

// Failures a model can read: an unknown project names the near one; a
// bad argument says what is wrong.
r = await client.callTool({ name: "list_versions", arguments: { project: project + "x" } });
check(r.isError && text(r).includes("Near names: " + project), "near names: " + text(r));
r = await client.callTool({ name: "read_page", arguments: { project } });
check(r.isError && text(r).includes("path"), "a missing path: " + text(r));
r = await client.callTool({ name: "search_docs", arguments: { query: "x", limit: 0 } });
check(r.isError, "limit 0 refused");

// An unknown tool is a protocol error.
try {
  await client.callTool({ name: "no_such_tool", arguments: {} });
  check(false, "an unknown tool answered");
} catch (e) {
  check(e.code === -32602, "unknown tool: " + e.message);
}

// trigger_build only with --allow-write.
if (write) {
  r = await client.callTool({ name: "trigger_build", arguments: { project, version: "latest" } });
  check(!r.isError && r.structuredContent.build > 0, "trigger_build: " + text(r));
}

// resources/list, paged: every page of the version, once each.
const uris = new Set();
let next, calls = 0;
do {
  const page = await client.listResources(next ? { cursor: next } : {});
  for (const res of page.resources) {
    check(res.mimeType === "text/markdown", "a resource's type");
    uris.add(res.uri);
  }
  next = page.nextCursor;
  calls++;
} while (next && calls < 20);
const mine = [...uris].filter((u) => u.startsWith(`lectern://${context}/${project}/latest/`));
check(calls > 1, "resources/list paged (" + calls + " calls)");
check(mine.length === pages, `${mine.length} resources of ${pages} pages`);
const templates = (await client.listResourceTemplates()).resourceTemplates;
check(templates[0]?.uriTemplate === `lectern://${context}/{project}/{version}/{+path}`,
      "the resource template");

// resources/read: a page as Markdown; an unknown one is an error.
const read = await client.readResource({ uri: `lectern://${context}/${project}/latest/index.html` });
check(read.contents[0].text.startsWith("# Markdown Guide"), "resources/read: " +
      read.contents[0].text.slice(0, 60));
try {
  await client.readResource({ uri: `lectern://${context}/${project}/latest/nope.html` });
  check(false, "an unknown resource was read");
} catch (e) {
  check(e.code === -32002, "unknown resource: " + e.message);
}

// A cancelled call: the client stops waiting, the server sends nothing
// for it and answers the next request.
const abort = new AbortController();
const slow = client.callTool({ name: "search_docs", arguments: { query: "slow-query", project } },
                             undefined, { signal: abort.signal });
abort.abort("test");
try {
  await slow;
} catch (e) {
  // The SDK rejects an aborted request with its reason (code -32001).
  check(e.code === -32001 || /abort|cancel/i.test(String(e)),
        "the cancelled call rejected: " + e);
}
r = await client.callTool({ name: "list_projects", arguments: {} });
check(!r.isError, "the next call after a cancel");

await client.close();
process.exit(failures);
