/** The parts of the BFCL port one by one: formats, converters, decoders, loaders, scores. */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  astCheck,
  categoryScores,
  decodeFc,
  decodePrompting,
  evaluateEntry,
  isEmptyOutput,
  pyEq,
  pyJsonDumps,
  pyJsonLoads,
  pyRepr,
  pyToJson,
  resultLine,
  standardizeString,
  summarise,
  PyDict,
  type FunctionDoc,
} from "../../../src/benchmarks/bfcl/index.js";
import { javaConvert, jsConvert, pyFloat, pyInt } from "../../../src/benchmarks/bfcl/convert.js";
import { parseExpression } from "../../../src/benchmarks/bfcl/python/parse.js";
import { unparse } from "../../../src/benchmarks/bfcl/python/unparse.js";
import { loadBfclData } from "../../../src/eval/benchmarks/bfcl/index.js";
import { tempDir } from "../../helpers.js";

const fixtures = new URL("../../../fixtures/bfcl/", import.meta.url).pathname;

describe("json.loads with Python's types", () => {
  it("reads what JSON.parse reads, ints as ints and the rest as floats (property)", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = JSON.stringify(value);
        // pyToJson writes ints beyond 2^53 as text; JSON.parse would round them.
        fc.pre(!/\d{16,}/.test(text));
        expect(pyToJson(pyJsonLoads(text))).toEqual(JSON.parse(text));
      }),
    );
  });

  it("round-trips through json.dumps, keeping 10.0 apart from 10 (property)", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const python = pyJsonLoads(JSON.stringify(value));
        expect(pyEq(pyJsonLoads(pyJsonDumps(python)), python)).toBe(true);
      }),
    );
    expect(pyRepr(pyJsonLoads('{"a": 10.0, "b": 10, "c": 1e400, "d": NaN}'))).toBe("{'a': 10.0, 'b': 10, 'c': inf, 'd': nan}");
    expect(pyJsonDumps(pyJsonLoads('{"a": 10.0, "é": [1, 2.5]}'))).toBe('{"a": 10.0, "\\u00e9": [1, 2.5]}');
  });

  it("refuses what Python refuses", () => {
    for (const text of ["{'a': 1}", "[1,]", "01", "{\"a\" 1}", "tru", "[1] x"]) expect(() => pyJsonLoads(text), text).toThrow();
  });
});

describe("the unparser", () => {
  it("writes calls as ast.unparse does", () => {
    const text = (source: string): string => unparse(parseExpression(source));
    expect(text("foo( 1,2 )")).toBe("foo(1, 2)");
    // As in Python's AST, a starred argument is an argument and is written before the keywords.
    expect(text('f("a", x = 0xA, *r, **k)')).toBe("f('a', *r, x=10, **k)");
    expect(text("(-5) ** 2 + (1 if a else 2)")).toBe("(-5) ** 2 + (1 if a else 2)");
    expect(text("a.b[1:2, ::3]")).toBe("a.b[1:2, ::3]");
    expect(text("[1e16, 1.5e-07, 0.0001, 123456789.0]")).toBe("[1e+16, 1.5e-07, 0.0001, 123456789.0]");
  });

  it("is a fixed point after one pass (property)", () => {
    const leaf = fc.oneof(fc.integer().map(String), fc.constantFrom("x", "True", "None", "'s'", '"it\'s"', "1.5", "..."));
    const expr: fc.Arbitrary<string> = fc.letrec((tie) => ({
      node: fc.oneof({ depthSize: "small", withCrossShrink: true }, leaf, fc.tuple(tie("node"), fc.constantFrom("+", "-", "*", "**", "//"), tie("node")).map(([a, op, b]) => `(${a} ${op} ${b})`), fc.array(tie("node"), { maxLength: 3 }).map((items) => `f(${items.join(", ")})`), fc.array(tie("node"), { maxLength: 3 }).map((items) => `[${items.join(", ")}]`)),
    })).node as fc.Arbitrary<string>;
    fc.assert(
      fc.property(expr, (source) => {
        const once = unparse(parseExpression(source));
        expect(unparse(parseExpression(once))).toBe(once);
      }),
    );
  });
});

