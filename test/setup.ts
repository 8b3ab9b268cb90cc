/** Runs before every test file (vitest's setupFiles): what the file's tests made in the temp directory goes with it. */
import { afterAll } from "vitest";
import { removeTempDirs } from "./helpers.js";

afterAll(removeTempDirs);
