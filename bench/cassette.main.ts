import { benchCassette } from "./cassette.js";

await benchCassette();
