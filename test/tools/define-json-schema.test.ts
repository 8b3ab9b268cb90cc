import { describe, expect, it } from "vitest";
import { defineTool } from "../../src/tools/index.js";
import { z } from "../../src/index.js";
import { runOnce } from "../helpers.js";

const schema = {
  type: "object",
  properties: { employeeType: { type: "string", enum: ["permanent", "temporary"] }, year: { type: "integer", minimum: 2000 } },
  required: ["employeeType"],
  additionalProperties: false,
} as const;

const leaveDays = defineTool({
  name: "leave_days",
  description: "Annual leave days for a kind of employee.",
  input: { ...schema, properties: { ...schema.properties }, required: [...schema.required] },
  run: (args) => ({ days: args.employeeType === "permanent" ? 25 : 2 }),
});

describe("defineTool with a JSON Schema", () => {
  it("shows the model the schema as written and validates arguments against it", () => {
    expect(leaveDays.parameters).toEqual(schema);
    expect(leaveDays.input.safeParse({ employeeType: "permanent", year: 2026 }).success).toBe(true);
    expect(leaveDays.input.safeParse({ employeeType: "contractor" }).success).toBe(false);
    expect(leaveDays.input.safeParse({ year: 2026 }).success).toBe(false);
    expect(leaveDays.input.safeParse({ employeeType: "permanent", extra: 1 }).success).toBe(false);
  });

  it("runs in an agent: valid arguments run, invalid ones fail the call before it runs", async () => {
    const { events } = await runOnce(
      {
        responses: [
          { tool_calls: [{ name: "leave_days", arguments: { employeeType: "permanent" } }, { name: "leave_days", arguments: { employeeType: "intern" } }] },
          { text: "25" },
        ],
      },
      "How many days?",
      { tools: [leaveDays] },
    );
    const finished = events.filter((event) => event.type === "tool.finished");
    const failed = events.filter((event) => event.type === "tool.failed");
    expect(finished.map((event) => event.result)).toEqual([{ days: 25 }]);
    expect(failed).toHaveLength(1);
  });

  it("refuses a schema that is not an object schema, naming the tool", () => {
    expect(() => defineTool({ name: "bad", description: "x", input: { type: "string" } as never, run: () => null })).toThrow(/tool "bad": input must be a zod schema or a JSON Schema with type "object"/);
  });

  it("zod is re-exported from the package, for eval files without zod of their own", () => {
    const tool = defineTool({ name: "echo_z", description: "x", input: z.object({ text: z.string() }), run: ({ text }) => text });
    expect(tool.parameters).toMatchObject({ type: "object", required: ["text"] });
  });
});