describe("decoding", () => {
  it("FC: arguments parsed with Python's types; a text reply fails, an empty one is no call", () => {
    expect(pyRepr(decodeFc([{ f: '{"a": 10.0, "b": [1, 2]}' }]))).toBe("[{'f': {'a': 10.0, 'b': [1, 2]}}]");
    expect(() => decodeFc("I cannot help with that.")).toThrow();
    expect(decodeFc("")).toEqual([]);
    expect(() => decodeFc([{ f: "{bad" }])).toThrow();
  });

  it("prompting: Java and JavaScript calls keep every value a string", () => {
    expect(pyRepr(decodePrompting('[Foo.bar(name="x", ids=new int[]{1, 2}, n=50L, flag=true)]', "java"))).toBe("[{'Foo.bar': {'name': 'x', 'ids': 'new int[]{1,2}', 'n': '50L', 'flag': 'true'}}]");
    expect(pyRepr(decodePrompting("[extract(filepath='/var/log/db.log', status=['a', 'b'], n=10)]", "javascript"))).toBe("[{'extract': {'filepath': '/var/log/db.log', 'status': \"['a', 'b']\", 'n': '10'}}]");
  });

  it("knows an output that holds no call", () => {
    expect(isEmptyOutput([])).toBe(true);
    expect(isEmptyOutput([new PyDict()])).toBe(true);
    expect(isEmptyOutput(decodePrompting("[f()]"))).toBe(false);
  });
});

describe("the Java and JavaScript converters", () => {
  it("convert by the declared type, and keep the raw text when the form does not fit", () => {
    expect(javaConvert("50L", "long")).toBe(50n);
    expect(javaConvert("50", "long")).toBe("50");
    expect(javaConvert("1.5f", "float")).toBe(1.5);
    expect(pyRepr(javaConvert('new ArrayList<>(Arrays.asList("a", "b"))', "ArrayList", "String"))).toBe("['a', 'b']");
    expect(pyRepr(javaConvert('new HashMap<String, String>() {{ put("k", "v"); }}', "HashMap"))).toBe("{'k': 'v'}");
    expect(javaConvert("'a'", "char")).toBe("'a'");
    expect(jsConvert("123n", "Bigint")).toBe(123n);
    expect(pyRepr(jsConvert("['x', 'y']", "array", "String"))).toBe("['x', 'y']");
    expect(pyRepr(jsConvert("{a: 1, b: 'two'}", "dict"))).toBe("{'a': 1, 'b': 'two'}");
  });

  it("fall back with Python's int() and float()", () => {
    expect(pyInt(" 1_000 ")).toBe(1000n);
    expect(pyInt("1.0")).toBeUndefined();
    expect(pyFloat("5.")).toBe(5);
    expect(pyFloat("-inf")).toBe(-Infinity);
    expect(pyFloat("0x10")).toBeUndefined();
  });
});

describe("checker rules", () => {
  const doc: FunctionDoc = { name: "f", description: "", parameters: { type: "dict", properties: { s: { type: "string" }, n: { type: "integer" }, x: { type: "float" } }, required: ["s"] } };
  const answers = (text: string): PyDict[] => pyJsonLoads(text) as PyDict[];
  const check = (output: string, truth: string): string | null =>
    evaluateEntry({ category: "simple_python", functions: [doc], answers: answers(truth), output: { mode: "prompt", text: output } }).errorType;

  it("names each failure with the official error type, in the official order", () => {
    const truth = '[{"f": {"s": ["April 1, 2024"], "n": [3, ""], "x": [2.0]}}]';
    expect(check("[f(s='april 1 2024', x=2)]", truth)).toBeNull();
    expect(check("[f(x=2.0)]", truth)).toBe("simple_function_checker:missing_required");
    expect(check("[f(s='April 1, 2024')]", truth)).toBe("simple_function_checker:missing_optional");
    expect(check("[f(s='x', x=2.0)]", truth)).toBe("value_error:string");
    expect(check("[f(s='April 1, 2024', n=True, x=2.0)]", truth)).toBe("type_error:simple");
    expect(check("[f(s='April 1, 2024', x=2.5)]", truth)).toBe("value_error:others");
    expect(check("[f(s='April 1, 2024', x=2.0), f(s='a')]", truth)).toBe("simple_function_checker:wrong_count");
    expect(check("f(s=1", truth)).toBe("ast_decoder:decoder_failed");
  });

  it("standardises strings as BFCL does", () => {
    expect(standardizeString("It's  New-York, N.Y._*^/")).toBe('it"snewyorkny');
  });

  it("picks the checker from the category's name", () => {
    const calls = [{ name: "f", args: PyDict.of([["s", "a"]]) }];
    const truth = answers('[{"f": {"s": ["a"]}}, {"f": {"s": ["b"]}}]');
    expect(astCheck([doc], calls, truth, "live_parallel_multiple", { language: "python", underscoreToDot: false }).errorType).toBe("parallel_function_checker_no_order:wrong_count");
    expect(astCheck([doc], calls, truth, "live_multiple", { language: "python", underscoreToDot: false }).errorType).toBe("multiple_function_checker:wrong_count");
  });
});

