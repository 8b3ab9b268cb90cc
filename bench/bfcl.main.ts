import { benchBfcl } from "./bfcl.js";

benchBfcl();
