import { benchEval } from "./eval.js";

await benchEval();
