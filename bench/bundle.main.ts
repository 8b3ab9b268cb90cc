import { benchBundle } from "./bundle.js";

await benchBundle();
