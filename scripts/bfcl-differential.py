"""
Differential cases for Retrace's BFCL prompting-mode decoder, decoded by the official code.

Generates model outputs (literal forms, operators, wrappers, broken syntax) and decodes each with
BFCL's own `default_decode_ast_prompting` (bfcl_eval/model_handler/utils.py at gorilla 6ea5797,
Apache-2.0; the functions below are copied from it unchanged), under CPython 3.11. Writes
fixtures/bfcl/decoder_differential.jsonl: {"input", "decoded"} with `decoded` the repr of the
result, or null when the official decoder raises.

Run: python3 scripts/bfcl-differential.py   (deterministic: a fixed seed)
"""
import ast
import json
import random


# ---- copied from bfcl_eval/model_handler/utils.py (gorilla 6ea5797) ----
def resolve_ast_call(elem):
    func_parts = []
    func_part = elem.func
    while isinstance(func_part, ast.Attribute):
        func_parts.append(func_part.attr)
        func_part = func_part.value
    if isinstance(func_part, ast.Name):
        func_parts.append(func_part.id)
    func_name = ".".join(reversed(func_parts))
    args_dict = {}
    for arg in elem.keywords:
        output = resolve_ast_by_type(arg.value)
        args_dict[arg.arg] = output
    return {func_name: args_dict}


def resolve_ast_by_type(value):
    if isinstance(value, ast.Constant):
        if value.value is Ellipsis:
            output = "..."
        else:
            output = value.value
    elif isinstance(value, ast.UnaryOp):
        output = -value.operand.value
    elif isinstance(value, ast.List):
        output = [resolve_ast_by_type(v) for v in value.elts]
    elif isinstance(value, ast.Dict):
        output = {
            resolve_ast_by_type(k): resolve_ast_by_type(v)
            for k, v in zip(value.keys, value.values)
        }
    elif isinstance(value, ast.NameConstant):
        output = value.value
    elif isinstance(value, ast.BinOp):
        output = eval(ast.unparse(value))
    elif isinstance(value, ast.Name):
        output = value.id
    elif isinstance(value, ast.Call):
        if len(value.keywords) == 0:
            output = ast.unparse(value)
        else:
            output = resolve_ast_call(value)
    elif isinstance(value, ast.Tuple):
        output = tuple(resolve_ast_by_type(v) for v in value.elts)
    elif isinstance(value, ast.Lambda):
        output = eval(ast.unparse(value.body[0].value))
    elif isinstance(value, ast.Ellipsis):
        output = "..."
    elif isinstance(value, ast.Subscript):
        try:
            output = ast.unparse(value.body[0].value)
        except:
            output = ast.unparse(value.value) + "[" + ast.unparse(value.slice) + "]"
    else:
        raise Exception(f"Unsupported AST type: {type(value)}")
    return output


def ast_parse(input_str):
    cleaned_input = input_str.strip().strip("'")
    parsed = ast.parse(cleaned_input, mode="eval")
    extracted = []
    if isinstance(parsed.body, ast.Call):
        extracted.append(resolve_ast_call(parsed.body))
    else:
        for elem in parsed.body.elts:
            assert isinstance(elem, ast.Call)
            extracted.append(resolve_ast_call(elem))
    return extracted


def default_decode_ast_prompting(result):
    result = result.strip("`\n ")
    if not result.startswith("["):
        result = "[" + result
    if not result.endswith("]"):
        result = result + "]"
    return ast_parse(result)
# ---- end of the copy ----


VALUES = [
    "10", "10.0", "1e5", "1E-3", "0x1F", "0o17", "0b101", "1_000", "007", "1__0", ".5", "5.", "0", "00", "1e400",
    "True", "False", "None", "...", "-5", "+5", "~5", "not 5", "-True", "-x", "-5.5", "--5", "-(5)", "-'a'", "-None",
    "x", "a.b", "Units.METRIC", "f(1)", "f( 1,2 )", "f(x=1)", "g.h(1, y=2)", "f()", "(1,)", "()", "(1, 2.0)",
    "[1, (2, 3)]", "[]", "{'a': 1}", "{1: 2, 1.0: 3}", "{[1]: 2}", "{**a}", "{1, 2}", "{}", "f'x'", "b'x'",
    "'a' 'b'", "\"it's\"", "'\\n'", "r'\\d'", "'\\x41'", "'caf\\u00e9'", "1 + 2", "7 / 2", "7 // -2", "-7 % 3",
    "2 ** -1", "2 ** 10", "'ab' * 2", "[1] * 2", "(1, 2) + (3,)", "1 + 2.5", "True + 1", "1 < 2", "a[0]", "a[1:2]",
    "a[1, 2]", "lambda: 1", "x if y else z", "1j", "[x for x in y]", "*a", "1 +", "'unclosed", "a and b", "10abc",
    "1if 1 else 2", "[1, 2,]", "{'k': [1, {'n': None}]}", "'single \"double\"'", "-0.0", "1.50", "12345678901234567890",
]

WRAPPERS = [
    "[{call}]", "{call}", "[{call}, {call2}]", "```\n[{call}]\n```", "```python\n[{call}]\n```", "  [{call}]  \n",
    "'[{call}]'", "[{call}]\r", "\t[{call}]", "[{call}] # done", "[\n  {call},\n  {call2}\n]", "[{call}] [{call2}]",
    "[{call}]; [{call2}]", "({call}, {call2})", "[({call})]", "[{call}][0]", "{call}, {call2}",
]

NAMES = ["f", "math.factorial", "a.b.c", "spotify.play", "get_weather"]


def call(rng):
    name = rng.choice(NAMES)
    parts = []
    if rng.random() < 0.2:
        parts.append(rng.choice(VALUES))  # a positional argument, dropped by the decoder
    for key in rng.sample(["x", "y", "unit", "k"], rng.randint(0, 3)):
        parts.append(f"{key}={rng.choice(VALUES)}")
    return f"{name}({', '.join(parts)})"


def main():
    rng = random.Random(13)
    inputs = ["", "[]", "[{}]", "I'm sorry, I cannot help.", "[f(a=1, a=2)]", "[f(x=1), 5]", "f(x=[1)]", "f(x=[1])"]
    for value in VALUES:
        inputs.append(f"[f(x={value})]")
    for _ in range(600):
        inputs.append(rng.choice(WRAPPERS).format(call=call(rng), call2=call(rng)))
    rows = []
    seen = set()
    for text in inputs:
        if text in seen:
            continue
        seen.add(text)
        try:
            decoded = repr(default_decode_ast_prompting(text))
        except BaseException:
            decoded = None
        rows.append({"input": text, "decoded": decoded})
    with open("fixtures/bfcl/decoder_differential.jsonl", "w", encoding="utf-8") as out:
        for row in rows:
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
    print(f"{len(rows)} cases, {sum(r['decoded'] is None for r in rows)} failing to decode")


if __name__ == "__main__":
    main()
