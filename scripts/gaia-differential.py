# Differential cases for Retrace's GAIA scorer: CPython 3.11 decides; JS must agree.
import json, random, re, string, sys, warnings
warnings.simplefilter("ignore")

def normalize_number_str(number_str):
    for char in ["$", "%", ","]:
        number_str = number_str.replace(char, "")
    try:
        return float(number_str)
    except ValueError:
        return float("inf")

def split_string(s, char_list=[",", ";"]):
    pattern = f"[{''.join(char_list)}]"
    return re.split(pattern, s)

def normalize_str(input_str, remove_punct=True):
    no_spaces = re.sub(r"\s", "", input_str)
    if remove_punct:
        translator = str.maketrans("", "", string.punctuation)
        return no_spaces.lower().translate(translator)
    return no_spaces.lower()

def question_scorer(model_answer, ground_truth):
    def is_float(element):
        try:
            float(element)
            return True
        except ValueError:
            return False
    if model_answer is None:
        model_answer = "None"
    if is_float(ground_truth):
        normalized_answer = normalize_number_str(model_answer)
        return normalized_answer == float(ground_truth)
    elif any(char in ground_truth for char in [",", ";"]):
        gt_elems = split_string(ground_truth)
        ma_elems = split_string(model_answer)
        if len(gt_elems) != len(ma_elems):
            return False
        comparisons = []
        for ma_elem, gt_elem in zip(ma_elems, gt_elems):
            if is_float(gt_elem):
                comparisons.append(normalize_number_str(ma_elem) == float(gt_elem))
            else:
                comparisons.append(normalize_str(ma_elem, remove_punct=False) == normalize_str(gt_elem, remove_punct=False))
        return all(comparisons)
    else:
        return normalize_str(model_answer) == normalize_str(ground_truth)

rng = random.Random(20261201)
pieces = ["0","1","2","5","9","10","007",".","-","+","e","E","_","__","$","%",",",";"," ","\t","\n","\x0b","\x1c","\x85","\xa0","\u2003","\u3000","\u200b","\ufeff",
          "\uff15","\u0663","\U0001d7d9","\u00b2","\u2155","inf","Infinity","nan","NaN","iNf","0x10","1e5","1e400","5.","a","B","Paris","St.","sea gull","\u2019","!","?","(",")","'", "\"", "x", "\u03a3", "\u0130","ß","1,000","3.14"]
def rand_text():
    return "".join(rng.choice(pieces) for _ in range(rng.randint(0, 5)))

def number_like():
    sign = rng.choice(["", "", "+", "-"])
    digits = lambda: "".join(rng.choice("0123456789") for _ in range(rng.randint(0, 4)))
    body = digits() + rng.choice(["", ".", "_", ""]) + digits()
    if rng.random() < 0.3: body += rng.choice(["e", "E"]) + rng.choice(["", "+", "-"]) + digits()
    if rng.random() < 0.1: body = rng.choice(["inf", "INF", "nan", "infinity", "Infinit"])
    if rng.random() < 0.15: body = body.translate(str.maketrans("0123456789", "\uff10\uff11\uff12\uff13\uff14\uff15\uff16\uff17\uff18\uff19"))
    pad = lambda: rng.choice(["", "", " ", "\t", "\n", "\xa0", "\u2003", "\x1c", "\ufeff", "\u200b"])
    return pad() + sign + body + pad()

floats = []
seen = set()
for i in range(8000):
    s = rand_text() if i % 2 else number_like()
    if s in seen: continue
    seen.add(s)
    try:
        v = float(s); floats.append({"input": s, "valid": True, "repr": repr(v)})
    except ValueError:
        floats.append({"input": s, "valid": False})
scores = []
gts = ["42", "0", "1000", "inf", "nan", "0.5", "1,000", "apple, banana", "3, paris", "1;2;3", "St Louis", "Paris", "", ",", "a,,b", " 12 ", "New York City", "seagull, dog", "\u2155", "1_000"]
for _ in range(3000):
    gt = rng.choice(gts) if rng.random() < 0.6 else rand_text()
    r = rng.random()
    ma = None if r < 0.05 else gt if r < 0.25 else gt.upper().replace(" ", rng.choice(["", "  ", "\t"])) if r < 0.45 else number_like() if r < 0.6 else rand_text()
    scores.append({"model_answer": ma, "ground_truth": gt, "expected": question_scorer(ma, gt)})
with open(sys.argv[1], "w") as f:
    for row in floats: f.write(json.dumps(row) + "\n")
with open(sys.argv[2], "w") as f:
    for row in scores: f.write(json.dumps(row) + "\n")
print(len(floats), len(scores), sum(r["valid"] for r in floats), sum(r["expected"] for r in scores))
