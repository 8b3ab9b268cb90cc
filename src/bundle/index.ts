/** Bundles: a run packed into one deterministic .tgz, and loaded back with every check a hostile file needs. */
export { captureRun, runFamily, linesOfType, linesOfTypes, type CaptureOptions, type CapturedBundle, type RunLines } from "./capture.js";
export { loadBundle, type Bundle, type BundledRun } from "./load.js";
export { inspectBundle, type BundleInspection, type RunInspection } from "./summary.js";
export {
  BUNDLE_FORMAT,
  BUNDLE_FORMAT_VERSION,
  DEFAULT_LIMITS,
  MANIFEST_ENTRY,
  EVENTS_ENTRY,
  INPUT_ENTRY,
  FILES_PREFIX,
  CASSETTE_ENTRY,
  ManifestSchema,
  type BundleLimits,
  type Manifest,
} from "./format.js";