describe("loading BFCL data", () => {
  it("reads the V3 layout under V4 names", () => {
    const data = loadBfclData(join(fixtures, "v3"));
    expect(data.version).toBe(3);
    expect(data.problems).toEqual([]);
    expect(data.categories).toEqual(["simple_python", "simple_java", "simple_javascript", "multiple", "parallel", "parallel_multiple", "irrelevance"]);
    expect(data.entries.find((entry) => entry.id === "simple_0")?.category).toBe("simple_python");
    expect(data.entries.filter((entry) => entry.answers !== undefined)).toHaveLength(180);
  });

  it("names a bad answer line by file and line", () => {
    const dir = tempDir("retrace-bfcl-load-");
    mkdirSync(join(dir, "possible_answer"));
    writeFileSync(join(dir, "BFCL_v4_multiple.json"), JSON.stringify({ id: "multiple_0", question: [[{ role: "user", content: "hi" }]], function: [] }) + "\n");
    writeFileSync(join(dir, "possible_answer/BFCL_v4_multiple.json"), '{"id": "multiple_0", "ground_truth": {"f": 1}}\n');
    const data = loadBfclData(dir, { cwd: dir });
    expect(data.problems.map((problem) => `${problem.file}:${problem.line}`)).toEqual(["possible_answer/BFCL_v4_multiple.json:1", "BFCL_v4_multiple.json:1"]);
    expect(data.entries).toEqual([]);
  });
});

describe("scores", () => {
  it("follow V4's aggregation: unweighted non-live, count-weighted live, 10/10/10 of the overall", () => {
    const results = [
      ...Array.from({ length: 4 }, (_, i) => ({ id: `simple_python_${i}`, category: "simple_python", valid: i < 3 })),
      ...Array.from({ length: 2 }, (_, i) => ({ id: `multiple_${i}`, category: "multiple", valid: i < 1 })),
      ...Array.from({ length: 3 }, (_, i) => ({ id: `live_simple_${i}`, category: "live_simple", valid: i < 3 })),
      ...Array.from({ length: 1 }, (_, i) => ({ id: `live_multiple_${i}`, category: "live_multiple", valid: false })),
      ...Array.from({ length: 2 }, (_, i) => ({ id: `irrelevance_${i}`, category: "irrelevance", valid: true })),
    ].map((result) => ({ ...result, raw: "", decoded: undefined, errorType: null, error: [] }));
    const scores = categoryScores(results, ["simple_python", "multiple", "live_simple", "live_multiple", "irrelevance"]);
    const summary = summarise(scores);
    expect(summary.nonLiveSimple).toBeCloseTo(0.75 / 3, 12);
    expect(summary.nonLiveAst).toBeCloseTo((0.75 / 3 + 0.5 + 0 + 0) / 4, 12);
    expect(summary.live).toBeCloseTo(3 / 4, 12);
    expect(summary.irrelevance).toBeCloseTo(0.5, 12);
    expect(summary.overallV4).toBeCloseTo((summary.nonLiveAst as number) * 0.1 + 0.75 * 0.1 + 0.5 * 0.1, 12);
  });

  it("write decoded floats with their .0 in the results file", () => {
    const line = resultLine({ id: "a", category: "simple_python", raw: "[f(x=10.0)]", decoded: decodePrompting("[f(x=10.0)]"), valid: false, errorType: "type_error:simple", error: ["e"] });
    expect(line).toBe('{"id":"a","category":"simple_python","valid":false,"error_type":"type_error:simple","raw":"[f(x=10.0)]","decoded":[{"f": {"x": 10.0}}],"error":["e"]}');
    expect(JSON.parse(line)).toMatchObject({ decoded: [{ f: { x: 10 } }] });
  });
});

describe("Java and JavaScript call text, as BFCL's tree-sitter parsers read it", () => {
  it("fails two Java calls (no Java statement) and finds no call in a JavaScript sequence", () => {
    expect(() => decodePrompting("[A.b(x=1), C.d(y=2)]", "java")).toThrow();
    expect(decodePrompting("[f(a=1), g(b=2)]", "javascript")).toBeNull();
    expect(() => decodePrompting("[f(a=)]", "java")).toThrow();
  });

  it("keeps a HashMap's initializer out of its text, as the node walk does", () => {
    expect(pyRepr(decodePrompting('[m(map=new HashMap<String, String>() {{ put("k", "v"); }}, list=new ArrayList<>(Arrays.asList("a", "b")))]', "java"))).toBe(
      `[{'m': {'map': 'new HashMap<String,String>()', 'list': 'new ArrayList<>(Arrays.asList("a", "b"))'}}]`,
    );
  });
});
