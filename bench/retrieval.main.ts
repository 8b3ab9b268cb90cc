import { benchRetrieval } from "./retrieval.js";

benchRetrieval();
