import { join } from "node:path";
import { SqliteRunStore } from "../../src/store/index.js";
import { AgentRun } from "../../src/agent/index.js";
import { buildAgent, loadConfig } from "../../src/config/index.js";
import { createRunContext } from "../../src/context/index.js";
import { ScriptedModel } from "../../src/providers/scripted/index.js";
import { workspace, fixture } from "./harness.js";
import { writeFileSync } from "node:fs";
import { stringify } from "yaml";
const ws = workspace("prof");
const steps = 33, perStep = 100;
const responses = [...Array.from({ length: steps }, (_, step) => ({ tool_calls: Array.from({ length: perStep }, (_, n) => ({ id: `s${step}_${n}`, name: "lookup", arguments: { key: `k${n}` } })) })), { text: "done" }];
writeFileSync(join(ws.dir, "agent.yaml"), stringify({ name: "latency", llm: { provider: "scripted", script: "none.yaml" }, max_steps: steps + 2, tools: [{ module: join(fixture, "tools.mjs") }] }));
process.env.RETRACE_CRASH_PAUSE_SCALE = "0.01";
const agent = await buildAgent(loadConfig(join(ws.dir, "agent.yaml")), { mock: new ScriptedModel({ responses } as never, "script") });
const db = join(ws.dir, "full.db");
const full = new SqliteRunStore(db);
await AgentRun.start(agent, { store: full, context: createRunContext(), runId: "big" }).send("go");
const bodies = full.readRaw("big"); full.close();
for (let i = 0; i < 4; i++) {
  const own = join(ws.dir, `c${i}.db`); const st = new SqliteRunStore(own); st.appendRaw(bodies.slice(0, -2)); st.close();
  const s2 = new SqliteRunStore(own);
  let t = performance.now(); s2.read("big"); const read = performance.now() - t;
  t = performance.now(); s2.verify("big"); const ver = performance.now() - t;
  t = performance.now(); const run = AgentRun.open(agent, "big", { store: s2, context: createRunContext() }); const open = performance.now() - t;
  t = performance.now(); await run.resume({ mark: true }); const res = performance.now() - t;
  console.log({ read, ver, open, res });
  s2.close();
}
const { fold } = await import("../../src/journal/index.js");
const s3 = new SqliteRunStore(join(ws.dir, "c0.db"));
for (let i = 0; i < 3; i++) {
  let t = performance.now(); const raw = s3.readRaw("big"); const rr = performance.now() - t;
  t = performance.now(); const ev = s3.read("big"); const rp = performance.now() - t;
  t = performance.now(); fold(ev); const f = performance.now() - t;
  t = performance.now(); s3.verify("big"); const v = performance.now() - t;
  console.log(`raw ${rr.toFixed(0)} read+parse ${rp.toFixed(0)} fold ${f.toFixed(0)} verify ${v.toFixed(0)}`);
}
