import { benchGaia } from "./gaia.js";

benchGaia();
