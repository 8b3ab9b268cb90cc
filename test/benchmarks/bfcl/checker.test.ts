import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { checkCase, decodePrompting, evaluateEntry, parseCheckerCase, PyDict, PyTuple, pyRepr, systemPrompt, withLanguageHints, pyJsonLoads, toolsFor } from "../../../src/benchmarks/bfcl/index.js";
import { loadBfclData } from "../../../src/eval/benchmarks/bfcl/index.js";

const fixtures = new URL("../../../fixtures/bfcl/", import.meta.url);
const read = (name: string): string => readFileSync(new URL(name, fixtures), "utf8");
const jsonLines = (name: string): string[] => read(name).split("\n").filter((line) => line.trim());

describe("BFCL checker against the official verdicts", () => {
  it("agrees with every dev checker case on the verdict and the error type", () => {
    const disagreements = jsonLines("checker_cases.dev.jsonl").flatMap((line) => {
      const checkerCase = parseCheckerCase(line);
      const verdict = checkCase(checkerCase);
      const same = verdict.valid === checkerCase.expectedValid && verdict.errorType === (checkerCase.expectedErrorType ?? null);
      return same ? [] : [`${checkerCase.id}: got ${verdict.valid} ${verdict.errorType}, expected ${checkerCase.expectedValid} ${checkerCase.expectedErrorType}`];
    });
    expect(disagreements).toEqual([]);
    expect(jsonLines("checker_cases.dev.jsonl")).toHaveLength(44);
  });

  it("accepts every gold model result for its V4 entry", () => {
    const data = loadBfclData(new URL("v4", fixtures).pathname);
    const byId = new Map(data.entries.map((entry) => [entry.id, entry]));
    const gold = jsonLines("gold_model_results_v4.jsonl").map((line) => JSON.parse(line) as { id: string; model_result_raw: string; expected_valid: boolean });
    expect(gold).toHaveLength(220);
    const rejected = gold.flatMap((row) => {
      const entry = byId.get(row.id);
      if (!entry) return [`${row.id}: no such entry`];
      const verdict = evaluateEntry({ category: entry.category, functions: entry.functions, answers: entry.answers ?? [], output: { mode: "prompt", text: row.model_result_raw } });
      return verdict.valid === row.expected_valid ? [] : [`${row.id}: ${verdict.errorType}`];
    });
    expect(rejected).toEqual([]);
  });
});

describe("BFCL's prompting-mode decoder", () => {
  const decode = (text: string): string => pyRepr(decodePrompting(text) as never);

  it("keeps Python's int/float/bool distinction from the raw text", () => {
    expect(decode("[f(a=10, b=10.0, c=True, d=None, e=0xA, g=1_000)]")).toBe("[{'f': {'a': 10, 'b': 10.0, 'c': True, 'd': None, 'e': 10, 'g': 1000}}]");
  });

  it("follows the official value rules: tuples, ..., names, nested calls, arithmetic, unary operators", () => {
    expect(decode("[f(t=(1, 2.5), e=..., n=meters, c=g(1,2), k=g(x=1, y=2), s=2*3+1, d=7/2, u=+5, m=-True)]")).toBe(
      "[{'f': {'t': (1, 2.5), 'e': '...', 'n': 'meters', 'c': 'g(1, 2)', 'k': {'g': {'x': 1, 'y': 2}}, 's': 7, 'd': 3.5, 'u': -5, 'm': -1}}]",
    );
  });

  it("drops positional arguments and reads dotted names from the attribute chain", () => {
    expect(decode("math.factorial(5, number=5)")).toBe("[{'math.factorial': {'number': 5}}]");
  });

  it("fails where the official decoder fails: sets, f-strings, lambdas, -x, attributes, a ```python fence", () => {
    for (const text of ["[f(a={1, 2})]", "[f(a=f'x')]", "[f(a=lambda: 1)]", "[f(a=-x)]", "[f(a=Units.METRIC)]", "```python\n[f(a=1)]\n```", "[f(a=[1)]", "[{}]"]) {
      expect(() => decodePrompting(text), text).toThrow();
    }
  });

  it("decodes any Python int or float literal to a value of the same type (property)", () => {
    fc.assert(
      fc.property(fc.oneof(fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }).map((n) => n.toString()), fc.double({ noNaN: true, noDefaultInfinity: true }).map((x) => pyRepr(x))), (literal) => {
        const decoded = decodePrompting(`[f(x=${literal})]`) as PyDict[];
        const value = ((decoded[0] as PyDict).get("f") as PyDict).get("x");
        expect(pyRepr(value ?? null)).toBe(literal);
        expect(typeof value === "bigint").toBe(!/[.e]/.test(literal));
      }),
    );
  });

  it("keeps tuples apart from lists", () => {
    const value = ((decodePrompting("[f(a=(1,))]") as PyDict[])[0]?.get("f") as PyDict).get("a");
    expect(value).toBeInstanceOf(PyTuple);
  });
});

describe("what the model is shown", () => {
  it("builds BFCL's prompting system prompt byte for byte", () => {
    const line = read("v4/BFCL_v4_simple_python.json").split("\n")[0] as string;
    const functions = (pyJsonLoads(line) as PyDict).get("function");
    expect(systemPrompt(withLanguageHints(functions ?? [], "simple_python"))).toBe(read("default_system_prompt_simple_python_0.txt"));
  });

  it("maps types and names for FC tools as BFCL does", () => {
    const functions = pyJsonLoads(JSON.stringify([{ name: "math.hypot", description: "d", parameters: { type: "dict", properties: { x: { type: "float", description: "x" }, t: { type: "tuple", items: { type: "float" } }, o: { type: "dict", properties: { k: { type: "any" } } } }, required: ["x"] } }]));
    const [tool] = toolsFor(withLanguageHints(functions, "simple_python"));
    expect(tool?.name).toBe("math_hypot");
    expect(tool?.description).toBe("d Note that the provided function is in Python 3 syntax.");
    expect(tool?.parameters).toEqual({
      type: "object",
      properties: {
        x: { type: "number", description: "x This is a float type value.", format: "float" },
        t: { type: "array", items: { type: "number" } },
        o: { type: "object", properties: { k: { type: "string" } } },
      },
      required: ["x"],
    });
  });
});

describe("the decoder against CPython", () => {
  // fixtures/bfcl/decoder_differential.jsonl: generated outputs decoded by BFCL's own decoder
  // under CPython 3.11 (scripts/bfcl-differential.py).
  const rows = jsonLines("decoder_differential.jsonl").map((line) => JSON.parse(line) as { input: string; decoded: string | null });
  // Bytes and complex literals decode officially (and then fail the checker's type check); here
  // they fail to decode. No model output in BFCL's data uses them.
  const narrowing = (decoded: string | null): boolean => decoded !== null && /(?<![\w'])b'|\dj[,)}\]]/.test(decoded);

  it("decodes every generated output as BFCL's decoder does", () => {
    const decode = (text: string): string | null => {
      try {
        return pyRepr(decodePrompting(text) as never);
      } catch {
        return null;
      }
    };
    const disagreements = rows.filter((row) => !narrowing(row.decoded) && decode(row.input) !== row.decoded).map((row) => `${JSON.stringify(row.input)}: want ${row.decoded}, got ${decode(row.input)}`);
    expect(disagreements).toEqual([]);
    expect(rows.length).toBeGreaterThan(600);
    expect(rows.filter((row) => narrowing(row.decoded)).length).toBeLessThan(15);
  });
});
