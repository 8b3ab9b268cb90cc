/** GAIA's rules, pure: Python's float(), the official question_scorer, the prompt and answer extraction. */
export { pythonFloat, isPythonSpace } from "./python-float.js";
export { scoreGaia, normalizeNumberStr, normalizeStr, type GaiaVerdict, type GaiaBranch } from "./scorer.js";
export { GAIA_SYSTEM_PROMPT, extractFinalAnswer } from "./prompt.js";
